// Reordering the tokens by keyboard and by drag changes the outputs exactly as
// the core (loaded in Node from the same dist/poslab.js) says.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLab, openPage, urlFor, gotoReady, nodeCore, tableNumbers, round3 } from './helpers.mjs';

let lab;
let core;
before(async () => {
  lab = await startLab();
  core = await nodeCore();
});
after(async () => {
  await lab?.close();
});

const chip = (pos) => `[data-widget="chips"] .chip[data-pos="${pos}"]`;
const outputs = (order) => `[data-widget="out"] [data-order="${order}"] table.vec-table`;

function rowsOf(matrix) {
  const [S, D] = matrix.shape;
  return Array.from({ length: S }, (_, r) => Array.from(matrix.data.subarray(r * D, (r + 1) * D), round3));
}

// The mean of rows, written out here as a second implementation.
function meanOf(matrix) {
  const [S, D] = matrix.shape;
  const m = new Array(D).fill(0);
  for (let r = 0; r < S; r++) for (let c = 0; c < D; c++) m[c] += matrix.data[r * D + c] / S;
  return m;
}

async function waitForOrderB(page, sentence) {
  await page.waitForFunction((s) => document.querySelector('[data-widget="out"] [data-order="b"] .sentence')?.textContent === s, sentence);
}

