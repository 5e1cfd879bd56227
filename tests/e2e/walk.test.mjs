// The walk a student takes: the start page and all twelve exercises, at a
// laptop's 1280×800 and a phone's 390×844, in Japanese and English, over
// http and from file://. On every page: axe-core finds no violation of any
// impact, the page body never scrolls sideways (wide formulas, tables and
// heatmaps scroll inside their own boxes), and nothing goes to the console
// or off the origin. One browser for the whole walk, one context per pass;
// two passes run at once.
//
// Three more checks ride on the same renders (they were layout.test.mjs,
// sizes.test.mjs and visuals-a's two 390×844 tests, which rendered every page
// again):
//
// The first screen (issue 12's quality bar: "the visual is the largest thing
// on the screen at 1280×800"), in the http laptop passes: for every exercise
// the main visual ([data-main-visual], the exercise's first widget that is a
// picture rather than the token chips or the output tables) starts above the
// fold, and the part of it inside the first viewport is larger than any other
// block's part there (the header, the title, the controls, each text,
// question and widget); on exercises 3, 4 and 10 its first drawing starts above
// 560 px (from visuals-a's 1280×800 tests, whose axe on those pages is the
// pass's). Two kinds of exercise have no main visual: a quiz or
// code exercise without any widget, and an exercise that asks a prediction
// before its picture (the picture stays below the question, so that it does
// not give the answer away), except where the picture's first state answers
// nothing (exercise 7's empty axes; exercise 9's angle map, which starts with
// Part 2's frequencies at L = 24, whose verdict is no variant's answer): beside the prediction.
//
// Phone sizes (issue 12's quality bar), in the http phone passes: on the start
// page and every exercise, every piece of text in a visual (SVG text and the
// HTML labels of the widgets) renders at ≥ 12 px, axis ticks at ≥ 11 px, and
// every control a finger uses — buttons, chips, sliders, selects, text
// fields, checkboxes and radios with their labels, the step links — is at
// least 44×44 CSS px (WCAG 2.5.5; links inside running text are exempt). The
// rendered size is measured: an SVG text's font-size times the scale its SVG
// is drawn at (getScreenCTM), an HTML element's computed font-size (a CSS
// transform scales it too), a control's bounding box (for a checkbox or
// radio: its label's, which takes the tap too). Every closed block and data
// table of a widget is opened before the page is measured (after the axe and
// overflow checks, which see the page as it opens).
//
// The phone's first screen (issue 24), in the http phone passes, on each page
// as it opens: every exercise with a picture (but exercise 6, which has its own
// phone test in visuals-a) shows at least 80 px of the drawing itself on the
// first screen, under the lab's controls, which are whole on it; exercises 1,
// 2, 3, 8 and 10 show the whole picture with every control that changes it
// (WHOLE below), and exercise 8 once more shifted by 64 (a navigation of its
// own, after the page's other checks). axe at 390 px, which visuals-a ran on
// exercises 3, 4 and 10, is the pass's axe check (every page, every impact).
//
// What every page shows, in the laptop passes (over http and from file://;
// these were pages.test.mjs's four walks, which rendered every page again):
// the start page's language and its path of steps, each exercise's title
// and first prompt in the pass's language, no blank widget, no raw i18n key,
// no page error; over http also no raw TeX, no stray "null" / "undefined" /
// "NaN" and no arithmetic left in a title (see renderFindings).
//
// axe from file://: a page's DOM from file:// is the http page's, but for
// the links' base (checked: the body without scripts, the links' base
// replaced, the html lang, title and meta tags). A file:// pass waits for the
// http pass of the same language and size and runs axe only on a page whose
// DOM differs; a page whose DOM is the same was checked over http.
//
// Each check's findings are collected over the pass and asserted in a subtest
// named for the check, so a failure says which check failed and on which pages.
// Then: ALiBi's per-head bias maps fit their columns at 1280 px (from
// layout.test.mjs), and the phone and header tests below.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { startLab, openPage, urlFor, gotoReady, dist, root, settled, nextFrames, axeViolations, openGate, RAW_TEX, domSignature, drawDeferred, firstDrawing } from './helpers.mjs';

