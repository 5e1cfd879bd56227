// The hand calculation: the seed's answers are accepted at each step in both
// orders, and the usual mistakes get their feedback. Expected numbers are the
// seed's own (x1=(1,0), x2=(0,1), identity weights, d_k=2).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startLab, openPage, urlFor, gotoReady, artifacts } from './helpers.mjs';
import { answerNumeric } from './helpers.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

const answer = answerNumeric;

for (const mode of ['http', 'file']) {
  test(`${mode}: the seed's numbers are accepted, order (x1, x2) then (x2, x1)`, { timeout: 90000 }, async () => {
    const { page, context, problems } = await openPage(lab, mode);
    await gotoReady(page, urlFor(lab, mode, { ex: 'hand-calc' }));
    const steps = [
      ['dots-a', ['1', '0']],
      ['scaled-a', ['0.707', '0']],
      ['softmax-a', ['0.670', '0.330']],
      ['output-a', ['0.670', '0.330']],
      ['dots-b', ['0', '1']],
      ['scaled-b', ['0', '0.707']],
      ['softmax-b', ['0.330', '0.670']],
      ['output-b', ['0.670', '0.330']],
    ];
    for (const [id, values] of steps) {
      const r = await answer(page, id, values);
      assert.equal(r.cls, 'feedback correct', `${id}: ${r.text}`);
    }
    assert.match(await page.locator('[data-question="output-b"] .feedback').innerText(), /順序 A とぴったり同じ/);
    await page.screenshot({ path: join(artifacts, `${mode}-hand-calc-answered.png`), fullPage: true });
    assert.deepEqual(problems.console, []);
    await context.close();
  });
}

test('mistakes: no √d_k (0.731), dividing by d_k (0.5, 0.622), wrong order; each with its feedback', { timeout: 90000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'hand-calc' }));
  let r = await answer(page, 'scaled-a', ['1', '0']);
  assert.equal(r.cls, 'feedback wrong');
  assert.match(r.text, /内積そのもの/);
  r = await answer(page, 'scaled-a', ['0.5', '0']);
  assert.match(r.text, /d\s*k\s*=\s*2\s*で割っています|で割っています/);
  assert.match(r.text, /ではなく/);
  r = await answer(page, 'softmax-a', ['0.731', '0.269']);
  assert.equal(r.cls, 'feedback wrong');
  assert.match(r.text, /0\.731 は/);
  r = await answer(page, 'softmax-a', ['0.622', '0.378']);
  assert.match(r.text, /0\.622 は/);
  r = await answer(page, 'output-a', ['0.731', '0.269']);
  assert.match(r.text, /スケーリングを忘れた/);
  r = await answer(page, 'softmax-b', ['0.670', '0.330']);
  assert.match(r.text, /順序 A の並び/);
  // Per-field marks: one right, one wrong.
  r = await answer(page, 'dots-a', ['1', '1']);
  assert.match(r.text, /2 個中 1 個/);
  assert.equal(await page.locator('[data-question="dots-a"] .field').nth(0).getAttribute('data-state'), 'ok');
  assert.equal(await page.locator('[data-question="dots-a"] .field').nth(1).getAttribute('data-state'), 'wrong');
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('English feedback for the same mistakes', { timeout: 60000 }, async () => {
  const { page, context } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'hand-calc', lang: 'en' }));
  let r = await answer(page, 'softmax-a', ['0.731', '0.269']);
  assert.match(r.text, /without dividing by/);
  r = await answer(page, 'scaled-a', ['0.5', '0']);
  assert.match(r.text, /You divided by/);
  await context.close();
});

test('full-width digits are accepted; letters are a format error that costs no attempt', { timeout: 60000 }, async () => {
  const { page, context } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'hand-calc' }));
  let r = await answer(page, 'scaled-a', ['abc', '0']);
  assert.equal(r.cls, 'feedback malformed');
  assert.match(r.text, /「abc」は数として読めません/);
  assert.match(r.text, /試行回数に数えません/);
  r = await answer(page, 'scaled-a', ['', '0']);
  assert.equal(r.cls, 'feedback malformed');
  r = await answer(page, 'scaled-a', ['1', '0']);
  assert.match(r.attempts, /試行 1 回/, 'the malformed answers did not count');
  r = await answer(page, 'scaled-a', ['０．７０７', '０']);
  assert.equal(r.cls, 'feedback correct', r.text);
  assert.match(r.attempts, /試行 2 回/);
  // Progress is kept: the start page shows the exercise as in progress.
  await gotoReady(page, urlFor(lab, 'http', {}));
  assert.equal(await page.locator('.path .step').nth(2).getAttribute('data-status'), 'in_progress');
  await context.close();
});
