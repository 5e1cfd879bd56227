// Linked highlighting: hovering or focusing a token anywhere on an exercise
// (its chip, a line's end, a matrix's row header or cell, an output row)
// highlights the same token in every view: its chip, its lines, its row and
// column in every matrix (both attention heatmaps, the aligned difference,
// P), its output rows. By keyboard from the top of the page (Tab and keys
// only) and by mouse; leaving clears it everywhere.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLab, openPage, gotoReady, urlFor, axeViolations, openGate } from './helpers.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

async function tabUntil(page, predicate, max = 150) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(predicate)) return;
  }
  throw new Error('never reached by Tab');
}

// What is highlighted in each view, as the tokens' names.
const state = (page) =>
  page.evaluate(() => {
    const txt = (sel) => [...document.querySelectorAll(sel)].map((e) => e.textContent.trim());
    const tok = (sel) => [...new Set([...document.querySelectorAll(sel)].map((e) => e.dataset.hlToken ?? e.dataset.hlRow ?? e.dataset.hlCol))];
    const heatmaps = [...document.querySelectorAll('.w-attention .heatmap-grid')].map((g) => ({
      rows: [...g.querySelectorAll('.hm-row-label.hl')].map((e) => e.textContent.replace(/^\d+ /, '')),
      cols: [...g.querySelectorAll('.hm-col-label.hl')].map((e) => e.textContent.replace(/^\d+ /, '')),
      rowCells: g.querySelectorAll('.hm-cell.hl-row').length,
      colCells: g.querySelectorAll('.hm-cell.hl-col').length,
      cells: g.querySelectorAll('.hm-cell').length,
    }));
    return {
      active: document.querySelector('.exercise').getAttribute('data-hl-active'),
      chips: txt('.chip.hl .chip-text'),
      queryLabels: txt('.w-attention-lines .line-label[role="button"].hl').map((x) => x.replace(/ \d+$/, '')),
      keyLabels: txt('.w-attention-lines .line-label:not([role]).hl').map((x) => x.replace(/^\d+ /, '')),
      litLines: tok('.w-attention-lines path.att-line.lit'),
      lines: document.querySelectorAll('.w-attention-lines path.att-line').length,
      litCount: document.querySelectorAll('.w-attention-lines path.att-line.lit').length,
      diffRows: txt('.diff-row.hl'),
      diffCols: txt('.diff-col.hl'),
      diffCells: document.querySelectorAll('.diff-cell.hl-row').length,
      pRows: txt('.p-row.hl').map((x) => x.replace(/^\d+ /, '')),
      pCols: txt('.p-col.hl'),
      outRows: [...document.querySelectorAll('.w-outputs tr.hl-row th')].map((e) => e.textContent.replace(/^\d+\. /, '')),
      anyHl: document.querySelectorAll('.hl, .hl-row, .hl-col, .lit').length,
      heatmaps,
    };
  });