const exercises = JSON.parse(readFileSync(join(dist, 'exercises.json'), 'utf8'));
const axeSource = readFileSync(join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const VIEWPORTS = { laptop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };

// The exercise files themselves (for the first-screen check's expectations).
const yaml = createRequire(import.meta.url)('js-yaml');
const files = new Map(
  readdirSync(join(root, 'exercises'))
    .filter((f) => /^\d.*\.yaml$/.test(f))
    .map((f) => yaml.load(readFileSync(join(root, 'exercises', f), 'utf8')))
    .map((e) => [e.id, e]),
);

// Worked out from the exercise files by hand, not by the page's rule.
const NO_WIDGET = ['check', 'write-the-code'];
// A worksheet (its only widget the input vectors card) would keep one column; the hand
// calculation has had its drawing (handcalc) since issue 24, so there is none now.
const WORKSHEET = [];
const PREDICTION_FIRST = [];
// Issue 24: exercise 7's training picture shows nothing of a result before a run (empty axes);
// exercise 9's angle map starts with Part 2's frequencies (base 100) at L = 24, while its
// prediction's variants ask base 10 000 at L = 16: its verdict (pairs 2, 3) is no variant's answer. Each is the main visual beside its prediction (the file's beside_prediction).
const PREDICTION_BESIDE = ['train-short-test-long', 'rope-extend'];
const W = 1280;
const H = 800;
// Exercises 3, 4 and 10 (issue 24, from visuals-a's 1280×800 tests): the drawing itself, not only
// the main visual's title and controls, starts in the first screen's upper 70 %.
const DRAWING_HIGH = ['hand-calc', 'add-position', 'alibi'];
const DRAWING_TOP = 560;
const TEXT_BLOCKS = ['text', 'note', 'math', 'table', 'choice', 'numeric', 'task', 'code', 'explain', 'prediction'];

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

// Every axe violation, whatever its impact (evaluated in the page, so a CSP
// that refuses inline scripts does not stop it).
// From file:// axe must not fetch the style sheets itself (Chromium refuses
// file:// XHR, and says so in the console): the CSSOM preload is off there.
async function axeAll(page, mode) {
  if (!(await page.evaluate(() => !!window.axe))) await page.evaluate(axeSource);
  const r = await page.evaluate((preload) => window.axe.run(document, { resultTypes: ['violations'], preload }), mode === 'http');
  return r.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
}

// The widgets draw after the core answers: wait until none is still working.
async function widgetsDrawn(page) {
  await page.waitForFunction(() => ![...document.querySelectorAll('[data-widget]')].some((w) => w.querySelector('.loading, [aria-busy="true"]')), null, { timeout: 60000 });
}

// Runs in the page: the main visual's box, and every other block's area inside the first viewport.
function firstScreen({ W, H }) {
  const inView = (r) => Math.max(0, Math.min(r.right, W) - Math.max(r.left, 0)) * Math.max(0, Math.min(r.bottom, H) - Math.max(r.top, 0));
  const mains = [...document.querySelectorAll('[data-main-visual]')];
  const blocks = [document.querySelector('.site-header'), ...document.querySelectorAll('.exercise > *, .lab-stage-side > *, .lab-stage-visual > *, .lab-stage-after > *')].filter(
    (el) => el && !el.matches('[data-main-visual], .lab-stage, .lab-stage-side, .lab-stage-visual, .lab-stage-after'),
  );
  const name = (el) => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}${el.dataset.widget ? `[${el.dataset.widget}]` : ''}${el.dataset.question ? `[${el.dataset.question}]` : ''}`;
  const r = mains[0]?.getBoundingClientRect();
  return {
    count: mains.length,
    widget: mains[0]?.dataset.widget ?? null,
    top: r?.top ?? null,
    area: r ? inView(r) : 0,
    others: blocks.map((el) => ({ name: name(el), area: inView(el.getBoundingClientRect()) })).filter((b) => b.area > 0),
    scrollX: document.documentElement.scrollWidth > window.innerWidth,
  };
}


// The first-screen check on one exercise at 1280×800 (the page ready): what is
// wrong, as messages naming the exercise.
async function firstScreenFindings(page, id) {
  const ex = files.get(id);
  if (!ex) return [`${id}: no exercise file has this id`];
  const bad = [];
  const check = (ok, msg) => {
    if (!ok) bad.push(`${id}: ${msg}`);
  };
  await widgetsDrawn(page);
  await page.evaluate(() => window.scrollTo(0, 0));
  const s = await page.evaluate(firstScreen, { W, H });
  check(s.scrollX === false, 'the page scrolls sideways');
  if (NO_WIDGET.includes(id)) {
    check(ex.blocks.every((b) => TEXT_BLOCKS.includes(b.type)), 'has a widget');
    check(s.count === 0, `no widget, no main visual (found ${s.count})`);
    return bad;
  }
  if (WORKSHEET.includes(id)) {
    const kinds = ex.blocks.filter((b) => !TEXT_BLOCKS.includes(b.type)).map((b) => b.type);
    check(JSON.stringify(kinds) === JSON.stringify(['vectors']), `only the vectors card (found ${kinds})`);
    check(s.count === 0, `a worksheet keeps one column (found ${s.count} main visuals)`);
    return bad;
  }
  if (PREDICTION_FIRST.includes(id)) {
    // The prediction first, the picture after it.
    check(s.count === 0, `a prediction before the picture keeps the file's order (found ${s.count} main visuals)`);
    const [q, w] = await page.evaluate(() => [document.querySelector('[data-question]').getBoundingClientRect().top, document.querySelector('[data-widget]').getBoundingClientRect().top]);
    check(q < w, 'the prediction comes before the picture');
    return bad;
  }
  if (PREDICTION_BESIDE.includes(id)) {
    const [q, w] = await page.evaluate(() => [document.querySelector('[data-question]').getBoundingClientRect(), document.querySelector('[data-main-visual]')?.getBoundingClientRect() ?? { left: -Infinity, right: -Infinity }].map((r) => ({ right: r.right, left: r.left })));
    check(q.right <= w.left, 'the prediction sits beside (left of) the picture');
  }
  check(s.count === 1, `one main visual (found ${s.count})`);
  if (s.count !== 1) return bad;
  check(s.top >= 0 && s.top < H * 0.5, `the main visual starts at ${s.top} px, not in the upper half of the first screen`);
  const biggest = s.others.reduce((a, b) => (b.area > a.area ? b : a), { name: '-', area: 0 });
  check(s.area > biggest.area, `main visual [${s.widget}] shows ${Math.round(s.area)} px² on the first screen, ${biggest.name} ${Math.round(biggest.area)} px²`);
  if (DRAWING_HIGH.includes(id)) {
    const d = await page.evaluate(firstDrawing);
    check(d.drawing && d.drawing.top < DRAWING_TOP, `its drawing (${d.drawingTag}) starts at ${Math.round(d.drawing?.top)}px, not above ${DRAWING_TOP}px`);
  }
  return bad;
}

