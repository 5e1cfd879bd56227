// Attention as lines: one line per (query, key) pair and head whose weight is
// the core's (recomputed here by the wasm module under Node for the same
// tokens, order and settings), widths in the order of the weights; the
// aligned difference all grey without position information and lit with it;
// focus by Tab lights one token's lines and its row and column, and so does a
// tap on a phone (the lead says so in both languages); with the
// causal mask no line runs to a later token.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLab, openPage, gotoReady, urlFor, nodeCore, axeViolations, watchCsp } from './helpers.mjs';

let lab;
let core;
before(async () => {
  lab = await startLab();
  core = await nodeCore();
});
after(async () => {
  await lab?.close();
});

const lines = (page) =>
  page.locator('.w-attention-lines path.att-line').evaluateAll((ps) =>
    ps.map((p) => ({ head: Number(p.dataset.head), q: Number(p.dataset.query), k: Number(p.dataset.key), weight: Number(p.dataset.weight), width: parseFloat(getComputedStyle(p).strokeWidth), lit: p.classList.contains('lit') })),
  );

async function tabUntil(page, predicate, max = 120) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(predicate)) return;
  }
  throw new Error('never reached by Tab');
}

test('reorder (no position information): a line per pair ≥ 0.01 with the core\'s weight, widths ordered by weight; the aligned difference all grey', { timeout: 90000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  const order = [2, 1, 0, 3, 4, 5];
  await gotoReady(page, urlFor(lab, 'http', { ex: 'reorder', extra: `&order=${order.join(',')}&heads=2` }));
  await page.waitForSelector('.w-attention-lines path.att-line', { state: 'attached' });
  // The same forward under Node, on the tokens the page shows in the learner's order.
  const shownTokens = (await page.locator('.w-attention-lines .line-label[role="button"] text').allTextContents()).map((x) => x.replace(/ \d+$/, ''));
  assert.deepEqual(shownTokens, ['猫', 'が', '犬', 'を', '追いかけ', 'た']);
  const r = core.forward({ tokens: shownTokens, pe: 'none', dModel: 8, seed: 0, heads: 2 });
  const [H, S] = r.attention.shape;
  const got = await lines(page);
  const want = [];
  for (let hd = 0; hd < H; hd++) for (let q = 0; q < S; q++) for (let k = 0; k < S; k++) if (r.attention.data[(hd * S + q) * S + k] >= 0.01) want.push([hd, q, k]);
  assert.equal(got.length, want.length, 'one line per pair with weight ≥ 0.01');
  for (const l of got) assert.ok(Math.abs(l.weight - r.attention.data[(l.head * S + l.q) * S + l.k]) < 1e-6, `line ${l.q}→${l.k}`);
  const byWeight = got.slice().sort((a, b) => a.weight - b.weight);
  for (let i = 1; i < byWeight.length; i++) assert.ok(byWeight[i].width >= byWeight[i - 1].width, 'wider lines for larger weights');
  assert.ok(byWeight.at(-1).width > byWeight[0].width);
  const cells = await page.locator('.w-attention-lines .diff-cell').evaluateAll((cs) => cs.map((c) => ({ zero: c.classList.contains('zero'), diff: Number(c.dataset.diff) })));
  assert.equal(cells.length, S * S);
  assert.ok(cells.every((c) => c.zero && Math.abs(c.diff) < 1e-4), 'no difference without position information');
  assert.match(await page.locator('.w-attention-lines .readout').textContent(), /変わりません/);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('add position (sinusoidal): the aligned difference lights up; Tab to a token lights only its lines, row and column', { timeout: 90000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'add-position', lang: 'en', extra: '&pe=sinusoidal&order=2,1,0,3,4,5' }));
  await page.waitForSelector('.w-attention-lines .diff-cell');
  const nonzero = await page.locator('.w-attention-lines .diff-cell:not(.zero)').count();
  assert.ok(nonzero > 0, 'with position information some pair changes its weight');
  assert.match(await page.locator('.w-attention-lines .readout').textContent(), /changed the weights/);

  // From the top: Tab to the first query label (the token the reorder put first).
  await page.mouse.click(1, 1);
  await tabUntil(page, () => document.activeElement?.classList?.contains('line-label'));
  const all = await lines(page);
  const lit = all.filter((l) => l.lit);
  assert.ok(lit.length > 0);
  assert.ok(lit.every((l) => l.q === 0), 'only the focused query token\'s lines are lit');
  assert.equal(lit.length, all.filter((l) => l.q === 0).length);
  const token = (await page.evaluate(() => document.activeElement.textContent)).replace(/ \d+$/, '');
  assert.ok(token.length > 0);
  assert.deepEqual(await page.locator('.w-attention-lines .diff-row.hl').allTextContents(), [token]);
  assert.deepEqual(await page.locator('.w-attention-lines .diff-col.hl').allTextContents(), [token]);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('causal mask: no line runs to a later token; the head picker shows one head at a time', { timeout: 90000 }, async () => {
  const { page, context } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'causal-mask', extra: '&mask=1&heads=2&d=8' }));
  await page.waitForSelector('.w-attention-lines path.att-line', { state: 'attached' });
  const got = await lines(page);
  assert.ok(got.length > 0);
  assert.ok(got.every((l) => l.k <= l.q), 'every line runs to the same token or an earlier one');
  assert.deepEqual([...new Set(got.map((l) => l.head))].sort(), [0, 1]);
  await page.locator('.w-attention-lines button[data-head="1"]').click();
  // Not vacuous: a redraw that has emptied the lines must not pass for "head 2 only".
  await page.waitForFunction(() => {
    const ls = [...document.querySelectorAll('.w-attention-lines path.att-line')];
    return ls.length > 0 && ls.every((p) => p.dataset.head === '1');
  });
  assert.equal(await page.locator('.w-attention-lines button[data-head="1"]').getAttribute('aria-pressed'), 'true');
  await context.close();
});

