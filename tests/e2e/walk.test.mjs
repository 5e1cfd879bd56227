// The walk a student takes: the start page and all eleven exercises, at a
// laptop's 1280×800 and a phone's 390×844, in Japanese and English, over
// http and from file://. On every page: axe-core finds no violation of any
// impact, the page body never scrolls sideways (wide formulas, tables and
// heatmaps scroll inside their own boxes), and nothing goes to the console
// or off the origin. One browser for the whole walk, one context per pass.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startLab, openPage, urlFor, gotoReady, dist, root } from './helpers.mjs';

const exercises = JSON.parse(readFileSync(join(dist, 'exercises.json'), 'utf8'));
const axeSource = readFileSync(join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const VIEWPORTS = { laptop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };

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

// What a person sees go wrong on one page.
async function inspect(page, mode) {
  return {
    overflow: await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
    axe: await axeAll(page, mode),
  };
}

for (const mode of ['http', 'file']) {
  for (const lang of ['ja', 'en']) {
    for (const [name, viewport] of Object.entries(VIEWPORTS)) {
      test(`${mode} ${lang} ${name} (${viewport.width}×${viewport.height}): every page has zero axe violations and no sideways scrolling`, { timeout: 240000 }, async () => {
        const { page, context, problems } = await openPage(lab, mode, { viewport });
        const found = [];
        for (const ex of [null, ...exercises.map((e) => e.id)]) {
          await gotoReady(page, urlFor(lab, mode, { ex, lang }));
          const { overflow, axe } = await inspect(page, mode);
          if (overflow > 0) found.push(`${ex ?? 'start'}: the page is ${overflow}px wider than the window`);
          for (const v of axe) found.push(`${ex ?? 'start'}: ${v}`);
        }
        assert.deepEqual(found, []);
        assert.deepEqual(problems.console, [], 'console errors');
        assert.deepEqual(problems.offOrigin, [], 'requests off the origin');
        await context.close();
      });
    }
  }
}

test('phone: a formula wider than the screen scrolls in its own box, is reachable by Tab, and fades at the edge it scrolls to', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: VIEWPORTS.phone });
  await gotoReady(page, urlFor(lab, 'http', { ex: 'hand-calc' }));
  const math = page.locator('.math-block').first();
  // The hint follows the layout (a ResizeObserver): wait for it to have run.
  await page.waitForFunction(() => document.querySelector('.math-block')?.matches('.fade-left, .fade-right, :not(.fade-left):not(.fade-right)') && document.querySelector('.math-block').style.getPropertyValue('--box-width') !== '');
  const box = await math.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth, tabindex: el.getAttribute('tabindex'), label: el.getAttribute('aria-label'), cls: el.className }));
  assert.ok(box.scroll > box.client, 'the softmax line is wider than a phone');
  assert.equal(box.tabindex, '0');
  assert.equal(box.label, '数式（横にスクロールできます）');
  assert.match(box.cls, /fade-right/);
  assert.doesNotMatch(box.cls, /fade-left/);
  // Tab reaches it; → scrolls it; then it fades on the left too.
  let reached = false;
  for (let i = 0; i < 30 && !reached; i++) {
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
