// Exercise 4's clocks: one clock per (2i, 2i+1) pair whose hand is
// (sin, cos)(pos·ω_i), ω_i = 1/10000^{2i/D}, and a shift k that turns every
// clock by k·ω_i whatever pos is. The expected values are worked out here
// from the formula, not read from the core. The slider is reached with Tab
// from the top of the page and moved with the arrow keys.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLab, openPage, gotoReady, urlFor, axeViolations } from './helpers.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

const omega = (i, D) => 1 / 10000 ** ((2 * i) / D);
const turnDeg = (k, i, D) => ((((k * omega(i, D) * 180) / Math.PI) % 360) + 360) % 360;
const clocks = (page) =>
  page.locator('.w-clocks .clock').evaluateAll((els) => els.map((e) => ({ pair: Number(e.dataset.pair), sin: Number(e.dataset.sin), cos: Number(e.dataset.cos), turn: Number(e.dataset.turn) })));

// Presses Tab from where focus is until `predicate` holds for the focused element.
async function tabUntil(page, predicate, arg, max = 80) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(predicate, arg)) return;
  }
  throw new Error('never reached by Tab');
}

for (const mode of ['http', 'file']) {
  test(`${mode}: clocks show (sin, cos)(pos·ω_i) per pair and the same turn k·ω_i at every position, by keyboard`, { timeout: 90000 }, async () => {
    const { page, context, problems } = await openPage(lab, mode);
    const D = 8;
    await gotoReady(page, urlFor(lab, mode, { ex: 'add-position', extra: `&pe=sinusoidal&d=${D}&pos=5&k=2` }));
    await page.waitForFunction(() => document.querySelectorAll('.w-clocks .clock[data-sin]').length > 0);
    let got = await clocks(page);
    assert.equal(got.length, D / 2, 'one clock per pair');
    const check = (list, pos, k) => {
      for (const c of list) {
        const a = pos * omega(c.pair, D);
        assert.ok(Math.abs(c.sin - Math.sin(a)) < 1e-5, `pair ${c.pair} sin at ${pos}: ${c.sin} vs ${Math.sin(a)}`);
        assert.ok(Math.abs(c.cos - Math.cos(a)) < 1e-5, `pair ${c.pair} cos at ${pos}`);
        const want = turnDeg(k, c.pair, D);
        const diff = Math.min(Math.abs(c.turn - want), 360 - Math.abs(c.turn - want));
        assert.ok(diff < 1e-3, `pair ${c.pair} turn for k=${k}: ${c.turn} vs ${want}`);
      }
    };
    check(got, 5, 2);
    const turnsBefore = got.map((c) => c.turn);

    // From the top of the page: Tab to the position slider, then → three times.
    await page.mouse.click(1, 1);
    await page.evaluate(() => window.scrollTo(0, 0));
    await tabUntil(page, () => document.activeElement?.id === 'clocks-pos');
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => Math.abs(Number(document.querySelector('.w-clocks .clock').dataset.sin) - Math.sin(8)) < 1e-5);
    got = await clocks(page);
    check(got, 8, 2);
    // The turn of each clock did not change with the position: the same M_k everywhere.
    got.forEach((c, i) => assert.ok(Math.abs(c.turn - turnsBefore[i]) < 1e-3 || Math.abs(Math.abs(c.turn - turnsBefore[i]) - 360) < 1e-3));
    assert.equal(await page.locator('.w-clocks output').first().textContent(), '8');
    assert.match(page.url(), /pos=8/);

    // Tab on to the shift slider and raise k: the turns follow k·ω_i.
    await tabUntil(page, () => document.activeElement?.id === 'clocks-k');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => document.querySelector('#clocks-k').value === '3' && document.querySelector('.w-clocks .clock').dataset.turn !== undefined);
    await page.waitForFunction((want) => Math.abs(Number(document.querySelector('.w-clocks .clock').dataset.turn) - want) < 1e-3, turnDeg(3, 0, D));
    check(await clocks(page), 8, 3);

    // Focus on a clock highlights its two rows of the table strip.
    await tabUntil(page, () => document.activeElement?.classList.contains('clock') && document.activeElement.dataset.pair === '0');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.pair), '1');
    assert.equal(await page.locator('.w-clocks .clock.hl').count(), 1);
    assert.deepEqual(await page.locator('.w-clocks .clock-row-label.hl').allTextContents(), ['2', '3']);
    assert.equal(await page.locator('.w-clocks .clock-band').isVisible(), true);

    // The table twin: one row per pair, with the same numbers.
    await page.locator('.w-clocks button[aria-expanded]').click();
    const rows = await page.locator('.w-clocks .clock-table tbody tr').count();
    assert.equal(rows, D / 2);
    if (mode === 'http') assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems.console, []);
    assert.deepEqual(problems.offOrigin, []);
    await context.close();
  });
}

