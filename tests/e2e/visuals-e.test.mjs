// Issue 24, what was left (part E): exercise 7 on a phone, the picture first.
// Each test fails if the defect it names comes back.
//
// - Exercise 7 at 390×844, ja and en: the chart the curves will grow on (its
//   frame, the schemes' legend, the trained lengths, a line in the frame
//   saying what will grow there) on the first screen, the Train button in
//   the play bar at its top (visuals-f); the prediction right under the
//   chart, the exercise's text after them, and Tab goes the same way. At
//   1280 the prediction goes back beside the picture, its answer kept.
// - While it trains on a phone, the growing curves stay on screen (the same
//   chart, stuck to the top under its play bar) when the student goes down.
// - Math in small text (captions, table cells, help lines) at 1280 and 390
//   px: no glyph of it, sub- and superscripts included, under 13 px (they
//   were 10–11 px: θᵢ in a table cell, m_h in a caption, d_model on the start
//   page, 10000^{2i/D} in a caption; a fraction's script-script 8 px).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startLab, openPage, gotoReady, urlFor, axeViolations, artifacts, openGate, exerciseFile, T } from './helpers.mjs';

const file = exerciseFile;

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

// From the exercise file: the prediction's options are the schemes the chart's legend names.
const ex7 = file('07-train-short-test-long.yaml');
const predictBlock = ex7.blocks.find((b) => b.type === 'prediction');
const trainBlock = ex7.blocks.find((b) => b.type === 'extrapolate');
assert.equal(trainBlock.prediction, predictBlock.id);
assert.equal(trainBlock.beside_prediction, true);
const schemeLabels = (lang) => predictBlock.options.map((o) => o.label[lang]);
// What the empty frame says (written here, not read from the page's catalogue).
const NOTE = { ja: '学習を始めると、各方式の曲線がここに伸びていきます', en: "Once training starts, each scheme's curve grows here" };

const W7 = '[data-widget="train"]';
// Exercise 10's widget that opens when its slope question is settled (from the file).
const ex10Gate = file('10-alibi.yaml').blocks.find((b) => b.reveal_after).id;
// Runs in the page: where the parts of exercise 7 are (viewport coordinates).
function where() {
  const box = (e) => e && (({ top, bottom, left, right }) => ({ top, bottom, left, right }))(e.getBoundingClientRect());
  const w = document.querySelector('[data-widget="train"]');
  const fig = w.querySelector('.extrap-results .lineplot-figure');
  const q = document.querySelector('[data-question="predict"]');
  return {
    widget: box(w),
    figure: box(fig),
    frame: box(fig?.querySelector('.lp-frame')),
    note: box(fig?.querySelector('.lp-note')),
    noteText: fig?.querySelector('.lp-note')?.textContent ?? '',
    legend: [...(fig?.querySelectorAll('.lp-legend li') ?? [])].map((li) => li.textContent.trim()),
    legendBox: box(fig?.querySelector('.lp-legend')),
    curves: w.querySelectorAll('polyline').length,
    prediction: box(q),
    predictionInWidget: w.contains(q),
    train: box(w.querySelector('.train-button')),
    sideText: box(document.querySelector('.lab-stage-side > .text')),
    scrollX: document.documentElement.scrollWidth > window.innerWidth,
  };
}