// Runs in the page: a list of what is too small.
function audit({ TEXT, TICK, TARGET }) {
  const bad = [];
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return false;
    for (let e = el; e; e = e.parentElement) {
      const cs = getComputedStyle(e);
      if (cs.display === 'none' || cs.visibility === 'hidden' || e.hidden) return false;
    }
    // Text made only for screen readers (a 1 px clip) is not seen.
    return !(r.width <= 1 && r.height <= 1);
  };
  const name = (el) => {
    const cls = typeof el.className === 'string' ? el.className : el.className?.baseVal ?? '';
    const w = el.closest('[data-widget]')?.dataset.widget;
    return `${w ? `[${w}] ` : ''}${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${cls ? `.${cls.trim().split(/\s+/).join('.')}` : ''} "${(el.textContent ?? '').trim().slice(0, 24)}"`;
  };
  const isTick = (el) => !!el.closest('.lp-tick, .hm-row-label, .hm-col-label, .clock-axis, .clock-row-labels, .hm-legend, .tick, [class*="tick"], [class*="axis"]');
  // SVG text.
  for (const tx of document.querySelectorAll('main svg text')) {
    if (!visible(tx) || !tx.textContent.trim()) continue;
    const ctm = tx.getScreenCTM();
    const scale = ctm ? Math.hypot(ctm.a, ctm.b) : 1;
    const px = parseFloat(getComputedStyle(tx).fontSize) * scale;
    const min = isTick(tx) ? TICK : TEXT;
    if (px < min - 0.05) bad.push(`text ${px.toFixed(1)} px < ${min}: ${name(tx)}`);
  }
  // HTML text inside the widgets (the visuals, their legends, labels and tables).
  for (const el of document.querySelectorAll('main .widget *')) {
    if (el.closest('svg') || el.closest('.katex-mathml')) continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !visible(el)) continue;
    let px = parseFloat(getComputedStyle(el).fontSize);
    const m = new DOMMatrix(getComputedStyle(el).transform === 'none' ? undefined : getComputedStyle(el).transform);
    px *= Math.hypot(m.a, m.b);
    // KaTeX draws sub- and superscripts smaller on purpose; its base size counts.
    if (el.closest('.katex')) px = parseFloat(getComputedStyle(el.closest('.katex')).fontSize);
    const min = isTick(el) ? TICK : TEXT;
    if (px < min - 0.05) bad.push(`html text ${px.toFixed(1)} px < ${min}: ${name(el)}`);
  }
  // Touch targets.
  const controls = document.querySelectorAll('button, select, input, textarea, summary, [role="option"], [role="button"], .chip, a.button, .steps-nav a, [role="tab"], [role="slider"]');
  for (const el of controls) {
    if (!visible(el) && !(el.matches('input[type="checkbox"], input[type="radio"]') && el.closest('label'))) continue;
    let target = el;
    if (el.matches('input[type="checkbox"], input[type="radio"]')) target = el.closest('label') ?? (el.id && document.querySelector(`label[for="${CSS.escape(el.id)}"]`)) ?? el;
    if (!visible(target)) continue;
    const r = target.getBoundingClientRect();
    if (r.width < TARGET - 0.5 || r.height < TARGET - 0.5) bad.push(`target ${r.width.toFixed(0)}×${r.height.toFixed(0)} < ${TARGET}: ${name(target)}`);
  }
  return [...new Set(bad)];
}


// The sizes check on one page at 390×844 (the page ready): opens every closed
// block of a widget (what is one click away) and every data table shown too
// (their numbers are the visuals' twins), draws what waits to be scrolled to,
// then measures.
async function sizeFindings(page, where) {
  await widgetsDrawn(page);
  const closed = page.locator('[data-widget] details:not([open]) > summary:visible');
  for (let i = await closed.count(); i > 0; i--) await closed.first().click();
  const toggles = page.locator('[data-widget] button[aria-expanded="false"]:visible');
  for (let i = await toggles.count(); i > 0; i--) await toggles.first().click();
  // Blocks drawn only as they near the viewport (exercise 6's heatmaps).
  await drawDeferred(page);
  // Whatever the opening started has landed and been laid out (not a time: a state, then two frames).
  await settled(page);
  await widgetsDrawn(page);
  await nextFrames(page, 2);
  return (await page.evaluate(audit, { TEXT: 12, TICK: 11, TARGET: 44 })).map((b) => `${where}: ${b}`);
}