test('clocks: D = 16 gives 8 clocks; an odd D shows the core error in place', { timeout: 60000 }, async () => {
  const { page, context } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'add-position', extra: '&pe=sinusoidal&d=16' }));
  await page.waitForFunction(() => document.querySelectorAll('.w-clocks .clock[data-sin]').length === 8);
  await gotoReady(page, urlFor(lab, 'http', { ex: 'add-position', extra: '&pe=sinusoidal&d=7' }));
  await page.waitForSelector('.w-clocks .core-error');
  await context.close();
});

test('"The" at 0 and "the" at 3: token + position = sum as strips; the ruler\'s distance is ‖PE(0) − PE(3)‖ from the formula', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  const D = 8;
  await gotoReady(page, urlFor(lab, 'http', { ex: 'add-position', extra: `&pe=sinusoidal&d=${D}` }));
  const w = page.locator('[data-widget="the-rows"]');
  // The same token, so the same embedding strip; the position strips are PE(0) and PE(3).
  const strips = await w.locator('.sum-stack').evaluateAll((stacks) => stacks.map((s) => [...s.querySelectorAll('.sum-cells')].map((c) => [...c.children].map((x) => Number(x.dataset.value)))));
  assert.equal(strips.length, 2);
  assert.deepEqual(strips[0][0], strips[1][0], 'one token, one embedding');
  for (const [k, pos] of [[0, 0], [1, 3]]) {
    strips[k][1].forEach((v, d) => {
      const i = Math.floor(d / 2);
      const want = (d % 2 ? Math.cos : Math.sin)(pos * omega(i, D));
      assert.ok(Math.abs(v - want) < 1e-6, `PE(${pos})[${d}]`);
    });
    strips[k][2].forEach((v, d) => assert.ok(Math.abs(v - (strips[k][0][d] + strips[k][1][d])) < 1e-5, 'sum = token + position'));
  }
  // ‖PE(0) − PE(3)‖² = Σ_i (0 − sin 3ω_i)² + (1 − cos 3ω_i)² = Σ_i 2 − 2cos 3ω_i.
  let sq = 0;
  for (let i = 0; i < D / 2; i++) sq += 2 - 2 * Math.cos(3 * omega(i, D));
  const text = await w.locator('.ruler-text').textContent();
  const [before, after] = text.match(/\d+\.\d+/g).map(Number);
  assert.equal(before, 0);
  assert.equal(after, Number(Math.sqrt(sq).toFixed(3)));
  // Without position information the two stay on one spot.
  await gotoReady(page, urlFor(lab, 'http', { ex: 'add-position', extra: `&pe=none&d=${D}` }));
  // (The same exercise again: wait for its new render.)
  await page.waitForFunction(() => /0\.000.*0\.000/.test(document.querySelector('[data-widget="the-rows"] .ruler-text')?.textContent ?? ''));
  assert.equal(await w.locator('.readout').nth(1).getAttribute('class'), 'readout same');
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('add or concatenate: cosine spread ≈ 1/√D per width, recovery certain at 768 and near chance at 2; the budget text quotes the histograms', { timeout: 90000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'add-position', lang: 'en' }));
  await page.waitForSelector('[data-widget="super"] .cos-fig');
  const figs = await page.locator('[data-widget="super"] .cos-fig').evaluateAll((fs) => fs.map((f) => ({ D: Number(f.dataset.d), std: Number(f.dataset.std), caption: f.querySelector('figcaption').textContent })));
  assert.deepEqual(figs.map((f) => f.D), [2, 8, 32, 128, 384, 768]);
  // The cosine of two independent Gaussian vectors in D dimensions has variance 1/D.
  for (const f of figs) assert.ok(Math.abs(f.std - 1 / Math.sqrt(f.D)) < 0.06 / Math.sqrt(f.D), `D = ${f.D}: ${f.std}`);
  for (let i = 1; i < figs.length; i++) assert.ok(figs[i].std < figs[i - 1].std, 'narrower as D grows');
  // The recovery table (behind its toggle): D, token, position.
  const rows = await page.locator('[data-widget="super"] table.data-table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  const byD = Object.fromEntries(rows.map(([d, tok, pos]) => [d, [Number(tok), Number(pos)]]));
  assert.deepEqual(byD['768'], [1, 1]);
  assert.ok(byD['2'][0] < 0.1, 'two dimensions cannot hold 256 tokens');
  const readout = await page.locator('[data-widget="super"] .readout').textContent();
  assert.match(readout, new RegExp(`At D = 8 the token is read back only ${Math.round(byD['8'][0] * 100)}%`));
  const budget = await page.locator('[data-widget="super"] .budget + p').textContent();
  assert.ok(budget.includes(figs[5].std.toFixed(3)) && budget.includes(figs[4].std.toFixed(3)));
  assert.deepEqual(problems.console, []);
  await context.close();
});
