// The causal mask, the 1024 wall, RoPE, ALiBi and the final quiz show what
// they must; numbers compared with the core loaded in Node.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startLab, openPage, urlFor, gotoReady, nodeCore, tableNumbers, round3, artifacts, openGate, settled } from './helpers.mjs';

let lab;
let core;
before(async () => {
  lab = await startLab();
  core = await nodeCore();
});
after(async () => {
  await lab?.close();
});

async function heatmapTable(page, scope) {
  // The data table behind the heatmap carries the same numbers.
  return page.locator(`${scope} table.data-table`).first().evaluate((t) => [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.textContent))));
}

test('causal mask: weights above the diagonal vanish; swaps before token 5 leave it unchanged', { timeout: 90000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'causal-mask' }));
  const before = await heatmapTable(page, '[data-widget="att"]');
  assert.ok(before.some((r, i) => r.some((v, j) => j > i && v > 0)), 'without the mask, some weight above the diagonal');
  await page.check('#ctl-mask');
  await page.waitForSelector('[data-question="mask-on"].done');
  // The task's own check is done; the heatmap's redraw has landed too.
  await settled(page);
  const masked = await heatmapTable(page, '[data-widget="att"]');
  masked.forEach((r, i) => r.forEach((v, j) => j > i && assert.equal(v, 0, `weight (${i}, ${j})`)));
  // Each row still sums to 1 (to rounding): the weights moved onto j <= i.
  masked.forEach((r) => assert.ok(Math.abs(r.reduce((a, b) => a + b, 0) - 1) < 0.01));
  const r = core.forward({ text: '犬が猫を追いかけた', causal: true, dModel: 8, seed: 0 });
  assert.deepEqual(masked, Array.from({ length: 6 }, (_, i) => Array.from(r.attention.data.subarray(i * 6, i * 6 + 6), round3)));
  assert.match(page.url(), /mask=1/);

  // Swaps: 1↔3 (犬↔猫, both before 追いかけ) leaves token 5 unchanged; 4↔6 changes it.
  const tokens = core.tokenize('犬が猫を追いかけた');
  const tokenOut = (perm) => {
    const c = core.permutationCheck({ text: '犬が猫を追いかけた', causal: true, dModel: 8, seed: 0, permutation: perm });
    return Array.from(c.permuted.output.data.subarray(perm.indexOf(4) * 8, perm.indexOf(4) * 8 + 8));
  };
  const base = tokenOut([0, 1, 2, 3, 4, 5]);
  const s13 = tokenOut([2, 1, 0, 3, 4, 5]);
  const s46 = tokenOut([0, 1, 2, 5, 4, 3]);
  assert.ok(s13.every((v, i) => Math.abs(v - base[i]) < 1e-6), 'core: 1↔3 leaves token 5 as it was');
  assert.ok(s46.some((v, i) => Math.abs(v - base[i]) > 1e-3), 'core: 4↔6 changes token 5');
  // The question first: the swaps widget, whose results answer it, is not drawn until it is settled.
  assert.equal(await page.locator('[data-widget="sw"] .swap-buttons').count(), 0, 'no swap buttons before the question is answered');
  // The question's answer is the core's: 4↔6 and 3↔5 change token 5.
  const q = page.locator('[data-question="which-swaps"]');
  await q.locator('input[value="s1-3"]').check();
  await q.locator('button[type="submit"]').click();
  await page.waitForSelector('[data-question="which-swaps"] .feedback.wrong');
  assert.equal(await page.locator('[data-widget="sw"] .swap-buttons').count(), 0, 'still closed after a wrong answer with attempts left');
  await q.locator('input[value="s1-3"]').uncheck();
  await q.locator('input[value="s4-6"]').check();
  await q.locator('input[value="s3-5"]').check();
  await q.locator('button[type="submit"]').click();
  await page.waitForSelector('[data-question="which-swaps"] .feedback.correct');
  await page.waitForSelector('[data-widget="sw"][data-revealed="true"] .swap-buttons button');
  const buttons = page.locator('[data-widget="sw"] .swap-buttons button');
  await buttons.nth(0).click();
  await page.waitForSelector('[data-swap="s1-3"]');
  assert.equal(await page.getAttribute('[data-swap="s1-3"]', 'class'), 'same');
  assert.match(await page.locator('[data-swap="s1-3"]').innerText(), new RegExp(`${tokens[0]} ↔ ${tokens[2]}`));
  await buttons.nth(2).click();
  await page.waitForSelector('[data-swap="s4-6"]');
  assert.equal(await page.getAttribute('[data-swap="s4-6"]', 'class'), 'differ');
  await page.screenshot({ path: join(artifacts, 'http-ja-causal-mask-on.png'), fullPage: true });
  assert.deepEqual(problems.console, []);
  await context.close();
});