test('exercise 7 at 390×844: the empty chart on the first screen, the prediction right under it, Train under that, the text after; Tab goes the same way; at 1280 the prediction goes back beside the picture', { timeout: T(180000) }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 390, height: 844 } });
  try {
    for (const lang of ['ja', 'en']) {
      await gotoReady(page, urlFor(lab, 'http', { ex: 'train-short-test-long', lang }));
      await page.evaluate(() => window.scrollTo(0, 0));
      const s = await page.evaluate(where);
      assert.equal(s.scrollX, false);
      // The whole frame and its legend on the first screen (before: the picture began at 1,782 px).
      assert.ok(s.frame.top >= 0 && s.legendBox.bottom <= 844, `${lang}: the chart at ${Math.round(s.frame.top)}–${Math.round(s.legendBox.bottom)} px`);
      assert.deepEqual(s.legend, schemeLabels(lang));
      // The line in the frame, inside it; nothing drawn yet.
      assert.equal(s.noteText, NOTE[lang]);
      assert.ok(s.note.left >= s.frame.left && s.note.right <= s.frame.right && s.note.top >= s.frame.top && s.note.bottom <= s.frame.bottom, `${lang}: the note leaves the frame`);
      assert.equal(s.curves, 0);
      // The prediction right under the chart (only the line on how to train between), its heading on the
      // first screen; Train in the bar at the chart's top; the exercise's text after the form.
      assert.equal(s.predictionInWidget, true);
      assert.ok(s.prediction.top >= s.legendBox.bottom && s.prediction.top - s.legendBox.bottom < 150, `${lang}: ${Math.round(s.prediction.top - s.legendBox.bottom)} px from the chart to the prediction`);
      assert.ok(s.prediction.top < 844 - 30, `${lang}: the prediction starts at ${Math.round(s.prediction.top)} px`);
      assert.ok(s.train.top >= 0 && s.train.bottom <= s.frame.top, `${lang}: Train at ${Math.round(s.train.top)}–${Math.round(s.train.bottom)} px, the chart's frame at ${Math.round(s.frame.top)}`);
      assert.ok(s.sideText.top > s.train.bottom, `${lang}: the text comes before Train`);
      if (lang === 'ja') {
        assert.deepEqual(await axeViolations(page), []);
        await page.screenshot({ path: join(artifacts, 'visuals-e-train-390-ja.png') });
      }
      // Tab from the top: Train (in the chart's bar, the note asking for the prediction beside it), a
      // choice of the prediction, then its button, and nothing of the text (below them) on the way.
      const order = [];
      for (let i = 0; i < 120 && !order.includes('record'); i++) {
        await page.keyboard.press('Tab');
        order.push(
          await page.evaluate(() => {
            const a = document.activeElement;
            if (a.matches('[data-question="predict"] input[type="radio"]')) return 'choice';
            if (a.matches('[data-question="predict"] button[type="submit"]')) return 'record';
            if (a.matches('.train-button')) return 'train';
            if (a.closest('.lab-stage-side')) return 'side';
            return 'other';
          }),
        );
      }
      const seen = order.filter((x, i) => x !== 'other' && x !== order[i - 1]);
      assert.deepEqual(seen, ['train', 'choice', 'record'], `${lang}: Tab went ${seen.join(' → ')}`);
    }
    // Record a prediction by keyboard (the first choice, Space, the button, Enter): the note by Train goes.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.locator('[data-question="predict"] input[type="radio"]').first().focus();
    await page.keyboard.press('Space');
    await page.locator('[data-question="predict"] button[type="submit"]').focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction((w) => document.querySelector(`${w} .extrap-predict-first`)?.hidden === true, W7);
    const chosen = await page.locator('[data-question="predict"] input[type="radio"]:checked').getAttribute('value');
    // Wide: the prediction back left of the picture, still answered; narrow again: under the picture.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.waitForFunction(() => !document.querySelector('[data-widget="train"]').contains(document.querySelector('[data-question="predict"]')));
    const wide = await page.evaluate(where);
    assert.ok(wide.prediction.right <= wide.widget.left, 'at 1280 the prediction is not beside the picture');
    assert.equal(await page.locator('[data-question="predict"] input[type="radio"]:checked').getAttribute('value'), chosen);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForFunction(() => document.querySelector('[data-widget="train"]').contains(document.querySelector('[data-question="predict"]')));
    assert.equal(await page.locator('[data-question="predict"] input[type="radio"]:checked').getAttribute('value'), chosen);
    assert.deepEqual(problems.console, []);
  } finally {
    await context.close();
  }
});

