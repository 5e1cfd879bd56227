// Reordering the tokens by keyboard and by drag changes the outputs exactly as
// the core (loaded in Node from the same dist/poslab.js) says.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLab, openPage, urlFor, gotoReady, settled, nodeCore, tableNumbers, round3, nextFrames } from './helpers.mjs';

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

// Tab from the top of the page until a token chip has the focus; returns the
// number of presses. A person's way in: no page.focus(), no dispatchEvent.
async function tabToChips(page, limit = 80) {
  for (let n = 1; n <= limit; n++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(() => document.activeElement?.matches('[data-widget="chips"] .chip'))) return n;
  }
  throw new Error(`no token chip after ${limit} presses of Tab`);
}
const focused = (page) => page.evaluate(() => ({ token: document.activeElement.dataset.token, pos: Number(document.activeElement.dataset.pos), grabbed: document.activeElement.classList.contains('grabbed') }));
const chipTokens = (page) => page.locator('[data-widget="chips"] .chip').evaluateAll((els) => els.map((e) => e.dataset.token));
const liveText = (page) => page.locator('[data-widget="chips"] .sr-only[aria-live]').textContent();

test('keyboard: Tab into the chips, grab with Space, move with arrows, drop; 犬が猫を追いかけた becomes 猫が犬を追いかけた; outputs match the core', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'reorder' }));
  const tokens = core.tokenize('犬が猫を追いかけた');
  assert.deepEqual(tokens, ['犬', 'が', '猫', 'を', '追いかけ', 'た']);
  assert.deepEqual(await chipTokens(page), tokens);
  // One chip in the Tab order: Tab lands on the first chip, and the next Tab leaves the list.
  await tabToChips(page);
  assert.deepEqual(await focused(page), { token: '犬', pos: 0, grabbed: false });
  assert.equal(await page.locator('[data-widget="chips"] .chip[tabindex="0"]').count(), 1);
  // Arrows move the focus only: 猫 is reachable and nothing moved.
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.deepEqual(await focused(page), { token: '猫', pos: 2, grabbed: false });
  assert.deepEqual(await chipTokens(page), tokens);
  // Space grabs 猫; ← ← carries it to the front; Space drops it.
  await page.keyboard.press('Space');
  assert.deepEqual(await focused(page), { token: '猫', pos: 2, grabbed: true });
  assert.equal(await liveText(page), '猫 をつかみました（6 個中 3 番目）。← → で動かし、Space か Enter で置きます。Esc で元に戻します。');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await liveText(page), '猫 を 6 個中 2 番目に動かしました。');
  await page.keyboard.press('ArrowLeft');
  assert.deepEqual(await focused(page), { token: '猫', pos: 0, grabbed: true });
  await page.keyboard.press('Space');
  assert.deepEqual(await focused(page), { token: '猫', pos: 0, grabbed: false });
  assert.equal(await liveText(page), '猫 を 6 個中 1 番目に置きました。');
  assert.deepEqual(await chipTokens(page), ['猫', '犬', 'が', 'を', '追いかけ', 'た']);
  // Escape cancels a grab: を grabbed, moved to the end, put back.
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  assert.deepEqual(await focused(page), { token: 'を', pos: 3, grabbed: false });
  await page.keyboard.press('Enter');
  await page.keyboard.press('End');
  assert.deepEqual(await chipTokens(page), ['猫', '犬', 'が', '追いかけ', 'た', 'を']);
  await page.keyboard.press('Escape');
  assert.deepEqual(await chipTokens(page), ['猫', '犬', 'が', 'を', '追いかけ', 'た']);
  assert.deepEqual(await focused(page), { token: 'を', pos: 3, grabbed: false });
  assert.equal(await liveText(page), '取り消しました。を は 6 個中 4 番目に戻りました。');
  // 犬 (now second) one place right with Enter … Enter: 猫 が 犬 を 追いかけ た.
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  assert.deepEqual(await focused(page), { token: '犬', pos: 1, grabbed: false });
  await page.keyboard.press('Enter');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  assert.deepEqual(await focused(page), { token: '犬', pos: 2, grabbed: false });
  const expectedOrder = [2, 1, 0, 3, 4, 5];
  const sentence = expectedOrder.map((i) => tokens[i]).join('');
  assert.equal(sentence, '猫が犬を追いかけた');
  await waitForOrderB(page, sentence);
  assert.match(page.url(), /order=2%2C1%2C0%2C3%2C4%2C5|order=2,1,0,3,4,5/);
  // The focused chip is visibly marked (an outline), the grabbed one too (its own style).
  assert.notEqual(await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle), 'none');

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
  // Tab leaves the list in one press (one chip in the Tab order).
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.matches('.chip')), false);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('keyboard in English: the steps are announced in English', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'file');
  await gotoReady(page, urlFor(lab, 'file', { ex: 'reorder', lang: 'en' }));
  await tabToChips(page);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Space');
  assert.equal(await liveText(page), 'Grabbed dog, position 2 of 6. Move it with ← →; drop it with Space or Enter; Esc puts it back.');
  // The chip's name is its token and its state; its place, 2 of 6, is the option's position in the set.
  const held = page.getByRole('option', { name: 'dog (grabbed)', exact: true });
  assert.equal(await held.evaluate((el) => el === document.activeElement), true);
  assert.deepEqual([await held.getAttribute('aria-posinset'), await held.getAttribute('aria-setsize'), await held.getAttribute('aria-selected')], ['2', '6', 'true']);
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  assert.equal(await liveText(page), 'Moved dog to position 5 of 6.');
  await page.keyboard.press('Enter');
  assert.equal(await liveText(page), 'Dropped dog at position 5 of 6.');
  // cat to the second place: cat is now at position 4 (0-based 3).
  await page.keyboard.press('ArrowLeft');
  assert.equal((await focused(page)).token, 'cat');
  await page.keyboard.press('Space');
  for (let i = 0; i < 2; i++) await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('Space');
  assert.deepEqual(await chipTokens(page), ['the', 'cat', 'chased', 'the', 'dog', '.']);
  await page.waitForSelector('[data-question="make-target"].done');
  assert.match(await page.locator('.target-line').textContent(), /Goal reached/);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('typing the goal sentence does not solve the task; reordering does', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'reorder' }));
  await page.fill('#ctl-sentence', '猫が犬を追いかけた');
  await page.locator('.sentence-control button[type="submit"]').click();
  await waitForOrderB(page, '猫が犬を追いかけた');
  await page.waitForFunction(() => document.querySelector('[data-widget="chips"] .chip')?.dataset.token === '猫');
  // Every reply the new sentence asked for (a wrong confirmation by the core would be one) has landed.
  await settled(page);
  assert.equal(await page.locator('[data-question="make-target"].done').count(), 0, 'the typed goal sentence solved the task');
  assert.equal(await page.locator('[data-question="make-target"] .task-status.reached').count(), 0);
  assert.match(await page.locator('.target-line').textContent(), /入力しただけでは達成になりません/);
  // Back to the exercise's sentence, then a reordering by keyboard solves it.
  await page.fill('#ctl-sentence', '犬が猫を追いかけた');
  await page.locator('.sentence-control button[type="submit"]').click();
  await page.waitForFunction(() => document.querySelector('[data-widget="chips"] .chip')?.dataset.token === '犬');
  await tabToChips(page);
  await page.keyboard.press('Space');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Space');  // が 猫 犬 を …
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('Space');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('Space');  // 猫 が 犬 を …
  assert.deepEqual(await chipTokens(page), ['猫', 'が', '犬', 'を', '追いかけ', 'た']);
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
  // A person drags again once the chips have slid into place: the drop target
  // is where the chip is drawn, not where it is going.
  await settled(page);
  // A few frames for the slides to start (an empty list of animations before they do is not "slid into place").
  await nextFrames(page, 3);
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'));
  await page.dragAndDrop(chip(2), chip(4));
  const order = [0, 4, 2, 3, 1, 5];
  await waitForOrderB(page, 'The cat chased the dog.');
  await settled(page);
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
  await tabToChips(page);
  await page.keyboard.press('Space');
  await page.keyboard.press('End');
  await page.keyboard.press('Space');
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
  await page.locator('#ctl-d').press('Tab');  // a change is committed when the field is left
  await page.waitForSelector('[data-widget="out"] .core-error');
  assert.match(await page.locator('[data-widget="out"] .core-error').innerText(), /偶数/);
  assert.equal(await page.locator('[data-widget="out"] .core-error code').count(), 0, 'no English core message on a Japanese page');
  await page.fill('#ctl-d', '8');
  await page.locator('#ctl-d').press('Tab');  // a change is committed when the field is left
  // D = 8 redrawn: the odd-D error is gone (else it would still be there to "say why" below).
  await page.waitForFunction(() => !document.querySelector('[data-widget="out"] .core-error') && !!document.querySelector('[data-widget="out"] table'));
  await settled(page);
  await page.fill('#ctl-sentence', '   ');
  await page.click('.sentence-control button');
  await page.waitForSelector('[data-widget="chips"] .core-error');
  await settled(page);
  assert.match(await page.locator('[data-widget="chips"] .core-error').innerText(), /文が空です/);
  assert.equal(await page.locator('[data-widget="out"] .muted').count() + (await page.locator('[data-widget="out"] .core-error').count()) > 0, true, 'the outputs panel says why it is empty');
  // Too long: more tokens than the core takes (its limit, from the core); each 。 is a token.
  const limit = core.limits.maxTokens;
  await page.fill('#ctl-sentence', '。'.repeat(limit + 1));
  await page.click('.sentence-control button');
  await page.waitForFunction(() => /長すぎ/.test(document.querySelector('[data-widget="chips"] .core-error')?.textContent ?? ''));
  assert.match(await page.locator('[data-widget="chips"] .core-error').innerText(), new RegExp(`${limit} 個まで`));
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('a keyboard in a narrow window: the chips\' key help shows once Tab reaches them', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 390, height: 844 } });
  await gotoReady(page, urlFor(lab, 'http', { ex: 'reorder', lang: 'en' }));
  const keys = page.locator('[data-widget="chips"] .help-keys');
  assert.ok(!(await keys.isVisible()), 'before any key: the short touch help');
  await tabToChips(page);
  await page.waitForFunction(() => getComputedStyle(document.querySelector('[data-widget="chips"] .help-keys')).display !== 'none');
  assert.ok(await keys.isVisible());
  assert.ok(!(await page.locator('[data-widget="chips"] .help-touch').isVisible()));
  // It names the keys that work (Space to grab, ← → to move).
  assert.match(await keys.textContent(), /Space/);
  assert.match(await keys.textContent(), /← →/);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('touch: tap a chip, then tap the move buttons to reorder it', { timeout: 60000 }, async () => {
  // A phone: touch events, no mouse (openPage's watchers, by hand, on a touch context).
  const context = await lab.browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  const page = await context.newPage();
  const problems = { console: [] };
  page.on('console', (m) => m.type() === 'error' && problems.console.push(m.text()));
  page.on('pageerror', (e) => problems.console.push(e.message));
  await gotoReady(page, urlFor(lab, 'http', { ex: 'reorder' }));
  // The help speaks of tapping, not of keys.
  assert.ok(await page.locator('[data-widget="chips"] .help-touch').isVisible());
  assert.ok(!(await page.locator('[data-widget="chips"] .help-keys').isVisible()));
  await page.tap(chip(5));
  assert.ok(!(await page.locator('[data-widget="chips"] .help-keys').isVisible()), 'a tap is no key: the touch help stays');
  assert.equal(await page.getAttribute(chip(5), 'aria-selected'), 'true');
  await page.tap('[data-widget="chips"] [data-move="left"]');
  await page.tap('[data-widget="chips"] [data-move="left"]');
  const order = [0, 1, 2, 5, 3, 4];
  const tokens = core.tokenize('犬が猫を追いかけた');
  await waitForOrderB(page, order.map((i) => tokens[i]).join(''));
  const check = core.permutationCheck({ text: '犬が猫を追いかけた', pe: 'none', dModel: 8, seed: 0, permutation: order });
  assert.deepEqual(await tableNumbers(page.locator(outputs('b')).first()), rowsOf(check.permuted.output));
  assert.deepEqual(problems.console, []);
  await context.close();
});
