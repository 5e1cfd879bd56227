// The first screen (issue 12's quality bar: "the visual is the largest thing
// on the screen at 1280×800"). At 1280×800, in both languages, for every
// exercise: the main visual ([data-main-visual], the exercise's first widget
// that is a picture rather than the token chips or the output tables) starts
// above the fold, and the part of it inside the first viewport is larger than
// any other block's part there (the header, the title, the controls, each
// text, question and widget). Two kinds of exercise have no main visual: a
// quiz or code exercise without any widget, and an exercise that asks a
// prediction before its picture (the picture stays below the question, so
// that it does not give the answer away), except where the picture's first
// state answers nothing (exercise 7's empty axes; exercise 9's angle map,
// which starts with a method no variant asks): beside the prediction. Then
// ALiBi's per-head bias maps fit
// their columns at 1280 px: no heatmap scrolls sideways, labels ≥ 11 px,
// cells ≥ 8 px wide, each with its data table; and axe finds nothing serious
// in the two-column layout.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { startLab, openPage, gotoReady, urlFor, root, axeViolations, openGate } from './helpers.mjs';

const yaml = createRequire(import.meta.url)('js-yaml');
const files = readdirSync(join(root, 'exercises'))
  .filter((f) => /^\d.*\.yaml$/.test(f))
  .map((f) => yaml.load(readFileSync(join(root, 'exercises', f), 'utf8')));

// Worked out from the exercise files by hand, not by the page's rule.
const NO_WIDGET = ['check', 'write-the-code'];
// A worksheet (its only widget the input vectors card) would keep one column; the hand
// calculation has had its drawing (handcalc) since issue 24, so there is none now.
const WORKSHEET = [];
const PREDICTION_FIRST = [];
// Issue 24: exercise 7's training picture shows nothing of a result before a run (empty axes);
// exercise 9's angle map starts with PI, which its prediction's variants (none, ntk, base) never
// ask. Each is the main visual beside its prediction (the file's beside_prediction).
const PREDICTION_BESIDE = ['train-short-test-long', 'rope-extend'];
const W = 1280;
const H = 800;

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

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

for (const lang of ['ja', 'en']) {
  test(`1280×800 ${lang}: each exercise's main visual starts above the fold and is the largest block of the first screen`, { timeout: 300000 }, async () => {
    const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: W, height: H } });
    for (const ex of files) {
      await gotoReady(page, urlFor(lab, 'http', { ex: ex.id, lang }));
      await page.waitForFunction(() => ![...document.querySelectorAll('[data-widget]')].some((w) => w.querySelector('.loading, [aria-busy="true"]')), null, { timeout: 60000 });
      await page.evaluate(() => window.scrollTo(0, 0));
      const s = await page.evaluate(firstScreen, { W, H });
      assert.equal(s.scrollX, false, `${ex.id}: the page scrolls sideways`);
      if (NO_WIDGET.includes(ex.id)) {
        assert.ok(ex.blocks.every((b) => ['text', 'note', 'math', 'table', 'choice', 'numeric', 'task', 'code', 'explain', 'prediction'].includes(b.type)), `${ex.id} has a widget`);
        assert.equal(s.count, 0, `${ex.id}: no widget, no main visual`);
        continue;
      }
      if (WORKSHEET.includes(ex.id)) {
        assert.deepEqual(ex.blocks.filter((b) => !['text', 'note', 'math', 'table', 'choice', 'numeric', 'task', 'code', 'explain', 'prediction'].includes(b.type)).map((b) => b.type), ['vectors'], `${ex.id}: only the vectors card`);
        assert.equal(s.count, 0, `${ex.id}: a worksheet keeps one column`);
        continue;
      }
      if (PREDICTION_FIRST.includes(ex.id)) {
        // The prediction first, the picture after it.
        assert.equal(s.count, 0, `${ex.id}: a prediction before the picture keeps the file's order`);
        const [q, w] = await page.evaluate(() => [document.querySelector('[data-question]').getBoundingClientRect().top, document.querySelector('[data-widget]').getBoundingClientRect().top]);
        assert.ok(q < w, `${ex.id}: the prediction comes before the picture`);
        continue;
      }
      if (PREDICTION_BESIDE.includes(ex.id)) {
        const [q, w] = await page.evaluate(() => [document.querySelector('[data-question]').getBoundingClientRect(), document.querySelector('[data-main-visual]').getBoundingClientRect()].map((r) => ({ right: r.right, left: r.left })));
        assert.ok(q.right <= w.left, `${ex.id}: the prediction sits beside (left of) the picture`);
      }
      assert.equal(s.count, 1, `${ex.id}: one main visual`);
      assert.ok(s.top >= 0 && s.top < H * 0.5, `${ex.id}: the main visual starts at ${s.top} px, not in the upper half of the first screen`);
      const biggest = s.others.reduce((a, b) => (b.area > a.area ? b : a), { name: '-', area: 0 });
      assert.ok(s.area > biggest.area, `${ex.id}: main visual [${s.widget}] shows ${Math.round(s.area)} px² on the first screen, ${biggest.name} ${Math.round(biggest.area)} px²`);
    }
    assert.deepEqual(problems.console, []);
    await context.close();
  });
}

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