test('exercise 7 at 390×844: while it trains, the curves grow in the same chart and stay on screen under Pause', { timeout: T(240000) }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 390, height: 844 } });
  try {
    await gotoReady(page, urlFor(lab, 'http', { ex: 'train-short-test-long', lang: 'en', extra: '&seeds=1' }));
    await page.locator('[data-question="predict"] input[type="radio"]').first().check();
    await page.locator('[data-question="predict"] button[type="submit"]').click();
    await page.waitForFunction((w) => document.querySelector(`${w} .extrap-predict-first`)?.hidden === true, W7);
    const figTop = () => page.evaluate(() => document.querySelector('[data-widget="train"] .extrap-results .lineplot-figure').getBoundingClientRect().top + window.scrollY);
    const emptyTop = await figTop();
    // (the play bar at the chart's top: Train and the note before a run, Pause, Step and Cancel too in a run)
    const barHeight = () => page.evaluate((w) => document.querySelector(`${w} .extrap-bar`).getBoundingClientRect().height, W7);
    const barBefore = await barHeight();
    await page.evaluate(() => (document.querySelector('[data-widget="train"] .extrap-results').dataset.mark = 'empty'));
    await page.locator(`${W7} .train-button`).click();
    // The first test of a run drawn: a curve in the chart where the empty frame was.
    await page.waitForFunction((w) => document.querySelectorAll(`${w} .extrap-results .em-live polyline`).length > 0, W7, { timeout: T(120000) });
    await page.evaluate(() => window.scrollTo(0, 0));
    // In the same box, moved down by the progress line and the run's status line that came above it,
    // and the play bar's second row (Pause, Step, Cancel), and by nothing else.
    assert.equal(await page.locator(`${W7} .extrap-results`).getAttribute('data-mark'), 'empty');
    const above = await page.evaluate((w) =>
      [`${w} .extrap-status`, `${w} .extrap-outcome`].map((sel) => {
        const e = document.querySelector(sel);
        const cs = getComputedStyle(e);
        return e.getBoundingClientRect().height + parseFloat(cs.marginTop) + parseFloat(cs.marginBottom);
      }).reduce((a, b) => a + b), W7);
    const moved = (await figTop()) - emptyTop;
    const barGrew = (await barHeight()) - barBefore;
    assert.ok(moved >= 0 && moved <= above + barGrew + 16, `the live chart is ${Math.round(moved)} px below the empty one (the lines above it: ${Math.round(above)} px; the bar grew by ${Math.round(barGrew)} px)`);
    // Down to the form under the chart (the student reads on), then Pause, in the bar stuck at the top.
    await page.evaluate((w) => window.scrollBy(0, document.querySelector(`${w} .seeds-input`).getBoundingClientRect().top - window.innerHeight / 2), W7);
    await page.locator(`${W7} .pause-button`).click();
    await page.waitForSelector(`${W7}[data-held="true"]`, { timeout: T(60000) });
    const s = await page.evaluate((w) => {
      const box = (e) => e.getBoundingClientRect();
      const frame = box(document.querySelector(`${w} .em-live .lp-frame`));
      const pause = box(document.querySelector(`${w} .pause-button`));
      return { frame: { top: frame.top, bottom: frame.bottom }, pause: { top: pause.top, bottom: pause.bottom }, curves: document.querySelectorAll(`${w} .em-live polyline`).length };
    }, W7);
    assert.ok(s.curves > 0);
    assert.ok(s.pause.top >= 0 && s.frame.top >= s.pause.bottom && s.frame.bottom <= 844, `the chart (${Math.round(s.frame.top)}–${Math.round(s.frame.bottom)}) is not on screen under Pause (${Math.round(s.pause.top)}–${Math.round(s.pause.bottom)})`);
    await page.screenshot({ path: join(artifacts, 'visuals-e-train-live-390.png') });
    await page.locator(`${W7} .cancel-button`).click();
    await page.waitForSelector(`${W7}[data-status="cancelled"]`, { timeout: T(60000) });
    assert.deepEqual(problems.console, []);
  } finally {
    await context.close();
  }
});

// Runs in the page: the smallest glyphs of each formula on screen (KaTeX's own 1 px struts and
// zero-width spaces left out), with the formula's TeX and the element it sits in.
function smallMath(min) {
  const out = [];
  for (const k of document.querySelectorAll('.katex')) {
    if (!k.getBoundingClientRect().width) continue;
    const glyphs = [...k.querySelectorAll('.katex-html span')].filter((e) => !e.children.length && e.textContent.replace(/[\s\u200b]/g, '') && !e.closest('.vlist-s'));
    const px = Math.min(...glyphs.map((e) => parseFloat(getComputedStyle(e).fontSize)));
    if (px < min) out.push(`${k.querySelector('annotation')?.textContent} in ${k.parentElement.closest('caption, td, th, p, li, label, div')?.tagName}: ${px.toFixed(1)} px`);
  }
  return out;
}

