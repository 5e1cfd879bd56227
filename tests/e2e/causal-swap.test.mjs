// The causal mask (exercise 5): no line runs from a token to a later one
// (the core's masked weights are exactly 0), the masked triangle is greyed
// (S(S−1)/2 cells), and the swap picture: a swap of two tokens before token
// 5 leaves its weights and output as they were, a swap across it changes
// them, said by a readout that agrees with the weights and outputs
// recomputed here by the core under Node for the swapped sentence.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLab, openPage, gotoReady, urlFor, nodeCore, axeViolations, openGate, nextFrames } from './helpers.mjs';

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
const fwd = (tokens) => core.forward({ tokens, pe: 'none', causal: true, dModel: 8, seed: 0 });
const rowOf = (m, i) => Array.from(m.data.slice(i * m.shape.at(-1), (i + 1) * m.shape.at(-1)));
const maxGap = (a, b) => Math.max(...a.map((v, k) => Math.abs(v - b[k])));

test('mask on: no line to a later token, masked weights exactly 0, the greyed triangle has S(S−1)/2 cells', { timeout: 90000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
  await gotoReady(page, urlFor(lab, 'http', { ex: 'causal-mask', extra: '&mask=1' }));
  await openGate(page, 'sw');
  const tokens = core.tokenize(SENTENCE);
  const S = tokens.length;
  const r = fwd(tokens);
  for (let q = 0; q < S; q++) for (let k = q + 1; k < S; k++) assert.equal(r.attention.data[q * S + k], 0, `masked weight ${q}→${k} is exactly 0`);
  const lines = await page.locator('.w-attention-lines path.att-line').evaluateAll((ps) => ps.map((p) => [Number(p.dataset.query), Number(p.dataset.key), Number(p.dataset.weight)]));
  assert.ok(lines.length > 0);
  assert.ok(lines.every(([q, k]) => k <= q), 'every line runs leftward (to the same or an earlier token)');
  const want = [];
  for (let q = 0; q < S; q++) for (let k = 0; k < S; k++) if (r.attention.data[q * S + k] >= 0.01) want.push(`${q}→${k}`);
  assert.deepEqual(lines.map(([q, k]) => `${q}→${k}`).sort(), want.sort());
  // The greyed cells: exactly those above the diagonal.
  const masked = await page.locator('.w-attention .hm-cell').evaluateAll((cs) => cs.map((c, n) => (c.classList.contains('masked') ? n : -1)).filter((n) => n >= 0));
  assert.equal(masked.length, (S * (S - 1)) / 2);
  assert.ok(masked.every((n) => n % S > Math.floor(n / S)), 'only cells with the key after the query');
  assert.match(await page.locator('.masked-key').textContent(), /15 個/);
  // Off: nothing greyed.
  await page.locator('#ctl-mask').click();
  await page.waitForFunction(() => !document.querySelector('.masked-key') && document.querySelectorAll('.w-attention .hm-cell').length === 36);
  assert.equal(await page.locator('.w-attention .hm-cell.masked').count(), 0);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('swap before token 5 leaves its arcs and output; a swap across it changes them; the readout says which, as the core computes', { timeout: 120000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
  await gotoReady(page, urlFor(lab, 'http', { ex: 'causal-mask', extra: '&mask=1' }));
  await openGate(page, 'sw');
  await page.waitForSelector('.swap-arc');
  const tokens = core.tokenize(SENTENCE);
  const r0 = fwd(tokens);
  const i = 4; // token 5, 追いかけ
  await page.evaluate(() => {
    window.__slid = new Set();
    const tick = () => {
      for (const a of document.getAnimations()) if (a.effect?.target?.classList?.contains('swap-label')) window.__slid.add(a.effect.target.dataset.hlToken);
      requestAnimationFrame(tick);
    };
    tick();
  });
  const cases = [
    { button: '1 ↔ 3', a: 0, b: 2, kind: 'before' },
    { button: '4 ↔ 6', a: 3, b: 5, kind: 'across' },
  ];
  for (const c of cases) {
    await page.locator('.swap-buttons button', { hasText: c.button }).click();
    await page.waitForFunction((kind) => document.querySelector('.swap-readout')?.dataset.kind === kind, c.kind);
    // Independently: the swapped sentence through the core; token 5 stays at position 5 in both swaps.
    const swapped = tokens.slice();
    [swapped[c.a], swapped[c.b]] = [swapped[c.b], swapped[c.a]];
    const r1 = fwd(swapped);
    const outGap = maxGap(rowOf(r0.output, i), rowOf(r1.output, i));
    // Token 5's weight on each token, by the token (where it stands after the swap).
    const S = tokens.length;
    const at = (tok) => (tok === c.a ? c.b : tok === c.b ? c.a : tok);
    // The readout is written at once, the arcs after the swap a frame later
    // (widgets/swaps.js): wait for every arc at its token's new place (the
    // arrangement before this swap, or the frame drawn before the slide, has
    // them elsewhere), and for both swapped labels to have slid.
    await page.waitForFunction(
      (want) => {
        const arcs = [...document.querySelectorAll('.swap-arc')];
        return arcs.length === want.length && arcs.every((p) => Number(p.dataset.keyPos) === want[Number(p.dataset.key)]);
      },
      tokens.map((_, tok) => at(tok) + 1),
    );
    await page.waitForFunction((ab) => ab.every((t) => window.__slid.has(t)), [String(c.a), String(c.b)]);
    const wAfter = tokens.map((_, tok) => r1.attention.data[i * S + at(tok)]);
    const wBefore = tokens.map((_, tok) => r0.attention.data[i * S + tok]);
    const changed = outGap > 1e-6;
    assert.equal(changed, c.kind === 'across', `${c.button}: the core says the output ${changed ? 'changed' : 'stayed'}`);
    const readout = page.locator('.swap-readout');
    assert.equal(await readout.getAttribute('data-changed'), String(changed));
    assert.match(await readout.getAttribute('class'), changed ? /differ/ : /same/);
    assert.match(await readout.textContent(), c.kind === 'before' ? /どちらも 5 番目より前/ : /5 番目をまたぐ/);
    const shownGap = Number(/出力の差の最大 ([0-9.]+)/.exec(await readout.textContent())?.[1] ?? '0');
    assert.ok(Math.abs(shownGap - outGap) < 1e-3, `shown output difference ${shownGap} vs ${outGap}`);
    // The arcs after the swap: the core's weights, each at its token's new place, none to a later position.
    const arcs = await page.locator('.swap-arc').evaluateAll((ps) => ps.map((p) => ({ tok: Number(p.dataset.key), pos: Number(p.dataset.keyPos), w: Number(p.dataset.weight) })));
    assert.equal(arcs.length, S);
    for (const arc of arcs) {
      assert.ok(Math.abs(arc.w - wAfter[arc.tok]) < 1e-6, `arc to ${tokens[arc.tok]}`);
      assert.equal(arc.pos, at(arc.tok) + 1);
      if (arc.pos > i + 1) assert.equal(arc.w, 0, 'no arc to a later token');
    }
    if (c.kind === 'before') assert.ok(maxGap(wBefore, wAfter) < 1e-6, 'before: the same weight on every token');
    else assert.ok(maxGap(wBefore, wAfter) > 1e-3, 'across: the weights changed');
    // The two swapped tokens slid.
    const slid = await page.evaluate(() => [...window.__slid].sort());
    assert.ok(slid.includes(String(c.a)) && slid.includes(String(c.b)), `${c.button}: the swapped tokens slide (${slid})`);
    await page.evaluate(() => window.__slid.clear());
  }
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('prefers-reduced-motion: the swap is drawn at once, nothing slides, and the readout is the same', { timeout: 90000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 390, height: 844 }, reducedMotion: 'reduce' });
  await gotoReady(page, urlFor(lab, 'http', { ex: 'causal-mask', lang: 'en', extra: '&mask=1' }));
  await openGate(page, 'sw');
  await page.waitForSelector('.swap-arc');
  await page.evaluate(() => {
    window.__moving = 0;
    const tick = () => {
      window.__moving += document.getAnimations().length;
      requestAnimationFrame(tick);
    };
    tick();
  });
  await page.locator('.swap-buttons button').first().click();
  await page.waitForFunction(() => document.querySelector('.swap-readout')?.dataset.kind === 'before');
  // The swap is drawn (both labels in their new places: 1 ↔ 3), then a few
  // more frames for any transition the swap started to show up.
  await page.waitForFunction(() => [...document.querySelectorAll('.swap-label.swapped')].map((g) => g.dataset.pos).join() === '3,1');
  await nextFrames(page, 3);
  assert.equal(await page.evaluate(() => window.__moving), 0);
  assert.equal(await page.locator('.swap-readout').getAttribute('data-changed'), 'false');
  assert.match(await page.locator('.swap-readout').textContent(), /Positions 1 and 3 are both before token 5/);
  // The swapped tokens are drawn in their new places: the (first) "the" at 3, "chased" at 1.
  assert.deepEqual(await page.locator('.swap-label.swapped').evaluateAll((gs) => gs.map((g) => [g.textContent, g.dataset.pos])), [['the', '3'], ['chased', '1']]);
  assert.deepEqual(problems.console, []);
  await context.close();
});