for (const mode of ['http', 'file']) {
  test(`${mode}: the 1024 wall — learned fails past 1023 with the core's message in place; sinusoidal and RoPE go on`, { timeout: 90000 }, async () => {
    const { page, context, problems } = await openPage(lab, mode);
    await gotoReady(page, urlFor(lab, mode, { ex: 'wall-1024' }));
    const setPos = async (p) => {
      await page.fill('[data-widget="wall"] input[type="number"]', String(p));
      await page.keyboard.press('Tab'); // leaving the field commits what was typed
      await page.waitForFunction((pp) => document.querySelector('[data-widget="wall"] .pos-line')?.textContent.includes(`位置 ${pp}（`), p);
    };
    await setPos(1023);
    assert.equal(await page.locator('[data-widget="wall"] .wall-learned .core-error').count(), 0);
    const learned1023 = (await tableNumbers(page.locator('[data-widget="wall"] .wall-learned table')))[0];
    const want = core.encoding({ scheme: 'learned', length: 1, positionOffset: 1023, dModel: 768, maxPositions: 1024, seed: 0 }).encoding.data;
    assert.deepEqual(learned1023, [300, 400, 500].map((d) => round3(want[d])));

    await setPos(1024);
    const err = page.locator('[data-widget="wall"] .wall-learned .core-error.lesson');
    await err.waitFor();
    let coreMessage = '';
    try {
      core.encoding({ scheme: 'learned', length: 1, positionOffset: 1024, dModel: 768, maxPositions: 1024 });
    } catch (e) {
      coreMessage = e.message;
    }
    assert.match(coreMessage, /1024/);
    // In place and in the page's language (from the core's code and params), not the core's English.
    assert.equal(await err.innerText(), '位置 1024 に対応する行が学習型の表にありません。表は 1024 行（位置 0〜1023）で、学習時の長さを超えて延ばすことはできません。');
    assert.equal(await err.locator('code').count(), 0, "no English core message on a Japanese page");
    assert.ok(!(await page.locator('main').innerText()).includes(coreMessage.slice(0, 30)), coreMessage);
    assert.match(await page.locator('[data-widget="wall"] .lesson-text').innerText(), /1024 の壁/);
    await page.waitForSelector('[data-question="past-wall"].done');

    await setPos(2047);
    const sin = (await tableNumbers(page.locator('[data-widget="wall"] .wall-sinusoidal table')))[0];
    const rope = (await tableNumbers(page.locator('[data-widget="wall"] .wall-rope table')))[0];
    // Second implementation, in the test: PE(pos, 2i) = sin(pos / 10000^{2i/D}), dims 300, 400, 500 are even.
    assert.deepEqual(sin, [300, 400, 500].map((d) => round3(Math.sin(2047 / 10000 ** (d / 768)))));
    const q0 = Array.from({ length: 768 }, (_, i) => (i % 2 === 0 ? 1 : 0));
    const rot = core.ropeRotate({ vector: q0, position: 2047 });
    assert.deepEqual(rope, [300, 400, 500].map((d) => round3(rot[d])));
    assert.equal(await page.locator('[data-widget="wall"] .wall-plots .lineplot').count(), 3, 'three plots across positions');
    // At 2047 the wall is said once, in Japanese.
    const text = await page.locator('main').innerText();
    assert.equal(text.split('位置 2047 に対応する行が学習型の表にありません').length - 1, 1, 'the message once');
    assert.equal(text.split('学習型の表にありません').length - 1, 1, 'no second copy of the error');
    assert.doesNotMatch(text, /has no row|コアのメッセージ/);
    await page.screenshot({ path: join(artifacts, `${mode}-ja-wall-2047.png`), fullPage: true });
    assert.deepEqual(problems.console, []);
    await context.close();
  });
}

