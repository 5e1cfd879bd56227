// The lab's controls update the widgets in place (issue #12, every control
// answers within 100 ms): switching position information on and off, the
// causal mask, and ALiBi's length slider keep the elements on the page (the
// same nodes before and after), show the new numbers (checked against the
// core loaded in Node from the same dist/poslab.js, and against the
// sinusoidal formula and ALiBi's softmax written out here), and leave the
// keyboard focus on the control that was pressed. Every control is reached
// with Tab from the top of the page and changed with keys.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLab, openPage, urlFor, gotoReady, nodeCore, tableNumbers, round3, openGate, settled } from './helpers.mjs';

let lab;
let core;
before(async () => {
  lab = await startLab();
  core = await nodeCore();
});
after(async () => {
  await lab?.close();
});

const SENTENCE = '犬が猫を追いかけた';
const ORDER = [1, 2, 3, 4, 5, 0];

async function tabTo(page, id, limit = 200) {
  await page.mouse.click(1, 1);
  for (let n = 1; n <= limit; n++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((x) => document.activeElement?.id === x, id)) return n;
  }
  throw new Error(`#${id} not reached after ${limit} presses of Tab`);
}

// Remembers the elements under these selectors; kept() says, per selector,
// whether that very element is still on the page where it was.
const remember = (page, selectors) =>
  page.evaluate((sels) => {
    window.__kept = Object.fromEntries(Object.entries(sels).map(([k, s]) => [k, { el: document.querySelector(s), s }]));
    return Object.fromEntries(Object.entries(window.__kept).map(([k, v]) => [k, !!v.el]));
  }, selectors);
const kept = (page) => page.evaluate(() => Object.fromEntries(Object.entries(window.__kept).map(([k, v]) => [k, v.el.isConnected && document.querySelector(v.s) === v.el])));

function rowsOf(matrix) {
  const [S, D] = matrix.shape;
  return Array.from({ length: S }, (_, r) => Array.from(matrix.data.subarray(r * D, (r + 1) * D), round3));
}

// PE(pos, 2i) = sin(pos / 10000^{2i/D}), PE(pos, 2i+1) = cos(…), written out here.
const sinusoid = (pos, D) => Array.from({ length: D }, (_, d) => (d % 2 ? Math.cos : Math.sin)(pos / 10000 ** ((d - (d % 2)) / D)));

const readout = '[data-widget="out"] [data-readout="maxAbsDiff"] strong';