// The phone's first screen (issue 24; was visuals-a's two 390×844 tests, which
// rendered every exercise again), in the http phone passes, on each page as it
// opens (before axe and the sizes check): every exercise with a picture shows
// the drawing itself (not only its title) on the first screen, at least 80 px
// of it, with the lab's controls whole on it and above the picture they change;
// exercises 1, 2, 3, 8 and 10 (WHOLE) the whole picture, with every control
// that changes it, each cut to what its scrolling boxes show (exercise 3's
// orders sit in a box of their own). Exercise 8 is checked in a second state
// too (shifted by 64: its legend's longest), a navigation of its own after the
// pass's other checks on the page.
// From the files by hand: no widget at all (as NO_WIDGET), or a picture with its own phone test
// (exercise 6: no lab controls, its slider moves the picture; visuals-a). Exercises 7 and 9, a
// prediction beside their picture, are in it too: on a phone the picture comes first.
const PHONE_NO_PICTURE = ['check', 'write-the-code'];
const PHONE_OWN_TEST = ['wall-1024'];
const PHONE_H = VIEWPORTS.phone.height;
// Exercises whose whole picture is on the first screen at 390×844, not only its top, with every
// control that changes it in view too (issue 24): exercise 1's lines, moved by the lab's sentence
// and seed and by the chips (their buttons, and the goal they are moved towards); exercise 2's
// lines, the same widgets under a longer title and summary, moved by the same controls (no goal
// there: the chips are moved freely, the difference grid says what changed); exercise 8's
// circle with its legend, turned by its sliders and pair picker (and the lab's seed), also once
// shifted (its legend's longest: two more arrows, three-digit positions); exercise 10's bias map
// and fall-off curves (the lesson: the penalty grows with distance), side by side above its lines
// on a phone, moved by the head picker, the length slider and the lab's heads and width; exercise
// 3's two orders side by side (the lesson: the same numbers either way; no lab controls, its
// questions fill it in).
// `pictures`: every one whole; `states`: the URL's extras ('' is the page as the walk opens it).
const WHOLE = {
  reorder: { pictures: ['[data-main-visual] .lines-svg'], controls: ['.exercise .controls', '[data-widget="chips"] .chips', '[data-widget="chips"] .chip-bar button', '[data-widget="chips"] .target-line'], states: [''] },
  formula: { pictures: ['[data-main-visual] .lines-svg'], controls: ['.exercise .controls', '[data-widget="chips"] .chips', '[data-widget="chips"] .chip-bar button'], states: [''] },
  rope: { pictures: ['[data-main-visual] .rope-figure'], controls: ['.exercise .controls', '.rope-controls input', '.rope-controls select'], states: ['', '&m=64&n=64&k=64'] },
  'hand-calc': { pictures: ['[data-main-visual] .hc-order[data-order="0"]', '[data-main-visual] .hc-order[data-order="1"]'], controls: [], states: [''] },
  alibi: { pictures: ['[data-main-visual] .aloc-map-panel', '[data-main-visual] .aloc-curve-panel'], controls: ['.exercise .controls', '[data-main-visual] .head-picker button', '[data-main-visual] .aloc-controls input[type="range"]'], states: [''] },
};

// Runs in the page: the boxes of the pictures and of their controls (every element each selector matches),
// each cut to what its scrolling ancestors show (exercise 3's drawing is in a box of its own on a phone):
// `shown` is the part of its height on view, equal to `height` when nothing of it is cut.
function boxesOf({ pictures, controls }) {
  const box = (e) => {
    const r = e.getBoundingClientRect();
    let top = r.top;
    let bottom = r.bottom;
    for (let a = e.parentElement; a; a = a.parentElement) {
      if (getComputedStyle(a).overflowY === 'visible') continue;
      const c = a.getBoundingClientRect();
      top = Math.max(top, c.top);
      bottom = Math.min(bottom, c.bottom);
    }
    return { top: Math.round(r.top), bottom: Math.round(r.bottom), height: Math.round(r.height), shown: Math.round(Math.max(0, bottom - top)) };
  };
  return {
    pictures: pictures.map((sel) => {
      const pic = document.querySelector(sel);
      return { sel, box: pic && box(pic) };
    }),
    controls: controls.map((sel) => ({ sel, boxes: [...document.querySelectorAll(sel)].map(box) })),
  };
}

