// Answers given before a learner id is entered (practice) are kept and
// carried into the learner's record when the id is typed on the start page:
// the downloaded submission has them and `poslab grade` re-grades it to the
// page's score. A question whose values depend on the learner's variant
// (RoPE's rotate-2d) says in place, before and after, that its practice
// answer is not carried. Expected points are counted here by hand.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { root, startLab, gotoReady, answerNumeric, openPage, urlFor, cliPath } from './helpers.mjs';

const dir = mkdtempSync(join(tmpdir(), 'poslab-practice-'));
let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
  rmSync(dir, { recursive: true, force: true });
});

for (const mode of ['http', 'file']) {
  test(`${mode}: practice answers are kept, carried when an id is set, and re-grade to the page's score`, { timeout: 120000 }, async () => {
    const { page: p, context, problems } = await openPage(lab, mode);
    await gotoReady(p, urlFor(lab, mode, { ex: 'hand-calc' }));
    // In place, before answering: practice is kept and will be carried.
    assert.match(await p.locator('.practice-note').innerText(), /練習としてこのブラウザに保存され.*引き継がれます/);
    // Right, wrong then right: 2 questions solved with 3 attempts (1 point each).
    assert.match((await answerNumeric(p, 'dots-a', ['1', '0'])).cls, /correct/);
    assert.match((await answerNumeric(p, 'scaled-a', ['1', '0'])).cls, /wrong/);
    assert.match((await answerNumeric(p, 'scaled-a', ['0.707', '0'])).cls, /correct/);
    // RoPE's rotate-2d depends on the learner's variant: it says so before any answer.
    await gotoReady(p, urlFor(lab, mode, { ex: 'rope' }));
    assert.match(await p.locator('[data-question="rotate-2d"] .practice-redo').innerText(), /学習者 ID ごとに変わります/);
    assert.equal(await p.locator('[data-question="every-layer"] .practice-redo').count(), 0, 'a question without variant values is carried');
    assert.equal(await p.locator('[data-question="shift-test"] .practice-redo').count(), 0, 'TeX ($m - n$) in its text is not a variant value');
    assert.match((await answerNumeric(p, 'rotate-2d', ['0', '0'])).cls, /wrong/);

    // The id, typed on the start page: a confirmation (role=status) that says what was carried.
    await gotoReady(p, urlFor(lab, mode, {}));
    await p.fill('#grading-learner', `practice-${mode}`);
    await p.click('.grading-learner button[type="submit"]');
    const status = p.locator('.grading-status[role="status"]');
    await p.waitForFunction(() => /引き継ぎました/.test(document.querySelector('.grading-status')?.textContent ?? ''));
    const said = await status.innerText();
    assert.match(said, new RegExp(`学習者 ID を practice-${mode} にしました`));
    assert.match(said, /練習の回答 3 件を、この ID の記録に引き継ぎました/);
    assert.match(said, /RoPE.*1 問分は引き継いでいません/s);

    const [download] = await Promise.all([p.waitForEvent('download'), p.click('.grading-download')]);
    const file = join(dir, `${mode}.json`);
    await download.saveAs(file);
    const submission = JSON.parse(readFileSync(file, 'utf8'));
    const entry = submission.exercises.find((e) => e.id === 'hand-calc');
    assert.ok(entry, 'the practice exercise is in the submission');
    assert.deepEqual(entry.attempts.map((a) => a.question), ['dots-a', 'scaled-a', 'scaled-a']);
    assert.equal(entry.claimed.points, 2);
    assert.equal(submission.exercises.find((e) => e.id === 'rope'), undefined, 'the variant-dependent practice answer is not carried');
    const out = spawnSync(cliPath, ['grade', '--exercises', join(root, 'exercises'), file, '--format', 'json'], { encoding: 'utf8' });
    const row = JSON.parse(out.stdout).rows.find((r) => r.exercise === 'hand-calc');
    assert.equal(row.status, 'graded', row.message);
    assert.equal(row.points, 2, 'poslab grade: the same score as the page');
    assert.equal(row.claimedDiffers, false);

    // Back on RoPE with the id: the question says in place that it needs a new answer.
    await gotoReady(p, urlFor(lab, mode, { ex: 'rope' }));
    assert.match(await p.locator('[data-question="rotate-2d"] .practice-redo').innerText(), /引き継いでいません.*もう一度/);
    assert.equal(await p.locator('.practice-note').count(), 0);
    assert.deepEqual(problems.console, []);
    await context.close();
  });
}