test('exercise 4: position information none ⇄ sinusoidal by keyboard updates the widgets in place with the core\'s numbers; the select keeps the focus', { timeout: 120000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'add-position', extra: `&pe=none&order=${ORDER.join(',')}` }));
  await page.waitForFunction((s) => Number(document.querySelector(s)?.dataset.value) >= 0, readout);
  const before0 = await remember(page, {
    outputCell: '[data-widget="out"] [data-order="b"] tbody td',
    outputReadout: '[data-widget="out"] [data-readout="maxAbsDiff"]',
    diffCell: '[data-widget="lines"] .diff-cell',
    lineLabel: '[data-widget="lines"] .line-label',
    headButton: '[data-widget="lines"] .head-button',
    linesTableCell: '[data-widget="lines"] .lines-table td',
    sumCell: '[data-widget="the-rows"] .sum-cell',
    chip: '[data-widget="chips"] .chip',
    clock: '[data-widget="clocks"] .clock',
    combineCell: '[data-widget="combine"] .hm-cell',
  });
  assert.ok(Object.values(before0).every(Boolean), JSON.stringify(before0));
  // Without position information the two orders agree: every difference cell grey.
  assert.ok(Number(await page.locator(readout).getAttribute('data-value')) < 1e-4);

  await tabTo(page, 'ctl-pe');
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction((s) => Number(document.querySelector(s)?.dataset.value) > 1e-3, readout);
  // The readout is one widget of the redraw: every other one's has landed too.
  await settled(page);
  await page.waitForFunction(() => /pe=sinusoidal/.test(location.hash));
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'ctl-pe', 'the select keeps the focus');
  assert.deepEqual(await kept(page), Object.fromEntries(Object.keys(before0).map((k) => [k, true])), 'the same elements, updated');

  // The numbers: the core in Node, and the sinusoidal formula.
  let check = core.permutationCheck({ text: SENTENCE, pe: 'sinusoidal', dModel: 8, seed: 0, permutation: ORDER });
  assert.equal(Number(await page.locator(readout).getAttribute('data-value')), check.maxAbsDiff);
  assert.deepEqual(await tableNumbers(page.locator('[data-widget="out"] [data-order="b"] table.vec-table')), rowsOf(check.permuted.output));
  assert.deepEqual(await tableNumbers(page.locator('[data-widget="out"] [data-order="a"] table.vec-table')), rowsOf(check.original.output));
  const diffs = await page.locator('[data-widget="lines"] .diff-cell').evaluateAll((els) => els.map((e) => Number(e.dataset.diff)));
  assert.ok(Math.max(...diffs.map(Math.abs)) > 1e-3, 'the aligned difference lights up');
  // "the" at 3: its position part is PE(3) (the second strip of its stack).
  const pe3 = await page.locator('[data-widget="the-rows"] [data-row="3"] .sum-strip').nth(1).locator('.sum-cell').evaluateAll((els) => els.map((e) => Number(e.dataset.value)));
  sinusoid(3, 8).forEach((v, d) => assert.ok(Math.abs(pe3[d] - v) < 1e-5, `PE(3, ${d}) = ${pe3[d]}, formula ${v}`));

  // And back: the same elements, the orders agree again.
  await page.keyboard.press('ArrowUp');
  await page.waitForFunction((s) => Number(document.querySelector(s)?.dataset.value) < 1e-4, readout);
  await settled(page);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'ctl-pe');
  assert.deepEqual(await kept(page), Object.fromEntries(Object.keys(before0).map((k) => [k, true])));
  check = core.permutationCheck({ text: SENTENCE, pe: 'none', dModel: 8, seed: 0, permutation: ORDER });
  assert.deepEqual(await tableNumbers(page.locator('[data-widget="out"] [data-order="b"] table.vec-table')), rowsOf(check.permuted.output));
  const zero = await page.locator('[data-widget="the-rows"] [data-row="3"] .sum-strip').nth(1).locator('.sum-cell').evaluateAll((els) => els.map((e) => Number(e.dataset.value)));
  assert.deepEqual(zero, new Array(8).fill(0), 'no position part without position information');
  assert.ok((await page.locator('[data-widget="lines"] .diff-cell').evaluateAll((els) => els.every((e) => e.classList.contains('zero')))), 'all grey again');
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('exercise 5: the causal mask by keyboard (Space) greys the same heatmap cells in place with the core\'s weights; a swap tried stays; the checkbox keeps the focus', { timeout: 120000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'causal-mask', extra: '&mask=false' }));
  await openGate(page, 'sw');
  await page.waitForSelector('[data-widget="att"] .hm-cell');
  await page.locator('[data-widget="sw"] .swap-buttons button').first().click();
  await page.waitForSelector('[data-widget="sw"] .swap-results li');
  // The heatmap's data table, opened by the reader, stays open through the redraw.
  await page.locator('[data-widget="att"] .heatmap .table-toggle').first().click();
  assert.equal(await page.locator('[data-widget="att"] table.data-table').first().isVisible(), true);
  const before0 = await remember(page, { cell: '[data-widget="att"] .hm-cell', rowLabel: '[data-widget="att"] .hm-row-label', lineLabel: '[data-widget="lines"] .line-label', swapTried: '[data-widget="sw"] .swap-results li' });
  assert.ok(Object.values(before0).every(Boolean), JSON.stringify(before0));
  assert.equal(await page.locator('[data-widget="att"] .hm-cell.masked').count(), 0);

  await tabTo(page, 'ctl-mask');
  await page.keyboard.press('Space');
  const S = core.tokenize(SENTENCE).length;
  await page.waitForFunction((n) => document.querySelectorAll('[data-widget="att"] .hm-cell.masked').length === n, (S * (S - 1)) / 2);
  await settled(page);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'ctl-mask', 'the checkbox keeps the focus');
  assert.equal(await page.locator('[data-widget="att"] table.data-table').first().isVisible(), true, 'the open table stays open');
  assert.equal(await page.locator('[data-widget="att"] .heatmap .table-toggle').first().getAttribute('aria-expanded'), 'true');
  assert.deepEqual(await kept(page), { cell: true, rowLabel: true, lineLabel: true, swapTried: true });
  // The weights the heatmap's table gives are the core's (causal), every masked one 0.
  const r = core.forward({ text: SENTENCE, pe: 'none', causal: true, dModel: 8, seed: 0 });
  const shown = await page.locator('[data-widget="att"] table.data-table').first().evaluate((t) => [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.textContent))));
  for (let i = 0; i < S; i++) for (let j = 0; j < S; j++) assert.ok(Math.abs(shown[i][j] - r.attention.data[i * S + j]) <= 0.0005, `(${i}, ${j})`);
  for (let i = 0; i < S; i++) for (let j = i + 1; j < S; j++) assert.equal(shown[i][j], 0);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('exercise 8: the ALiBi length slider (→) redraws only the distance part, in place, with softmax(−m_h·d); the slider keeps the focus', { timeout: 120000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'alibi' }));
  await openGate(page, 'al');
  await page.waitForSelector('.alibi-distance');
  const before0 = await remember(page, { distance: '.alibi-distance', plot: '.alibi-distance .lineplot-figure', plotToggle: '.alibi-distance .lineplot-figure .table-toggle', biasFigure: '.alibi-distance .heatmap', sentenceCell: '[data-widget="al"] .heads-grid .hm-cell' });
  assert.ok(Object.values(before0).every(Boolean), JSON.stringify(before0));
  // The sentence's part is not touched at all.
  await page.evaluate(() => {
    window.__sentenceChanges = 0;
    const body = document.querySelector('[data-widget="al"] .heads-grid').parentElement;
    new MutationObserver((rs) => (window.__sentenceChanges += rs.length)).observe(body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
  await tabTo(page, 'al-length');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.querySelector('.alibi-distance')?.textContent.includes('L = 25'));
  // Every redraw the move started has landed before "the sentence's part was not touched" is read.
  await settled(page);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'al-length');
  assert.deepEqual(await kept(page), { distance: true, plot: true, plotToggle: true, biasFigure: true, sentenceCell: true });
  assert.equal(await page.evaluate(() => window.__sentenceChanges), 0);
  // The last token's weight d back, per head: e^{−m_h·d} / Σ e^{−m_h·d'}, m_h = 2^{−8h/H}, H = 4.
  const rows = await page.locator('.alibi-distance .lineplot-figure table').first().evaluate((t) => [...t.querySelectorAll('tbody tr')].map((tr) => ({ d: Number(tr.querySelector('th').textContent), ys: [...tr.querySelectorAll('td')].map((td) => Number(td.textContent)) })));
  const L = 25;
  for (const { d, ys } of rows)
    ys.forEach((y, hd) => {
      const m = 2 ** ((-8 * (hd + 1)) / 4);
      const z = Array.from({ length: L }, (_, k) => Math.exp(-m * k)).reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(y - Math.exp(-m * d) / z) <= 0.0006, `head ${hd + 1}, d = ${d}`);
    });
  assert.ok(rows.some((r) => r.d === 24), 'the table reaches d = L − 1');
  assert.deepEqual(problems.console, []);
  await context.close();
});