test('exercise 2, keyboard only: Tab to a chip, arrows, Tab to a heatmap row header: the same token lit in every view; leaving clears it', { timeout: 120000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
  await gotoReady(page, urlFor(lab, 'http', { ex: 'formula', extra: '&order=2,1,0,3,4,5' }));
  await page.mouse.click(1, 1);
  await tabUntil(page, () => document.activeElement?.classList.contains('chip'));
  // The focused chip is the first in the learner's order: 猫 (token 2 of 犬が猫を追いかけた).
  let s = await state(page);
  assert.equal(s.active, '2');
  assert.deepEqual(s.chips, ['猫']);
  assert.deepEqual(s.queryLabels, ['猫']);
  assert.deepEqual(s.keyLabels, ['猫']);
  assert.deepEqual(s.litLines, ['2'], 'only 猫\'s lines are lit');
  assert.ok(s.litCount > 0 && s.litCount < s.lines);
  assert.deepEqual(s.diffRows, ['猫']);
  assert.deepEqual(s.diffCols, ['猫']);
  assert.equal(s.diffCells, 6, 'one diff row of 6 cells');
  assert.deepEqual(s.pRows, ['猫']);
  assert.deepEqual(s.pCols, ['猫']);
  assert.equal(s.heatmaps.length, 2);
  for (const hm of s.heatmaps) assert.deepEqual(hm, { rows: ['猫'], cols: ['猫'], rowCells: 6, colCells: 6, cells: 36 });
  // → moves the focus to the next chip (が, token 1): the highlight follows.
  await page.keyboard.press('ArrowRight');
  s = await state(page);
  assert.equal(s.active, '1');
  assert.deepEqual(s.chips, ['が']);
  assert.deepEqual(s.litLines, ['1']);
  for (const hm of s.heatmaps) assert.deepEqual(hm.rows, ['が']);
  // On to the row headers of Attention(PX): its third row is 犬 (token 0).
  await tabUntil(page, () => document.activeElement?.matches('.w-attention .side-by-side > :nth-child(2) .hm-row-label'));
  for (let i = 0; i < 2; i++) await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.textContent), '3 犬');
  s = await state(page);
  assert.equal(s.active, '0');
  assert.deepEqual(s.chips, ['犬']);
  assert.deepEqual(s.queryLabels, ['犬']);
  assert.deepEqual(s.litLines, ['0']);
  assert.deepEqual(s.diffRows, ['犬']);
  assert.deepEqual(s.pRows, ['犬']);
  // Attention(X) has 犬 in row 1, Attention(PX) in row 3: both lit.
  for (const hm of s.heatmaps) assert.deepEqual(hm, { rows: ['犬'], cols: ['犬'], rowCells: 6, colCells: 6, cells: 36 });
  // Tab past the last row header: the highlight is gone everywhere.
  await tabUntil(page, () => !document.activeElement?.closest('[data-hl-token]'));
  s = await state(page);
  assert.equal(s.active, null);
  assert.equal(s.anyHl, 0);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('exercise 4, mouse: hovering an output row header or a line end lights the token\'s chip, both output rows and its lines; moving away clears', { timeout: 90000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
  await gotoReady(page, urlFor(lab, 'http', { ex: 'add-position', lang: 'en', extra: '&order=1,0,2,3,4,5' }));
  const tokens = await page.locator('.chip .chip-text').allTextContents();
  // Panel B's first row is token 1 in the learner's order.
  await page.locator('.w-outputs [data-order="b"] tbody tr').first().locator('th').hover();
  let s = await state(page);
  assert.equal(s.active, '1');
  assert.deepEqual(s.chips, [tokens[0]], 'the chip at position 1 is token 1');
  assert.deepEqual(s.outRows, [tokens[0], tokens[0]], 'its row in both orders\' tables');
  assert.deepEqual(s.litLines, ['1']);
  assert.deepEqual(s.diffRows, [tokens[0]]);
  // A key-side label: the same token everywhere.
  await page.locator('.w-attention-lines .line-label:not([role])').nth(2).hover();
  s = await state(page);
  assert.equal(s.active, '2');
  assert.deepEqual(s.chips, [tokens[2]]);
  assert.deepEqual(s.keyLabels, [tokens[2]]);
  assert.deepEqual(s.outRows, [tokens[2], tokens[2]]);
  await page.mouse.move(2, 2);
  s = await state(page);
  assert.equal(s.active, null);
  assert.equal(s.anyHl, 0);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('exercise 5, mouse on a heatmap cell: its row\'s token lit in the matrix, the lines and the swap picture', { timeout: 90000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
  await gotoReady(page, urlFor(lab, 'http', { ex: 'causal-mask', extra: '&mask=1' }));
  await openGate(page, 'sw');
  await page.waitForSelector('.swap-label');
  // Row 4 (を), column 2 (が).
  await page.locator('.w-attention .hm-cell').nth(3 * 6 + 1).hover();
  const s = await state(page);
  assert.equal(s.active, '3');
  assert.deepEqual(s.queryLabels, ['を']);
  assert.deepEqual(s.litLines, ['3']);
  assert.deepEqual(s.heatmaps, [{ rows: ['を'], cols: ['を'], rowCells: 6, colCells: 6, cells: 36 }]);
  assert.deepEqual(await page.locator('.swap-label.hl').allTextContents(), ['を']);
  assert.deepEqual(problems.console, []);
  await context.close();
});

// Exercise 4's encoding strip (issue 24): at 1280×800, left of the lines, the
// position encoding added at each place, whole on the first screen, linked by
// position with the chips and the lines' labels.
const stripState = (page) =>
  page.evaluate(() => {
    const box = (el) => {
      const r = el.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
    };
    const strip = document.querySelector('.w-attention-lines .pe-strip');
    const rows = [...strip.querySelectorAll('.pe-row')];
    const labels = [...document.querySelectorAll('.w-attention-lines .line-label[role="button"]')];
    return {
      strip: box(strip),
      grid: box(document.querySelector('.w-attention-lines .diff-grid')),
      scheme: strip.dataset.scheme,
      // The heading's size as drawn: its font size times the drawing's scale.
      headingPx: (() => {
        const svg = strip.ownerSVGElement;
        return parseFloat(getComputedStyle(strip.querySelector('.pe-strip-heading')).fontSize) * (svg.getBoundingClientRect().width / svg.viewBox.baseVal.width);
      })(),
      rows: rows.map((g) => ({ pos: g.dataset.hlPos, box: box(g), values: [...g.querySelectorAll('.pe-cell')].map((r) => Number(r.dataset.value)) })),
      labels: labels.map((g) => ({ pos: g.dataset.hlPos, box: box(g.querySelector('text')) })),
      litRows: rows.filter((g) => g.classList.contains('hl-pos')).map((g) => g.dataset.hlPos),
      litChips: [...document.querySelectorAll('.chip.hl-pos')].map((c) => c.dataset.hlPos),
      litLabels: labels.filter((g) => g.classList.contains('hl-pos')).map((g) => g.dataset.hlPos),
      scrollY: window.scrollY,
    };
  });

for (const lang of ['ja', 'en']) {
  test(`exercise 4 (${lang}), 1280×800: the encoding strip whole on the first screen beside the lines, the sinusoidal rows worked out by hand; hover and Tab on a position light its row`, { timeout: 120000 }, async () => {
    const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
    await gotoReady(page, urlFor(lab, 'http', { ex: 'add-position', lang }));
    let s = await stripState(page);
    assert.equal(s.scrollY, 0);
    assert.equal(s.scheme, 'sinusoidal');
    assert.ok(s.headingPx >= 12, `the strip's heading at ${s.headingPx} px`);
    // Whole on the first screen, and the difference grid with it.
    assert.ok(s.strip.top >= 0 && s.strip.bottom <= 800, `strip at ${s.strip.top}–${s.strip.bottom}`);
    assert.ok(s.grid.bottom <= 800, `grid ends at ${s.grid.bottom}`);
    // Beside the lines: left of every query label, each row level with its position's label.
    assert.equal(s.rows.length, 6);
    for (const [p, row] of s.rows.entries()) {
      const label = s.labels.find((l) => l.pos === String(p));
      assert.ok(row.box.right < label.box.left, `row ${p} left of its label`);
      const mid = (b) => (b.top + b.bottom) / 2;
      assert.ok(Math.abs(mid(row.box) - mid(label.box)) < 4, `row ${p} level with its label`);
      // PE(p, 2i) = sin(p / 10000^(2i/8)), PE(p, 2i+1) = cos(…), D = 8.
      const want = Array.from({ length: 8 }, (_, d) => {
        const angle = p / Math.pow(10000, (2 * Math.floor(d / 2)) / 8);
        return d % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
      });
      row.values.forEach((v, d) => assert.ok(Math.abs(v - want[d]) < 1e-5, `PE(${p}, ${d}) = ${v}, want ${want[d]}`));
    }
    assert.deepEqual(s.litRows, []);
    // Mouse: a query label at position 4 lights row 4; the strip's row 2 lights the chip and label at position 2.
    await page.locator('.w-attention-lines .line-label[role="button"][data-hl-pos="4"]').hover();
    s = await stripState(page);
    assert.deepEqual(s.litRows, ['4']);
    assert.deepEqual(s.litChips, ['4']);
    await page.locator('.w-attention-lines .pe-row[data-hl-pos="2"]').hover();
    s = await stripState(page);
    assert.deepEqual(s.litRows, ['2']);
    assert.deepEqual(s.litChips, ['2']);
    assert.deepEqual(s.litLabels, ['2']);
    await page.mouse.move(2, 2);
    assert.deepEqual((await stripState(page)).litRows, []);
    // Keyboard from the top of the page: Tab to the chips (position 0), → to position 1.
    await page.mouse.click(1, 1);
    await tabUntil(page, () => document.activeElement?.classList.contains('chip'));
    s = await stripState(page);
    assert.deepEqual(s.litRows, ['0']);
    await page.keyboard.press('ArrowRight');
    s = await stripState(page);
    assert.deepEqual(s.litRows, ['1']);
    assert.deepEqual(s.litChips, ['1']);
    // On to the lines' query labels: the first is position 0, the next position 1.
    await tabUntil(page, () => document.activeElement?.matches('.w-attention-lines .line-label[role="button"]'));
    assert.deepEqual((await stripState(page)).litRows, ['0']);
    await page.keyboard.press('Tab');
    s = await stripState(page);
    assert.deepEqual(s.litRows, ['1']);
    assert.deepEqual(s.litLabels, ['1']);
    // Still on the first screen: the strip did not scroll away.
    assert.ok(s.strip.top >= 0 && s.strip.bottom <= 800);
    assert.deepEqual(problems.console, []);
    await context.close();
  });
}

test('exercise 4, 1280×800, position information None, reordered: the strip adds nothing (every cell 0) and stays by position while the tokens move', { timeout: 90000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
  await gotoReady(page, urlFor(lab, 'http', { ex: 'add-position', lang: 'en', extra: '&pe=none&order=1,0,2,3,4,5' }));
  const s = await stripState(page);
  assert.equal(s.scheme, 'none');
  assert.equal(s.rows.length, 6);
  for (const row of s.rows) assert.deepEqual(row.values, Array(8).fill(0));
  assert.deepEqual(s.rows.map((r) => r.pos), ['0', '1', '2', '3', '4', '5']);
  // The label at position 0 is token 1 (dog): the row at position 0 is level with it.
  const first = await page.locator('.w-attention-lines .line-label[role="button"][data-hl-pos="0"] text').textContent();
  assert.equal(first, 'dog 1');
  assert.deepEqual(problems.console, []);
  await context.close();
});

// The difference grid's heading in Japanese (issue 24): it says what the English
// says (each token pair's difference) and never breaks inside a word such as 並べ替え後.
test('exercises 1, 2 and 4 (ja), 1280×800 and 390×844: the difference grid\'s heading names the token pairs and keeps 並べ替え後 and 並べ替え前 on one line each', { timeout: 180000 }, async () => {
  for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    const { page, context, problems } = await openPage(lab, 'http', { viewport });
    for (const ex of ['reorder', 'formula', 'add-position']) {
      await gotoReady(page, urlFor(lab, 'http', { ex }));
      const { text, words } = await page.evaluate(() => {
        const title = document.querySelector('.lines-diff-title');
        const node = title.firstChild;
        // The lines each word's characters are laid out on (one rectangle's top per character).
        const linesOf = (word) => {
          const at = node.textContent.indexOf(word);
          const tops = new Set();
          for (let i = at; i < at + word.length; i++) {
            const r = document.createRange();
            r.setStart(node, i);
            r.setEnd(node, i + 1);
            tops.add(Math.round(r.getBoundingClientRect().top));
          }
          return tops.size;
        };
        return { text: title.textContent, words: Object.fromEntries(['並べ替え後', '並べ替え前', 'トークン対ごと'].map((w) => [w, linesOf(w)])) };
      });
      assert.match(text, /^トークン対ごとの重みの差/, `${ex}: ${text}`);
      assert.doesNotMatch(text, /同じトークンどうし/);
      assert.deepEqual(words, { 並べ替え後: 1, 並べ替え前: 1, トークン対ごと: 1 }, `${ex} at ${viewport.width}: ${text}`);
    }
    assert.deepEqual(problems.console, []);
    await context.close();
  }
});