test('math in captions, table cells and help lines: no glyph under 13 px at 1280 and 390 (start, 3, 4, 9, 10)', { timeout: T(240000) }, async () => {
  for (const width of [1280, 390]) {
    const { page, context, problems } = await openPage(lab, 'http', { viewport: { width, height: 844 } });
    try {
      const seen = [];
      for (const ex of [undefined, 'hand-calc', 'add-position', 'rope-extend', 'alibi']) {
        await gotoReady(page, urlFor(lab, 'http', { ex, lang: 'ja' }));
        // Exercise 10's slopes (m_h in the caption and the heads' column) open once its question is settled.
        if (ex === 'alibi') await openGate(page, ex10Gate);
        // Every table drawn (a closed table's formulas have no size).
        for (const b of await page.locator('.table-toggle[aria-expanded="false"]').all()) if (await b.isVisible()) await b.click();
        await page.waitForFunction(() => !document.querySelector('.tex-pending') && !document.querySelector('[data-busy]'));
        const small = await page.evaluate(smallMath, 13);
        assert.deepEqual(small, [], `${ex ?? 'start'} at ${width}`);
        seen.push(await page.evaluate(() => [...document.querySelectorAll('.katex')].filter((k) => k.getBoundingClientRect().width && k.querySelector('.msupsub')).map((k) => k.querySelector('annotation').textContent)));
      }
      // The formulas that were too small are among those checked (so the check saw them drawn).
      const all = seen.flat();
      for (const tex of ['d_{\\mathrm{model}}', '2\\pi \\cdot 10000^{2i/D}', '\\theta_i', 'm_h']) assert.ok(all.includes(tex), `${tex} was not on the pages checked at ${width}`);
      assert.deepEqual(problems.console, []);
    } finally {
      await context.close();
    }
  }
});

// Exercise 10 at 1280×800 (en had "−m·|i −" on one line and "j|" on the next): the bias map's
// caption keeps the formula −m·|i − j| on one line, in ja and en.
test('exercise 10 at 1280×800: the bias map\'s caption keeps −m·|i − j| on one line, and the side text "|i − j|," too (ja and en)', { timeout: T(120000) }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
  try {
    for (const lang of ['ja', 'en']) {
      await gotoReady(page, urlFor(lab, 'http', { ex: 'alibi', lang }));
      const lines = await page.evaluate(() => {
        const cap = [...document.querySelectorAll('.aloc-panel figcaption')].find((e) => /\|i\s−\sj\|/.test(e.textContent));
        if (!cap) return null;
        const node = [...cap.childNodes].find((n) => n.nodeType === 3 && /\|i\s−\sj\|/.test(n.textContent));
        const at = node.textContent.search(/−m·\|i\s−\sj\|/);
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + '−m·|i − j|'.length);
        return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
      });
      assert.equal(lines, 1, `${lang}: the formula is set on ${lines} lines`);
      // In the side text, "$|i - j|$," (en: the "," had begun the next line): each short formula
      // with its punctuation on one line (the bottoms of the formula's last box and of the text after it).
      const split = await page.evaluate(() =>
        [...document.querySelectorAll('.lab-stage .nobr')]
          .filter((n) => n.querySelectorAll('.katex-html > .katex-base').length <= 2 && n.lastChild.nodeType === 3)
          .filter((n) => {
            const last = [...n.querySelectorAll('.katex-html > .katex-base')].at(-1).getBoundingClientRect();
            const range = document.createRange();
            range.selectNodeContents(n.lastChild);
            const after = range.getBoundingClientRect();
            return Math.abs(after.bottom - last.bottom) > last.height / 2;
          })
          .map((n) => n.textContent.slice(0, 40)),
      );
      assert.deepEqual(split, [], `${lang}: punctuation on another line than its formula`);
    }
    assert.deepEqual(problems.console, []);
  } finally {
    await context.close();
  }
});