// WHOLE's check on the page as it stands (scrolled to the top): every picture and control whole on the first screen.
async function wholeFindings(page, whole, at) {
  const bad = [];
  const check = (ok, msg) => {
    if (!ok) bad.push(`${at}: ${msg}`);
  };
  await page.evaluate(() => window.scrollTo(0, 0));
  const b = await page.evaluate(boxesOf, whole);
  for (const { sel, box } of b.pictures) {
    check(box && box.height > 200, `no picture (${sel})`);
    if (!box) continue;
    check(box.top >= 0 && box.bottom <= PHONE_H, `the picture ${sel} at ${box.top}–${box.bottom}px is not whole on the first screen (${PHONE_H})`);
    check(box.shown >= box.height - 1, `only ${box.shown} of the ${box.height}px of ${sel} are on view (cut by a box that scrolls)`);
  }
  for (const { sel, boxes } of b.controls) {
    check(boxes.length > 0, `no ${sel}`);
    for (const c of boxes) check(c.height > 0 && c.top >= 0 && c.bottom <= PHONE_H && c.shown >= c.height - 1, `${sel} at ${c.top}–${c.bottom}px (${c.shown}px on view) is not on the first screen with the picture`);
  }
  return bad;
}

// The phone's first-screen check on one exercise at 390×844, the page as it opens (ready, not yet
// touched): what is wrong, as messages naming the language and the exercise.
async function phoneScreenFindings(page, id, lang) {
  const ex = files.get(id);
  const at = `${lang} ${id}`;
  if (!ex) return [`${at}: no exercise file has this id`];
  const bad = [];
  const check = (ok, msg) => {
    if (!ok) bad.push(`${at}: ${msg}`);
  };
  await page.evaluate(() => window.scrollTo(0, 0));
  const s = await page.evaluate(firstDrawing);
  check(s.scrollX === false, 'the page scrolls sideways at 390 px');
  if (PHONE_NO_PICTURE.includes(id) || PHONE_OWN_TEST.includes(id)) return bad;
  check(s.main, 'no main visual');
  // At least 80 px of the drawing itself (not only its title) on the first screen.
  check(s.drawing && s.drawing.top < PHONE_H - 80, `the drawing (${s.drawingTag}) starts at ${Math.round(s.drawing?.top)}px of ${PHONE_H}`);
  if (ex.lab?.controls?.length) {
    check(s.controls, 'no controls');
    if (s.controls) {
      check(s.controls.top >= 0 && s.controls.bottom <= PHONE_H, `the controls at ${Math.round(s.controls.top)}–${Math.round(s.controls.bottom)}px are not all on the first screen`);
      check(s.drawing && s.controls.bottom <= s.drawing.top + 1, 'the controls sit above the picture they change');
    }
  }
  if (WHOLE[id]?.states.includes('')) bad.push(...(await wholeFindings(page, WHOLE[id], at)));
  return bad;
}

// WHOLE's other states of one exercise (the URL's extras), each a navigation of its own.
async function phoneStateFindings(page, id, lang) {
  const bad = [];
  for (const extra of (WHOLE[id]?.states ?? []).filter(Boolean)) {
    await gotoReady(page, urlFor(lab, 'http', { ex: id, lang, extra }));
    bad.push(...(await wholeFindings(page, WHOLE[id], `${lang} ${id}${extra}`)));
  }
  return bad;
}

// The http passes' signatures, per "lang size page": a promise the file://
// pass of the same language and size awaits (null if the http pass stopped).
const signatures = new Map();
const httpStarted = new Set();
function signature(key) {
  if (!signatures.has(key)) {
    let resolve;
    const promise = new Promise((ok) => (resolve = ok));
    signatures.set(key, { promise, resolve });
  }
  return signatures.get(key);
}

// No raw TeX where a student reads: the visible text of #main (KaTeX's hidden
// MathML copy, code samples in <code>, and hidden parts aside) must not hold a
// TeX marker (a subscript `x_1`, a superscript `^{…}`, a backslash command
// `\cdot`), nor a stray "null" / "undefined" / "NaN" from a missing part,
// nor arithmetic left for the reader in a title ("位置 0〜1024−1").
async function rawTexFindings(page, where) {
  const found = [];
  const text = await page.evaluate(() => {
    const main = document.getElementById('main').cloneNode(true);
    for (const e of main.querySelectorAll('.katex-mathml, code, script, style, [hidden]')) e.remove();
    return main.textContent;
  });
  if (/\b(null|undefined|NaN)\b/.test(text)) found.push(`${where}: ${text.match(/.{0,30}\b(null|undefined|NaN)\b.{0,10}/s)[0]}`);
  const titles = await page.locator('#main :is(caption, figcaption, h2, h3, h4)').allTextContents();
  for (const title of titles) if (/\d\s*[−-]\s*1(?!\d)/.test(title)) found.push(`${where}: title "${title}"`);
  for (const m of text.matchAll(new RegExp(RAW_TEX.source, 'g'))) found.push(`${where}: …${text.slice(Math.max(0, m.index - 30), m.index + 30).replace(/\s+/g, ' ')}…`);
  return found;
}