test('keyboard: arrow keys reorder 犬が猫を追いかけた into 猫が犬を追いかけた; outputs match the core', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'reorder' }));
  const tokens = core.tokenize('犬が猫を追いかけた');
  assert.deepEqual(await page.locator('[data-widget="chips"] .chip').evaluateAll((els) => els.map((e) => e.dataset.token)), tokens);

  // 犬 two places right, then 猫 one place left: 猫 が 犬 を 追いかけ た.
  await page.focus(chip(0));
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.token), '犬', 'the moved chip keeps focus');
  await page.focus(chip(1));
  await page.keyboard.press('ArrowLeft');
  const expectedOrder = [2, 1, 0, 3, 4, 5];
  const sentence = expectedOrder.map((i) => tokens[i]).join('');
  assert.equal(sentence, '猫が犬を追いかけた');
  await waitForOrderB(page, sentence);
  assert.match(page.url(), /order=2%2C1%2C0%2C3%2C4%2C5|order=2,1,0,3,4,5/);
  assert.match(await page.locator('.sr-only[aria-live]').first().textContent(), /猫/);

  const check = core.permutationCheck({ text: '犬が猫を追いかけた', pe: 'none', dModel: 8, seed: 0, permutation: expectedOrder });
  assert.deepEqual(await tableNumbers(page.locator(outputs('a')).first()), rowsOf(check.original.output));
  assert.deepEqual(await tableNumbers(page.locator(outputs('b')).first()), rowsOf(check.permuted.output));
  // Permutation equivariance, read off the page: each token's row is the same in both orders.
  const a = await tableNumbers(page.locator(outputs('a')).first());
  const b = await tableNumbers(page.locator(outputs('b')).first());
  expectedOrder.forEach((tok, pos) => assert.deepEqual(b[pos], a[tok], `token ${tokens[tok]}`));
  // The sentence vectors: the same in both orders, and the mean of the rows.
  const footRow = (order) => page.locator(`${outputs(order)} tfoot td`).evaluateAll((tds) => tds.map((td) => Number(td.textContent)));
  const meanA = await footRow('a');
  const meanB = await footRow('b');
  assert.equal(meanA.length, 8);
  assert.deepEqual(meanA, meanOf(check.original.output).map(round3));
  assert.deepEqual(meanB, meanA);
  // The readout is the core's max|Attention(PX) − P·Attention(X)|, ≈ 0.
  const shown = Number(await page.locator('[data-widget="out"] [data-readout] strong').getAttribute('data-value'));
  assert.equal(shown, check.maxAbsDiff);
  assert.ok(shown < 1e-5);
  // The task "make it 猫が犬を追いかけた" is done.
  await page.waitForSelector('[data-question="make-target"].done');
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('drag and drop: "The dog chased the cat." into "The cat chased the dog." in English; outputs match the core', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'reorder', lang: 'en' }));
  // The English track leads with who-chases-whom and keeps the guide's sentence as the second example.
  const intro = await page.locator('[data-exercise="reorder"] .text').first().innerText();
  assert.match(intro, /"The dog chased the cat\." and "The cat chased the dog\."/);
  assert.match(await page.locator('[data-exercise="reorder"]').innerText(), /"The keys on the table are lost\."/);
  const text = 'The dog chased the cat.';
  const tokens = core.tokenize(text);
  // cat (4) onto dog's place (1), then dog (now 2) onto the second the's place (4).
  await page.dragAndDrop(chip(4), chip(1));
  await page.waitForFunction(() => document.querySelector('[data-widget="chips"] .chip[data-pos="1"]')?.dataset.token === 'cat');
  await page.dragAndDrop(chip(2), chip(4));
  const order = [0, 4, 2, 3, 1, 5];
  await waitForOrderB(page, 'The cat chased the dog.');
  assert.deepEqual(order.map((i) => tokens[i]), ['the', 'cat', 'chased', 'the', 'dog', '.']);
  const check = core.permutationCheck({ text, pe: 'none', dModel: 8, seed: 0, permutation: order });
  assert.deepEqual(await tableNumbers(page.locator(outputs('b')).first()), rowsOf(check.permuted.output));
  await page.waitForSelector('[data-question="make-target"].done');
  assert.match(await page.locator('.target-line').textContent(), /Goal reached/);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('with sinusoidal position information the orders differ by what the core says', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'file');
  await gotoReady(page, urlFor(lab, 'file', { ex: 'add-position' }));
  await page.focus(chip(0));
  await page.keyboard.press('End');
  const order = [1, 2, 3, 4, 5, 0];
  const tokens = core.tokenize('犬が猫を追いかけた');
  await waitForOrderB(page, order.map((i) => tokens[i]).join(''));
  const check = core.permutationCheck({ text: '犬が猫を追いかけた', pe: 'sinusoidal', dModel: 8, seed: 0, permutation: order });
  const shown = Number(await page.locator('[data-widget="out"] [data-readout] strong').getAttribute('data-value'));
  assert.equal(shown, check.maxAbsDiff);
  assert.ok(shown > 0.001, 'position information breaks the equivariance');
  assert.deepEqual(await tableNumbers(page.locator(outputs('b')).first()), rowsOf(check.permuted.output));
  await page.waitForSelector('[data-question="outputs-differ"].done');
  // "The" at 0 and "the" at 3: one vector before, two after (the guide's point).
  const r = core.forward({ text: 'The keys on the table are lost.', pe: 'sinusoidal', dModel: 8, seed: 0 });
  assert.deepEqual(Array.from(r.input.data.subarray(0, 8)), Array.from(r.input.data.subarray(24, 32)));
  const rows = page.locator('[data-widget="the-rows"] .readout');
  assert.equal(await rows.nth(0).getAttribute('class'), 'readout same');
  assert.equal(await rows.nth(1).getAttribute('class'), 'readout differ');
  // Add vs concatenate: the width attention sees, D and 2D.
  assert.match(await page.locator('[data-combine="add"] .shape').textContent(), /\[6, 8\]/);
  assert.match(await page.locator('[data-combine="concat"] .shape').textContent(), /\[6, 16\]/);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('bad input is shown in place: an empty sentence, an odd D for sinusoidal', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'add-position' }));
  await page.fill('#ctl-d', '7');
  await page.dispatchEvent('#ctl-d', 'change');
  await page.waitForSelector('[data-widget="out"] .core-error');
  assert.match(await page.locator('[data-widget="out"] .core-error').innerText(), /偶数/);
  assert.equal(await page.locator('[data-widget="out"] .core-error code').count(), 0, 'no English core message on a Japanese page');
  await page.fill('#ctl-d', '8');
  await page.dispatchEvent('#ctl-d', 'change');
  await page.fill('#ctl-sentence', '   ');
  await page.click('.sentence-control button');
  await page.waitForSelector('[data-widget="chips"] .core-error');
  assert.match(await page.locator('[data-widget="chips"] .core-error').innerText(), /文が空です/);
  assert.equal(await page.locator('[data-widget="out"] .muted').count() + (await page.locator('[data-widget="out"] .core-error').count()) > 0, true, 'the outputs panel says why it is empty');
  // Too long: more tokens than the core takes (its limit, from the core).
  const limit = core.limits.maxTokens;
  await page.fill('#ctl-sentence', 'あ'.repeat(limit + 1));
  await page.click('.sentence-control button');
  await page.waitForFunction(() => /長すぎ/.test(document.querySelector('[data-widget="chips"] .core-error')?.textContent ?? ''));
  assert.match(await page.locator('[data-widget="chips"] .core-error').innerText(), new RegExp(`${limit} 個まで`));
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('touch: select a chip, then the move buttons reorder it', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 375, height: 740 } });
  await gotoReady(page, urlFor(lab, 'http', { ex: 'reorder' }));
  await page.click(chip(5));
  await page.click('[data-widget="chips"] [data-move="left"]');
  await page.click('[data-widget="chips"] [data-move="left"]');
  const order = [0, 1, 2, 5, 3, 4];
  const tokens = core.tokenize('犬が猫を追いかけた');
  await waitForOrderB(page, order.map((i) => tokens[i]).join(''));
  const check = core.permutationCheck({ text: '犬が猫を追いかけた', pe: 'none', dModel: 8, seed: 0, permutation: order });
  assert.deepEqual(await tableNumbers(page.locator(outputs('b')).first()), rowsOf(check.permuted.output));
  assert.deepEqual(problems.console, []);
  await context.close();
});
