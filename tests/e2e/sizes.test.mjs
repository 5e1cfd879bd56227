// Phone sizes (issue 12's quality bar): at 390×844, on the start page and
// every exercise, in both languages, every piece of text in a visual (SVG
// text and the HTML labels of the widgets) renders at ≥ 12 px, axis ticks
// at ≥ 11 px, and every control a finger uses — buttons, chips, sliders,
// selects, text fields, checkboxes and radios with their labels, the step
// links — is at least 44×44 CSS px (WCAG 2.5.5; links inside running text
// are exempt). The rendered size is measured: an SVG text's font-size times
// the scale its SVG is drawn at (getScreenCTM), an HTML element's computed
// font-size (a CSS transform scales it too), a control's bounding box (for
// a checkbox or radio: its label's, which takes the tap too). Every data
// table is opened before the page is measured.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { startLab, openPage, gotoReady, urlFor, root, settled, nextFrames } from './helpers.mjs';

const yaml = createRequire(import.meta.url)('js-yaml');

const exercises = readdirSync(join(root, 'exercises'))
  .filter((f) => /^\d.*\.yaml$/.test(f))
  .map((f) => yaml.load(readFileSync(join(root, 'exercises', f), 'utf8')).id);

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

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

for (const lang of ['en', 'ja']) {
  test(`390×844 ${lang}: text ≥ 12 px, ticks ≥ 11 px and touch targets ≥ 44 px on every page`, { timeout: 600000 }, async () => {
    const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 390, height: 844 } });
    const found = [];
    for (const ex of [null, ...exercises]) {
      await gotoReady(page, urlFor(lab, 'http', { ex, lang }));
      // The widgets draw after the core answers: wait until none is still working.
      await page.waitForFunction(() => ![...document.querySelectorAll('[data-widget]')].some((w) => w.querySelector('.loading, [aria-busy="true"]')), null, { timeout: 60000 });
      // Open every closed block of a widget (what is one click away) and every
      // data table shown too: their numbers are the visuals' twins.
      const closed = page.locator('[data-widget] details:not([open]) > summary:visible');
      for (let i = await closed.count(); i > 0; i--) await closed.first().click();
      const toggles = page.locator('[data-widget] button[aria-expanded="false"]:visible');
      for (let i = await toggles.count(); i > 0; i--) await toggles.first().click();
      // Whatever the opening started has landed and been laid out (not a time: a state, then two frames).
      await settled(page);
      await page.waitForFunction(() => ![...document.querySelectorAll('[data-widget]')].some((w) => w.querySelector('.loading, [aria-busy="true"]')), null, { timeout: 60000 });
      await nextFrames(page, 2);
      const bad = await page.evaluate(audit, { TEXT: 12, TICK: 11, TARGET: 44 });
      for (const b of bad) found.push(`${ex ?? 'start'}: ${b}`);
    }
    assert.deepEqual(problems.console, []);
    await context.close();
    if (process.env.SIZES_DUMP) (await import("node:fs")).writeFileSync(process.env.SIZES_DUMP + lang, found.join("\n"));
    assert.deepEqual(found, [], `${found.length} too small at 390×844 (${lang})`);
  });
}
