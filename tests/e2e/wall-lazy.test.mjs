// Exercise 6's table views are drawn when they are needed (web/js/lazy-draw.js):
// each table view's similarity heatmap (50 × 50 cells, 2,600 elements) when
// it nears the viewport, its table of numbers (2,650 elements) when it is
// first opened. At load the page is small; a person who reaches the heatmap
// with Tab and opens its table with Enter sees the numbers, which are those
// of an independent computation; after the table is switched (a control),
// what is opened shows the new table, never the old one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLab, openPage, gotoReady, urlFor, settled, T } from './helpers.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

// Cosine similarity of rows p and q of the sinusoidal table at width d
// (sin/cos pairs at ω_i = 10000^(−2i/d)): each pair adds cos((p − q)·ω_i),
// each row's squared norm is d/2, whichever way the pairs are laid out.
function sinSimilarity(p, q, d) {
  let s = 0;
  for (let i = 0; i < d / 2; i++) s += Math.cos((p - q) * 10000 ** ((-2 * i) / d));
  return s / (d / 2);
}

const SIN = '.wall-table .table-views[data-kind="sinusoidal"]';
const count = (page) => page.evaluate(() => document.querySelectorAll('*').length);

// Presses key (Tab, or Shift+Tab to go back) until focus is on an element
// matching sel, as a person would; from a freshly loaded page, Tab starts at its top.
async function tabTo(page, sel, key = 'Tab', most = 400) {
  for (let i = 0; i < most; i++) {
    await page.keyboard.press(key);
    if (await page.evaluate((s) => !!document.activeElement?.matches(s), sel)) return i + 1;
  }
  const at = await page.evaluate(() => { const e = document.activeElement; return `${e?.tagName}.${e?.className}`; });
  throw new Error(`${sel} not reached in ${most} presses of ${key} (focus on ${at})`);
}

// The opened table's rows: [row label, values…].
const tableRows = (page, sel) => page.locator(sel).evaluate((t) => [...t.querySelectorAll('tbody tr')].map((tr) => [Number(tr.querySelector('th').textContent), ...[...tr.querySelectorAll('td')].map((td) => Number(td.textContent))]));

function checkSimilarity(rows, labels, d, what) {
  assert.ok(rows.length > 0, `${what}: no rows`);
  assert.deepEqual(rows.map((r) => r[0]), labels, `${what}: row labels`);
  for (const [i, [p, ...vals]] of rows.entries()) {
    assert.equal(vals.length, labels.length, `${what}: row ${p} has ${vals.length} values`);
    vals.forEach((v, j) => {
      const want = sinSimilarity(p, labels[j], d);
      // Two decimals on the page; the core's table is float32.
      assert.ok(Math.abs(v - want) <= 0.005 + 1e-4, `${what}: (${p}, ${labels[j]}) shows ${v}, cos similarity ${want.toFixed(4)} (row ${i})`);
    });
  }
}

