// The class results page words the grader's messages in its own language:
// a planted answer made with a lab setting the exercise does not allow
// (d = 999 in add-position, whose d runs from 1 to 64) and an answer for
// another version of an exercise show Japanese text on the ja page and
// English on the en page, while poslab grade's CSV keeps its English message.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { root, dist, startLab, nodeCore, openPage, cliPath, artifacts } from './helpers.mjs';
import { exerciseData } from './class-submissions.mjs';

const dir = mkdtempSync(join(tmpdir(), 'poslab-messages-'));
let lab;
let paths;
let hash;

before(async () => {
  lab = await startLab();
  const core = await nodeCore();
  const exercises = JSON.parse(readFileSync(join(dist, 'exercises.json'), 'utf8'));
  const ex = exerciseData(exercises.find((e) => e.id === 'add-position'));
  hash = core.contentHash({ exercise: ex });
  const time = '2026-12-01T09:00:00.000Z';
  const sub = (learner, contentHash, lab) => ({
    format: 'position-lab-submission', version: 1, labVersion: '0.1.0', learner,
    exercises: [{ id: ex.id, contentHash, attempts: [{ question: 'two-reasons', answer: ['budget'], lab, lang: 'ja', time }] }],
  });
  paths = [join(dir, 'planted.json'), join(dir, 'old-version.json'), join(dir, 'trained-first.json')];
  writeFileSync(paths[0], JSON.stringify(sub('planted', hash, { d: 999 })));
  writeFileSync(paths[1], JSON.stringify(sub('older', 'deadbeefdeadbeef', {})));
  // A learner who started exercise 7's training before predicting: the page's mark, then a late prediction.
  const train = exerciseData(exercises.find((e) => e.id === 'train-short-test-long'));
  writeFileSync(paths[2], JSON.stringify({
    format: 'position-lab-submission', version: 1, labVersion: '0.1.0', learner: 'trained-first',
    exercises: [{ id: train.id, contentHash: core.contentHash({ exercise: train }), attempts: [
      { question: 'predict', answer: { ran_before_prediction: true }, lab: {}, lang: 'ja', time },
      { question: 'predict', answer: ['rope'], lab: {}, lang: 'ja', time: '2026-12-01T09:05:00.000Z' },
    ] }],
  }));
});
after(async () => {
  await lab?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function messages(lang) {
  const { page, context, problems } = await openPage(lab, 'http');
  await page.goto(new URL(`instructor.html${lang === 'en' ? '#lang=en' : ''}`, lab.bases.http).href);
  await page.waitForSelector('#files', { state: 'attached' });
  await page.setInputFiles('#files', paths);
  await page.waitForSelector('#problems', { timeout: 120000 });
  const rows = await page.$$eval('#problems tbody tr', (trs) => Object.fromEntries(trs.map((tr) => [tr.querySelector('th').textContent, tr.querySelector('td.msg .detail')?.textContent ?? `(no detail) ${tr.querySelector('td.msg')?.textContent}`])));
  await page.locator('#problems').screenshot({ path: join(artifacts, `instructor-messages-${lang}.png`) });
  // The item table counts the learner who trained before predicting, in the page's language.
  rows.itemFlags = await page.locator('#items tr[data-question="train-short-test-long/predict"] td:last-child').textContent();
  assert.deepEqual(problems.console, []);
  await context.close();
  return rows;
}

test('ja: the planted answer\'s and the old version\'s messages are in Japanese', { timeout: 300000 }, async () => {
  const rows = await messages('ja');
  assert.equal(rows['planted.json'], '採点していない回答があります：この演習の d は 1 から 64 までですが、回答では 999 でした。');
  assert.equal(rows['old-version.json'], `別の版の演習に対する回答です（内容ハッシュ deadbeefdeadbeef、フォルダーの演習は ${hash}）。`);
  assert.match(rows.itemFlags, /予測の前に訓練：1 人/);
});

test('en: the same messages in English', { timeout: 300000 }, async () => {
  const rows = await messages('en');
  assert.equal(rows['planted.json'], 'Not graded: d must be from 1 to 64 in this exercise, got 999.');
  assert.equal(rows['old-version.json'], `Answered for another version of the exercise (content hash deadbeefdeadbeef; the folder has ${hash}).`);
  assert.match(rows.itemFlags, /1 trained before predicting/);
});

test('poslab grade\'s CSV keeps its English message', () => {
  const r = spawnSync(cliPath, ['grade', '--exercises', join(root, 'exercises'), ...paths], { encoding: 'utf8' });
  const lines = r.stdout.trim().split('\n');
  assert.match(lines.find((l) => l.includes('planted.json')), /not graded: lab: d must be from 1 to 64 in this exercise, got 999/);
  assert.match(lines.find((l) => l.includes('old-version.json')), /answered for another version of the exercise/);
  assert.match(lines.find((l) => l.includes('trained-first.json')), /ran_before_prediction:1/);
});
