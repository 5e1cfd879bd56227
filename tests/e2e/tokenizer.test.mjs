// Typed sentences are split into words (the browser's ICU through the core),
// not characters; and the tokens the page used are the ones `poslab grade`
// re-runs, so a submission made with typed text re-grades to the page's score.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { root, artifacts, startLab, openPage, urlFor, gotoReady, cliPath, openGate } from './helpers.mjs';

const dir = mkdtempSync(join(tmpdir(), 'poslab-tokenizer-'));
let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
  rmSync(dir, { recursive: true, force: true });
});

const chipTokens = (page) => page.locator('[data-widget="chips"] .chip').evaluateAll((els) => els.map((e) => e.dataset.token));

// As a person does: click into the sentence box, replace its text, press Enter.
async function typeSentence(page, text) {
  await page.click('#ctl-sentence');
  await page.keyboard.press('Control+A');
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

test('typing 東京で寿司を食べた shows 東京 and 寿司 as single chips', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'reorder' }));
  // The lesson's own sentence keeps the tokens its exercise file pins.
  assert.deepEqual(await chipTokens(page), ['犬', 'が', '猫', 'を', '追いかけ', 'た']);
  await typeSentence(page, '東京で寿司を食べた');
  const want = ['東京', 'で', '寿司', 'を', '食べ', 'た'];
  await page.waitForFunction((w) => [...document.querySelectorAll('[data-widget="chips"] .chip')].map((e) => e.dataset.token).join('|') === w, want.join('|'));
  const chips = page.locator('[data-widget="chips"] .chip');
  assert.match(await chips.nth(0).innerText(), /東京/);
  assert.match(await chips.nth(2).innerText(), /寿司/);
  await typeSentence(page, 'トランスフォーマーは位置を知らない');
  await page.waitForFunction(() => document.querySelector('[data-widget="chips"] .chip')?.dataset.token === 'トランスフォーマー');
  assert.deepEqual(await chipTokens(page), ['トランスフォーマー', 'は', '位置', 'を', '知ら', 'ない']);
  await page.locator('[data-widget="chips"]').screenshot({ path: join(artifacts, 'http-ja-chips-katakana.png') });
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('Chromium\'s ICU and the native CLI\'s libicu give the same tokens for the lessons\' and the issue\'s sentences', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'reorder' }));
  await page.addScriptTag({ url: new URL('poslab.js', lab.bases.http).href });
  // Worked out by hand (the same lists as tests/cpp/tokenizer_test.cpp).
  const want = {
    '犬が猫を追いかけた': ['犬', 'が', '猫', 'を', '追いかけ', 'た'],
    '猫が犬を追いかけた': ['猫', 'が', '犬', 'を', '追いかけ', 'た'],
    'The keys on the table are lost.': ['the', 'keys', 'on', 'the', 'table', 'are', 'lost', '.'],
    'The dog chased the cat.': ['the', 'dog', 'chased', 'the', 'cat', '.'],
    '東京で寿司を食べた': ['東京', 'で', '寿司', 'を', '食べ', 'た'],
    'トランスフォーマーは位置を知らない': ['トランスフォーマー', 'は', '位置', 'を', '知ら', 'ない'],
    '私はGPT-4で寿司を食べた。': ['私', 'は', 'gpt', '-', '4', 'で', '寿司', 'を', '食べ', 'た', '。'],
    '猫は寿司を食べました': ['猫', 'は', '寿司', 'を', '食べ', 'ました'],
  };
  const inPage = await page.evaluate(async (texts) => {
    const core = await globalThis.createPositionLab();
    return texts.map((t) => core.tokenize(t));
  }, Object.keys(want));
  Object.entries(want).forEach(([text, tokens], i) => {
    assert.deepEqual(inPage[i], tokens, `Chromium: ${text}`);
    const native = JSON.parse(spawnSync(cliPath, ['tokenize', '--text', text], { encoding: 'utf8' }).stdout).tokens;
    assert.deepEqual(native, tokens, `native: ${text}`);
  });
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('a submission made with typed text re-grades to the page\'s score with poslab grade', { timeout: 120000 }, async () => {
  const learner = 'typed-sentence';
  const base = `${lab.bases.http}?learner=${learner}`;
  const context = await lab.browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  await gotoReady(page, `${base}#ex=causal-mask`);
  await openGate(page, 'sw');
  // Chromium's ICU splits U.S.A. into letters and dots (libicu 72 keeps
  // "u.s.a"): tokens 2, 4 and 6 are the same ".", so with the mask on and no
  // position information, swapping 4↔6 leaves token 5 ("a") as it was and only
  // 3↔5 changes it. Natively the sentence would be u.s.a|.|is|big|ok|now, where
  // 4↔6 changes token 5 too.
  const text = 'U.S.A. is big ok now';
  await typeSentence(page, text);
  const pageTokens = ['u', '.', 's', '.', 'a', '.', 'is', 'big', 'ok', 'now'];
  await page.waitForFunction((n) => document.querySelector('[data-widget="sw"] select')?.options.length === n, pageTokens.length);
  // The page's own swap widget: 4↔6 swaps "." with "." and leaves token 5 alone.
  await page.locator('[data-widget="sw"] .swap-buttons button').nth(2).click();
  await page.waitForSelector('[data-swap="s4-6"]');
  assert.equal(await page.getAttribute('[data-swap="s4-6"]', 'class'), 'same');
  const native = JSON.parse(spawnSync(cliPath, ['tokenize', '--text', text], { encoding: 'utf8' }).stdout).tokens;
  assert.notDeepEqual(native, pageTokens, 'the native split differs from the browser\'s here, which is the point of the test');
  const q = page.locator('[data-question="which-swaps"]');
  await q.locator('input[value="s3-5"]').check();
  await q.locator('button[type="submit"]').click();
  await page.waitForSelector('[data-question="which-swaps"] .feedback.correct');
  await gotoReady(page, `${base}#`);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('.grading-download')]);
  const file = join(dir, 'typed.json');
  await download.saveAs(file);
  const entry = JSON.parse(readFileSync(file, 'utf8')).exercises.find((e) => e.id === 'causal-mask');
  // The answer (the give-up that opened the swaps came first, with the lesson's sentence).
  const attempt = entry.attempts.filter((a) => a.question === 'which-swaps' && !a.answer?.gave_up).at(-1);
  assert.equal(attempt.lab.sentence, text);
  assert.deepEqual(attempt.lab.tokens, pageTokens, 'the attempt carries the tokens the page used');
  const out = spawnSync(cliPath, ['grade', '--exercises', join(root, 'exercises'), file, '--format', 'json'], { encoding: 'utf8' });
  const row = JSON.parse(out.stdout).rows.find((r) => r.exercise === 'causal-mask');
  assert.equal(row.status, 'graded', row.message);
  assert.equal(row.questions.find((x) => x.id === 'which-swaps').solved, true);
  assert.equal(row.points, entry.claimed.points);
  assert.equal(row.claimedDiffers, false);
  assert.deepEqual(problems, []);
  await context.close();
});