// What a page shows (the page ready): its language, the start page's path, an
// exercise's title and first prompt from the file, no blank widget, no raw
// i18n key, no page error; over http the raw-TeX checks above.
async function renderFindings(page, ex, lang, mode) {
  const where = `${lang} ${ex?.id ?? 'start'}`;
  const bad = [];
  const check = (ok, msg) => {
    if (!ok) bad.push(`${where}: ${msg}`);
  };
  check((await page.getAttribute('html', 'lang')) === lang, 'html lang');
  if (!ex) {
    check((await page.locator('.path .step').count()) === exercises.length, 'the path lists every step');
    check((await page.locator('.path .step .badge').first().textContent()) === (lang === 'ja' ? '未着手' : 'Not started'), "the first step's state");
  } else {
    check((await page.locator('h1').textContent()) === ex.title[lang], 'title');
    for (const w of await page.locator('.widget').all()) check((await w.innerText()).trim().split('\n').length > 1, 'a widget is blank');
    const body = await page.locator('main').innerText();
    const key = body.match(/\b(q|ctl|widget|tokens|outputs|attention|pe|wall|rope|alibi|swaps|err|scheme)\.[a-z_]+\b/);
    check(!key, `raw i18n key ${key?.[0]}`);
    check((await page.locator('.page-error').count()) === 0, 'page error');
    const firstPrompt = ex.blocks.find((b) => b.prompt);
    if (firstPrompt) check(body.includes(firstPrompt.prompt[lang].split('$')[0].slice(0, 12).trim()), `the first prompt in ${lang}`);
  }
  if (mode === 'http') bad.push(...(await rawTexFindings(page, where)));
  return bad;
}

const passes = [];
for (const mode of ['http', 'file']) for (const lang of ['ja', 'en']) for (const [name, viewport] of Object.entries(VIEWPORTS)) passes.push({ mode, lang, name, viewport });

describe('every page, at each width, in each language, over http and from file://', { concurrency: 2 }, () => {
  for (const { mode, lang, name, viewport } of passes) {
    const firstScreenToo = mode === 'http' && name === 'laptop';
    const sizesToo = mode === 'http' && name === 'phone';
    const phoneScreenToo = sizesToo;
    const renderToo = name === 'laptop';
    const also = (renderToo ? '; what each page shows' : '') + (firstScreenToo ? '; each main visual leads the first screen' : sizesToo ? "; each picture on the first screen with its controls; text ≥ 12 px, ticks ≥ 11 px, touch targets ≥ 44 px" : '');
    test(`${mode} ${lang} ${name} (${viewport.width}×${viewport.height}): zero axe violations and no sideways scrolling${also}`, { timeout: 600000 }, async (t) => {
      if (mode === 'http') httpStarted.add(`${lang} ${name}`);
      const { page, context, problems } = await openPage(lab, mode, { viewport });
      const found = { axe: [], overflow: [], render: [], firstScreen: [], sizes: [], phoneScreen: [] };
      let axeRuns = 0;
      const pages = [null, ...exercises];
      try {
        for (const ex of pages) {
          const where = ex?.id ?? 'start';
          await gotoReady(page, urlFor(lab, mode, { ex: ex?.id ?? null, lang }));
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          if (overflow > 0) found.overflow.push(`${where}: the page is ${overflow}px wider than the window`);
          // First, on the page as it opens (axe and the sizes check leave it scrolled and opened).
          if (phoneScreenToo && ex) found.phoneScreen.push(...(await phoneScreenFindings(page, ex.id, lang)));
          const dom = await page.evaluate(domSignature);
          const key = `${lang} ${name} ${where}`;
          if (mode === 'http') signature(key).resolve(dom);
          // A file:// pass whose http twin never started (a --test-name-pattern run) checks every page itself.
          if (mode === 'http' || !httpStarted.has(`${lang} ${name}`) || (await signature(key).promise) !== dom) {
            axeRuns++;
            for (const v of await axeAll(page, mode)) found.axe.push(`${where}: ${v}`);
          }
          if (renderToo) found.render.push(...(await renderFindings(page, ex, lang, mode)));
          if (firstScreenToo && ex) found.firstScreen.push(...(await firstScreenFindings(page, ex.id)));
          // Last: it opens blocks and tables, which the checks above must not see.
          if (sizesToo) found.sizes.push(...(await sizeFindings(page, `${lang} ${where}`)));
          // After every other check on the page: another state is another navigation.
          if (phoneScreenToo && ex) found.phoneScreen.push(...(await phoneStateFindings(page, ex.id, lang)));
        }
      } finally {
        // A stopped http pass must not leave its file:// twin waiting: it runs axe everywhere.
        if (mode === 'http') for (const ex of pages) signature(`${lang} ${name} ${ex?.id ?? 'start'}`).resolve(null);
      }
      await t.test(`axe-core: zero violations of any impact (${axeRuns} of ${pages.length} pages run here${mode === 'file' ? '; the others have the http DOM' : ''})`, () => {
        assert.deepEqual(found.axe, []);
        if (mode === 'http') assert.equal(axeRuns, pages.length);
      });
      if (renderToo) await t.test('what each page shows: language, title, prompt, no blank widget, no raw key or TeX', () => assert.deepEqual(found.render, []));
      await t.test('the page body never scrolls sideways', () => assert.deepEqual(found.overflow, []));
      if (firstScreenToo) await t.test("first screen: each exercise's main visual starts above the fold and is the largest block", () => assert.deepEqual(found.firstScreen, []));
      if (phoneScreenToo) await t.test("phone first screen: each exercise's drawing starts on it under its controls; exercises 1, 2, 3, 8 (also shifted) and 10 whole with every control that changes them", () => assert.deepEqual(found.phoneScreen, []));
      if (sizesToo) await t.test('phone sizes: text ≥ 12 px, ticks ≥ 11 px, touch targets ≥ 44×44 px', () => assert.deepEqual(found.sizes, [], `${found.sizes.length} too small at 390×844 (${lang})`));
      await t.test('no console errors', () => assert.deepEqual(problems.console, []));
      await t.test('no requests off the origin', () => assert.deepEqual(problems.offOrigin, []));
      await context.close();
    });
  }
});