test('exercise 6 at 1280×800 (ja): small at load; Tab draws the heatmap, Enter opens its table (numbers checked); after a table switch nothing stale', { timeout: T(300000) }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
  try {
    await gotoReady(page, urlFor(lab, 'http', { ex: 'wall-1024', lang: 'ja' }));
    await page.waitForSelector('.wall-table[data-source="trained"][aria-busy="false"] .table-views[data-kind="table"]');
    // At load: everything but the two heatmaps' grids and tables is about
    // 1,600 elements (1,578 measured on 2026-12-03; 6,780 with the two grids,
    // 12,088 with the tables too). 3,000 leaves room for the page to grow and
    // fails if even one 50 × 50 grid (2,601 elements) were drawn at load.
    const atLoad = await count(page);
    assert.ok(atLoad < 3000, `exercise 6 has ${atLoad} elements at load`);
    // Ready means everything shown is drawn: what is left to draw is out of sight (more than half a screen below).
    const deferred = await page.locator('[data-deferred]').evaluateAll((els) => els.map((e) => ({ top: e.getBoundingClientRect().top, label: e.querySelector('[role="img"]')?.getAttribute('aria-label') ?? '' })));
    assert.equal(deferred.length, 2, 'both table views wait to draw their heatmaps');
    for (const d of deferred) {
      assert.ok(d.top > 800 * 1.5, `a heatmap left undrawn starts at y = ${d.top}`);
      // Its text alternative is there before it is drawn.
      assert.match(d.label, /コサイン類似度（全 50 行）のヒートマップ（50 行 × 50 列/);
    }
    assert.equal(await page.locator('.wall-table .heatmap .data-table tbody').count(), 0, 'no table of numbers before it is opened');
    const d = Number(await page.locator(SIN).getAttribute('data-cols'));
    assert.equal(Number(await page.locator(SIN).getAttribute('data-rows')), 50);
    assert.ok(d > 0 && d % 2 === 0, `sinusoidal width ${d}`);

    // Tab from the top to the sinusoidal heatmap's scroll box: it is drawn.
    await tabTo(page, `${SIN} .hm-scroll`);
    await page.waitForFunction((s) => document.querySelectorAll(`${s} .hm-cell`).length === 2500, SIN);
    assert.equal(await page.locator(`${SIN} .hm-scroll`).getAttribute('data-deferred'), null);
    // Each cell's title holds its value (two decimals): the similarity of its row and column.
    const cells = await page.locator(`${SIN} .hm-cell`).evaluateAll((cs) => cs.map((c) => c.title));
    const labels = Array.from({ length: 50 }, (_, i) => i);
    cells.forEach((title, n) => {
      const m = /^(\d+), (\d+): (-?[\d.]+)$/.exec(title);
      assert.ok(m, `cell title "${title}"`);
      const [p, q] = [Number(m[1]), Number(m[2])];
      assert.deepEqual([p, q], [Math.floor(n / 50), n % 50], `cell ${n} is row ${p}, column ${q}`);
      assert.ok(Math.abs(Number(m[3]) - sinSimilarity(p, q, d)) <= 0.005 + 1e-4, `cell (${p}, ${q}) shows ${m[3]}`);
    });
    const drawnGrid = await count(page);
    assert.ok(drawnGrid >= atLoad + 2601, `${atLoad} → ${drawnGrid} elements once one grid is drawn`);

    // Tab on to its table toggle and open it with Enter: 50 rows of 50 numbers, checked.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate((s) => document.activeElement === document.querySelector(`${s} .heatmap .table-toggle`), SIN), true, 'the next Tab stop is the table toggle');
    await page.keyboard.press('Enter');
    await page.waitForSelector(`${SIN} .heatmap .table-toggle[aria-expanded="true"]`);
    assert.equal(await page.locator(`${SIN} .heatmap table.data-table`).isVisible(), true);
    checkSimilarity(await tableRows(page, `${SIN} .heatmap table.data-table`), labels, d, 'trained-size table');
    const opened = await count(page);
    assert.ok(opened >= drawnGrid + 2600, `${drawnGrid} → ${opened} elements once the table is open`);
    // Space closes it and opens it again: the same table, drawn once.
    await page.keyboard.press('Space');
    await page.waitForSelector(`${SIN} .heatmap .table-toggle[aria-expanded="false"]`);
    assert.equal(await page.locator(`${SIN} .heatmap table.data-table`).isVisible(), false);
    await page.keyboard.press('Space');
    await page.waitForSelector(`${SIN} .heatmap .table-toggle[aria-expanded="true"]`);
    assert.equal(await page.locator(`${SIN} .heatmap table.data-table tbody tr`).count(), 50);
    assert.equal(await count(page), opened, 'reopening draws nothing more');

    // A control: the random 1024 × 768 table instead (back with Shift+Tab to its button, Enter).
    await tabTo(page, '.wall-table .table-random', 'Shift+Tab');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.wall-table[data-source="random"][aria-busy="false"] .table-views[data-kind="sinusoidal"][data-rows="1024"]', { timeout: T(120000) });
    await settled(page);
    const d2 = Number(await page.locator(SIN).getAttribute('data-cols'));
    assert.equal(d2, 768);
    // Its heatmap is now a picture of k × k sampled rows (too many cells for
    // a grid of elements) whose table shows the top-left corner: reached by
    // Tab, opened with Space, the rows of the new table.
    await tabTo(page, `${SIN} .heatmap .table-toggle`);
    await page.keyboard.press('Space');
    await page.waitForSelector(`${SIN} .heatmap .table-toggle[aria-expanded="true"]`);
    const corner = await page.locator(`${SIN} .heatmap table.data-table`).evaluate((t) => ({
      cols: [...t.querySelectorAll('thead th')].slice(1).map((th) => Number(th.textContent)),
      rows: [...t.querySelectorAll('tbody tr')].map((tr) => [Number(tr.querySelector('th').textContent), ...[...tr.querySelectorAll('td')].map((td) => Number(td.textContent))]),
    }));
    const k = Number(/等間隔に (\d+) 行/.exec(await page.locator(`${SIN} .heatmap figcaption`).innerText())?.[1]);
    assert.ok(k > 50, `the caption says how many rows were sampled: ${k}`);
    const wantCorner = Math.min(k, 48);
    assert.equal(corner.rows.length, wantCorner);
    // Evenly spaced over 0…1023: never the 50 rows of before.
    assert.ok(corner.rows[wantCorner - 1][0] > 49, `the sampled rows reach past row 49: ${corner.rows.map((r) => r[0]).join(',')}`);
    assert.deepEqual(corner.cols, corner.rows.map((r) => r[0]));
    checkSimilarity(corner.rows, corner.cols, 768, 'random-size table');

    // Back to the trained table (Shift+Tab to its button, Enter) with the
    // sinusoidal heatmap on screen: once the page has settled, the new heatmap
    // there is drawn (no wait for the observer), and its table, opened, is the
    // 50-row one again.
    await tabTo(page, '.wall-table .table-trained', 'Shift+Tab');
    await page.locator(`${SIN} .heatmap`).scrollIntoViewIfNeeded();
    await page.keyboard.press('Enter');
    await page.waitForSelector('.wall-table[data-source="trained"][aria-busy="false"] .table-views[data-kind="sinusoidal"][data-rows="50"]', { timeout: T(120000) });
    await settled(page);
    const onScreen = await page.locator(`${SIN} .hm-scroll`).evaluate((e) => {
      const r = e.getBoundingClientRect();
      return { inView: r.top < innerHeight && r.bottom > 0, deferred: e.dataset.deferred ?? null, cells: e.querySelectorAll('.hm-cell').length };
    });
    assert.deepEqual(onScreen, { inView: true, deferred: null, cells: 2500 });
    await tabTo(page, `${SIN} .heatmap .table-toggle`);
    await page.keyboard.press('Enter');
    await page.waitForSelector(`${SIN} .heatmap .table-toggle[aria-expanded="true"]`);
    checkSimilarity(await tableRows(page, `${SIN} .heatmap table.data-table`), labels, d, 'trained-size table, after the switches');
    assert.deepEqual(problems.console, []);
  } finally {
    await context.close();
  }
});

test('exercise 6 at 390×844 (en): small at load; printing draws every heatmap', { timeout: T(180000) }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 390, height: 844 } });
  try {
    await gotoReady(page, urlFor(lab, 'http', { ex: 'wall-1024', lang: 'en' }));
    const atLoad = await count(page);
    assert.ok(atLoad < 3000, `exercise 6 has ${atLoad} elements at load`);
    assert.equal(await page.locator('[data-deferred]').count(), 2);
    // Before printing (the print dialog's own event) every heatmap is drawn.
    await page.evaluate(() => window.dispatchEvent(new Event('beforeprint')));
    assert.equal(await page.locator('[data-deferred]').count(), 0);
    assert.equal(await page.locator('.wall-table .table-views .hm-cell').count(), 2 * 2500);
    assert.ok((await count(page)) >= atLoad + 2 * 2601);
    assert.deepEqual(problems.console, []);
  } finally {
    await context.close();
  }
});