// Exercise 5's lines stand alone (no chips above them), so their lead tells
// how to pick a token: the mouse, the keyboard, and on a phone a tap. A tap
// focuses the query label (a button), and the focus is what lights its lines.
test('on a phone (touch): the lead says tap, and tapping a query label lights only its lines; tapping elsewhere clears it', { timeout: 90000 }, async () => {
  const context = await lab.browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  await watchCsp(context);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  for (const [lang, word] of [['en', /\btap\b/], ['ja', /タップ/]]) {
    await gotoReady(page, urlFor(lab, 'http', { ex: 'causal-mask', lang }));
    assert.match(await page.locator('.w-attention-lines .widget-lead').textContent(), word, `${lang}: the lead names the tap`);
  }
  await page.waitForSelector('.w-attention-lines path.att-line', { state: 'attached' });
  const all = await lines(page);
  assert.ok(all.every((l) => !l.lit), 'nothing lit before the tap');
  for (const q of [2, 0]) {
    const label = page.locator('.w-attention-lines .line-label[role="button"]').nth(q);
    await label.scrollIntoViewIfNeeded();
    await label.tap();
    await page.waitForFunction((q) => document.querySelector(`.w-attention-lines path.att-line.lit[data-query="${q}"]`) !== null, q);
    const now = await lines(page);
    const lit = now.filter((l) => l.lit);
    assert.ok(lit.every((l) => l.q === q), `only query ${q + 1}'s lines are lit`);
    assert.equal(lit.length, now.filter((l) => l.q === q).length, `every line of query ${q + 1} is lit`);
    assert.ok(lit.length > 0 && lit.length < now.length);
  }
  // A tap outside the drawing takes the focus away, and the highlight with it.
  await page.locator('.w-attention-lines .widget-lead').tap();
  await page.waitForFunction(() => document.querySelector('.w-attention-lines path.att-line.lit') === null);
  assert.deepEqual(errors, []);
  await context.close();
});