test('1280×800: ALiBi bias maps fit their columns (no sideways scroll), labels ≥ 11 px, cells ≥ 8 px, a table each; axe', { timeout: 120000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: W, height: H } });
  for (const lang of ['ja', 'en']) {
    await gotoReady(page, urlFor(lab, 'http', { ex: 'alibi', lang }));
    await openGate(page, 'al');
    await page.waitForSelector('[data-widget] .alibi-distance .heatmap-grid');
    const maps = await page.evaluate(() =>
      [...document.querySelectorAll('.w-alibi .heatmap')].map((fig) => {
        const scroll = fig.querySelector('.hm-scroll');
        const labels = [...fig.querySelectorAll('.hm-row-label, .hm-col-label')].filter((l) => l.textContent.trim());
        const cell = fig.querySelector('.hm-cell').getBoundingClientRect();
        return {
          caption: fig.querySelector('figcaption')?.textContent ?? '',
          scrollWidth: scroll.scrollWidth,
          clientWidth: scroll.clientWidth,
          cols: fig.querySelector('.heatmap-grid').style.gridTemplateColumns,
          minLabel: Math.min(...labels.map((l) => parseFloat(getComputedStyle(l).fontSize))),
          cellWidth: cell.width,
          table: document.getElementById(fig.querySelector('button[aria-controls]')?.getAttribute('aria-controls'))?.tagName === 'TABLE',
        };
      }),
    );
    // Head 1's bias on the sentence, four heads' weights, four long bias maps.
    const long = maps.filter((m) => /repeat\(24,/.test(m.cols));
    assert.equal(long.length, 4, `${lang}: four 24×24 bias maps`);
    for (const m of maps) {
      assert.ok(m.scrollWidth <= m.clientWidth, `${lang} "${m.caption}": scrolls sideways (${m.scrollWidth} > ${m.clientWidth})`);
      assert.ok(m.minLabel >= 11, `${lang} "${m.caption}": a label at ${m.minLabel} px`);
      assert.ok(m.cellWidth >= 8, `${lang} "${m.caption}": cells ${m.cellWidth.toFixed(1)} px wide`);
      assert.ok(m.table, `${lang} "${m.caption}": no data table`);
    }
    // Two bias maps a row at this width.
    const tops = await page.evaluate(() => [...document.querySelectorAll('.alibi-distance .heads-grid > .heatmap')].map((f) => Math.round(f.getBoundingClientRect().top)));
    assert.equal(new Set(tops).size, 2, `${lang}: the four bias maps in two rows (${tops})`);
    assert.deepEqual(await axeViolations(page), []);
  }
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('phone: a formula wider than the screen scrolls in its own box, is reachable by Tab, and fades at the edge it scrolls to', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: VIEWPORTS.phone });
  // Exercise 4's first formula (x_pos = token + PE(pos), written out): exercise 3's softmax line
  // is set on two lines since the side column's formulas grew to the text's size.
  await gotoReady(page, urlFor(lab, 'http', { ex: 'add-position' }));
  const math = page.locator('.math-block').first();
  // The hint follows the layout (a ResizeObserver): wait for it to have run.
  await page.waitForFunction(() => document.querySelector('.math-block')?.matches('.fade-left, .fade-right, :not(.fade-left):not(.fade-right)') && document.querySelector('.math-block').style.getPropertyValue('--box-width') !== '');
  const box = await math.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth, tabindex: el.getAttribute('tabindex'), label: el.getAttribute('aria-label'), cls: el.className }));
  assert.ok(box.scroll > box.client, 'the formula is wider than a phone');
  assert.equal(box.tabindex, '0');
  assert.equal(box.label, '数式（横にスクロールできます）');
  assert.match(box.cls, /fade-right/);
  assert.doesNotMatch(box.cls, /fade-left/);
  // Tab reaches it; → scrolls it; then it fades on the left too.
  let reached = false;
  for (let i = 0; i < 100 && !reached; i++) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => document.activeElement?.classList.contains('math-block'));
  }
  assert.ok(reached, 'Tab reaches the formula');
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.activeElement.scrollLeft > 0);
  await page.waitForFunction(() => document.activeElement.classList.contains('fade-left'));
  // At 1280 the same formula fits: no tab stop, no fade.
  await page.setViewportSize(VIEWPORTS.laptop);
  await page.waitForFunction(() => !document.querySelector('.math-block').hasAttribute('tabindex'));
  assert.doesNotMatch(await math.getAttribute('class'), /fade/);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('phone: heatmap word labels turned sideways as one line each (ja too), cut with "…" and a title, not overlapping; the grid fits', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: VIEWPORTS.phone });
  await gotoReady(page, urlFor(lab, 'http', { ex: 'formula' }));
  const labels = await page.locator('.heatmap-grid').first().locator('.hm-col-label').evaluateAll((els) => els.map((e) => {
    const r = e.getBoundingClientRect();
    const s = getComputedStyle(e);
    let w = 0;
    const range = document.createRange();
    range.selectNodeContents(e);
    const rects = [...range.getClientRects()].filter((x) => x.width > 0 && x.height > 0);
    for (const rect of rects) w = Math.max(w, rect.right);
    const fontPx = parseFloat(s.fontSize);
    return {
      left: r.left,
      textRight: w,
      text: e.textContent,
      title: e.title,
      writingMode: s.writingMode,
      orientation: s.textOrientation,
      // One column of text in vertical writing: every line box at one x.
      columns: new Set(rects.map((x) => Math.round(x.left))).size,
      across: range.getBoundingClientRect().width,
      linePx: s.lineHeight === 'normal' ? 1.3 * fontPx : parseFloat(s.lineHeight),
      clipped: e.scrollHeight > e.clientHeight + 1,
      ellipsis: s.textOverflow,
    };
  }));
  assert.equal(labels.length, 6);
  assert.equal(labels[4].text, '5 追いかけ');
  for (const l of labels) {
    assert.match(l.writingMode, /^vertical/, `"${l.text}" is not turned`);
    // Sideways: the line turned as a whole, not CJK glyphs standing upright one under the other.
    assert.equal(l.orientation, 'sideways', `"${l.text}": ${l.orientation}`);
    assert.equal(l.columns, 1, `"${l.text}" is set on ${l.columns} lines`);
    assert.ok(l.across <= l.linePx + 1, `"${l.text}": ${l.across.toFixed(1)} px across, one line is ${l.linePx.toFixed(1)} px`);
    assert.equal(l.title, l.text, `"${l.text}": its whole text in the title`);
    if (l.clipped) assert.equal(l.ellipsis, 'ellipsis', `"${l.text}" cut short without "…"`);
  }
  for (let i = 0; i + 1 < labels.length; i++) assert.ok(labels[i].textRight <= labels[i + 1].left + 0.5, `"${labels[i].text}" runs into "${labels[i + 1].text}"`);
  const scroller = await page.locator('.hm-scroll').first().evaluate((el) => el.scrollWidth - el.clientWidth);
  assert.ok(scroller <= 1, `the 6×6 heatmap is ${scroller}px too wide for a phone`);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('a finished step in the header keeps its contrast: exercise 1 done by keyboard, then axe on the header', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: VIEWPORTS.laptop });
  await gotoReady(page, urlFor(lab, 'http', { ex: 'reorder' }));
  // 犬 が 猫 → 猫 が 犬: grab 猫, two left; grab 犬, one right.
  let n = 0;
  while (!(await page.evaluate(() => document.activeElement?.matches('.chip'))) && n++ < 80) await page.keyboard.press('Tab');
  for (const key of ['ArrowRight', 'ArrowRight', 'Space', 'ArrowLeft', 'ArrowLeft', 'Space', 'ArrowRight', 'Space', 'ArrowRight', 'Space']) await page.keyboard.press(key);
  await page.waitForSelector('[data-question="make-target"].done');
  await page.check('[data-question="what-changed"] input[value="rows-move"]');
  await page.click('[data-question="what-changed"] button[type="submit"]');
  await page.waitForSelector('.steps-nav li.done');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'check' }));
  assert.equal(await page.locator('.steps-nav li.done').count(), 1);
  await page.evaluate(axeSource);
  const r = await page.evaluate(() => window.axe.run('.site-header', { runOnly: ['color-contrast'] }));
  assert.deepEqual(r.violations.map((v) => v.nodes.map((x) => x.target.join(' '))), []);
  // axe leaves a one-digit step "incomplete" (too short to judge), so the
  // done step's contrast is also worked out here (WCAG 2 relative luminance):
  // 14.4px bold is normal-size text, which needs 4.5:1.
  const [fg, bg] = await page.locator('.steps-nav li.done a').evaluate((a) => [getComputedStyle(a).color, getComputedStyle(a).backgroundColor]);
  const lum = (css) => {
    const [r, g, b] = css.match(/\d+/g).slice(0, 3).map((v) => {
      const c = Number(v) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [hi, lo] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  const ratio = (hi + 0.05) / (lo + 0.05);
  assert.ok(ratio >= 4.5, `a done step's number has contrast ${ratio.toFixed(2)}:1`);
  assert.deepEqual(problems.console, []);
  await context.close();
});