test('RoPE: equal m − n gives the same score; the rotated 2-D vector answer', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'rope', lang: 'en' }));
  // Distinct symbols: the shift is s (k is the key vector); the score's change is not called a "difference" like m − n.
  assert.equal(await page.locator('label[for="rope-shift"]').innerText(), 'Shift s');
  await page.locator('label[for="rope-shift"]').click(); // the label focuses its slider
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
  await page.waitForSelector('[data-question="shift-test"].done');
  await page.waitForFunction(() => document.querySelector('[data-widget="rope"] .rope-scores')?.textContent.includes('m = 8'));
  const dd = (cls) => page.locator(`[data-widget="rope"] .rope-scores dd.${cls}`).evaluate((d) => Number(d.dataset.value));
  const values = [await dd('rope-score-before'), await dd('rope-score-after'), await dd('rope-diff')];
  const r = core.ropeCheck({ dHead: 8, m: 3, n: 1, shift: 5, seed: 0 });
  assert.deepEqual(values, [r.score, r.shiftedScore, r.diff]);
  assert.match(await page.locator('[data-widget="rope"] .rope-scores').innerText(), /Change in score \|after − before\|/);
  assert.match(await page.locator('[data-widget="rope"] .rope-readout').innerText(), /Relative position m − n = 2\. Moving both by the same s/);
  assert.ok(Math.abs(values[0] - values[1]) < 1e-4, 'the score depends on m − n only');
  // The question's q and m are the variant the page prints (no learner id: everyone's);
  // the rotation, worked out here: (x cos m − y sin m, x sin m + y cos m).
  const q = page.locator('[data-question="rotate-2d"]');
  const [x, y, m] = (await q.locator('.prompt').innerText()).match(/\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)[\s\S]*?m\s*=\s*(\d+)/).slice(1).map(Number);
  assert.ok([x, y, m].every(Number.isInteger), 'the prompt shows the variant numbers');
  await q.locator('input[data-field="0"]').fill((x * Math.cos(m) - y * Math.sin(m)).toFixed(3));
  await q.locator('input[data-field="1"]').fill((x * Math.sin(m) + y * Math.cos(m)).toFixed(3));
  await q.locator('button[type="submit"]').click();
  await page.waitForSelector('[data-question="rotate-2d"] .feedback.correct');
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('ALiBi: slopes 2^{-8h/H} and the slope answer; comparison of the five schemes', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'alibi' }));
  assert.equal(await page.locator('[data-widget="cmp"] [data-scheme]').count(), 5);
  // The slopes answer the question: the widget is drawn once it is answered.
  assert.equal(await page.locator('[data-widget="al"] table.vec-table').count(), 0);
  const q = page.locator('[data-question="slope-1"]');
  await q.locator('input').fill('0.25');
  await q.locator('button[type="submit"]').click();
  await page.waitForSelector('[data-question="slope-1"] .feedback.correct');
  await page.waitForSelector('[data-widget="al"] table.vec-table tbody td');
  const slopes = (await tableNumbers(page.locator('[data-widget="al"] table.vec-table')))[0];
  assert.deepEqual(slopes, [1, 2, 3, 4].map((h) => Number((2 ** (-8 * h / 4)).toFixed(4))));
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('the five comprehension questions can all be answered right, and the path shows it', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'check' }));
  const pick = async (id, values) => {
    const q = page.locator(`[data-question="${id}"]`);
    for (const v of values) await q.locator(`input[value="${v}"]`).check();
    await q.locator('button[type="submit"]').click();
    await page.waitForSelector(`[data-question="${id}"] .feedback.correct`);
  };
  await pick('q1-formula', ['eq']);
  const q = page.locator('[data-question="q1-number"]');
  await q.locator('input').fill('0');
  await q.locator('button[type="submit"]').click();
  await page.waitForSelector('[data-question="q1-number"] .feedback.correct');
  await pick('q2-rnn', ['content']);
  // A wrong pick first: its explanation is shown.
  const q3 = page.locator('[data-question="q3-add"]');
  await q3.locator('input[value="exact"]').check();
  await q3.locator('button[type="submit"]').click();
  await page.waitForSelector('[data-question="q3-add"] .feedback.wrong');
  assert.match(await q3.locator('.feedback').innerText(), /全次元/);
  await q3.locator('input[value="exact"]').uncheck();
  await pick('q3-add', ['budget', 'superposition']);
  await pick('q4-mask', ['one-layer']);
  await pick('q5-1024', ['learned']);
  await page.waitForSelector('.steps-nav li.done');
  await gotoReady(page, urlFor(lab, 'http', {}));
  assert.equal(await page.locator('.path .step[data-exercise="check"]').getAttribute('data-status'), 'done');
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('ALiBi: a head count that does not divide D is shown in place; a good one recomputes the slopes', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'alibi' }));
  await openGate(page, 'al');
  await page.fill('#ctl-heads', '3');
  await page.keyboard.press('Tab'); // leaving the field commits what was typed
  await page.waitForSelector('[data-widget="al"] .core-error');
  // Every widget's redraw for 3 heads has landed (the comparison's too).
  await settled(page);
  assert.match(await page.locator('[data-widget="al"] .core-error').innerText(), /ヘッド数 3 は幅 8 を割り切れません/);
  assert.ok((await page.locator('[data-widget="cmp"] .core-error').count()) >= 1, 'the comparison says so too');
  await page.fill('#ctl-heads', '8');
  await page.keyboard.press('Tab'); // leaving the field commits what was typed
  await page.waitForFunction(() => document.querySelectorAll('[data-widget="al"] table.vec-table tbody td').length === 8);
  const slopes = (await tableNumbers(page.locator('[data-widget="al"] table.vec-table')))[0];
  assert.deepEqual(slopes, Array.from({ length: 8 }, (_, i) => Number((2 ** (-(i + 1))).toFixed(4))));
  assert.match(page.url(), /heads=8/);
  assert.deepEqual(problems.console, []);
  await context.close();
});
