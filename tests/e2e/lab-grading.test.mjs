// The real lab page with a learner id: a student answers the hand
// calculation, reloads, answers more, downloads the submission from the start
// page, and poslab grade's re-grade of that file equals the page's score —
// over http and from file://. Expected points are counted here by hand.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { root, startLab, gotoReady, answerNumeric, watchCsp, cliPath } from './helpers.mjs';

const dir = mkdtempSync(join(tmpdir(), 'poslab-lab-grading-'));
let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
  rmSync(dir, { recursive: true, force: true });
});

const answer = async (page, id, values) => (await answerNumeric(page, id, values)).cls;

for (const mode of ['http', 'file']) {
  test(`${mode}: answers kept across a reload; the downloaded submission re-grades to the page's score`, { timeout: 120000 }, async () => {
    const learner = `student-${mode}`;
    const base = `${lab.bases[mode]}?learner=${learner}`;
    const ctx2 = await lab.browser.newContext({ acceptDownloads: true });
    await watchCsp(ctx2);
    const p = await ctx2.newPage();
    const problems = { console: [] };
    p.on('pageerror', (e) => problems.console.push(e.message));
    p.on('console', (m) => m.type() === 'error' && problems.console.push(m.text()));
    await gotoReady(p, `${base}#ex=hand-calc`);
    // x1·x1 = 1, x1·x2 = 0: right. Then the scores without √d_k (1, 0): wrong; then right.
    assert.match(await answer(p, 'dots-a', ['1', '0']), /correct/);
    assert.match(await answer(p, 'scaled-a', ['1', '0']), /wrong/);
    assert.match(await answer(p, 'scaled-a', ['0.707', '0']), /correct/);
    // A format error costs nothing and is not a point.
    assert.match(await answer(p, 'softmax-a', ['abc', '0.330']), /malformed/);
    // Typed but not checked: kept as a draft through the reload (pagehide), with what was checked.
    await p.locator('[data-question="output-a"] input[data-field="0"]').fill('0.67');
    await p.reload();
    await p.waitForSelector('[data-ready="true"]');
    assert.equal(await p.locator('[data-question="output-a"] input[data-field="0"]').inputValue(), '0.67');
    assert.equal(await p.locator('[data-question="scaled-a"] input[data-field="0"]').inputValue(), '0.707');
    assert.match((await p.locator('[data-question="dots-a"]').getAttribute('class')) ?? '', /done/);
    // e^{0.707} / (e^{0.707} + 1) = 0.670 (by hand, as in the seed article).
    assert.match(await answer(p, 'softmax-a', ['0.670', '0.330']), /correct/);
    await gotoReady(p, `${base}#`);
    const [download] = await Promise.all([p.waitForEvent('download'), p.click('.grading-download')]);
    const file = join(dir, `${mode}.json`);
    await download.saveAs(file);
    const submission = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(submission.learner, learner);
    const entry = submission.exercises.find((e) => e.id === 'hand-calc');
    assert.ok(entry, 'the hand calculation is in the submission');
    const asked = entry.attempts.map((a) => a.question);
    // Every attempt is kept, the wrong one and the malformed one too, across the reload.
    assert.deepEqual(asked.filter((q) => q === 'scaled-a').length, 2);
    assert.ok(asked.includes('softmax-a'));
    assert.equal(entry.claimed.points, 3, 'three questions solved, one point each');
    const out = spawnSync(cliPath, ['grade', '--exercises', join(root, 'exercises'), file, '--format', 'json'], { encoding: 'utf8' });
    const row = JSON.parse(out.stdout).rows.find((r) => r.exercise === 'hand-calc');
    assert.equal(row.status, 'graded', row.message);
    assert.equal(row.points, 3);
    assert.equal(row.claimedDiffers, false);
    assert.equal(row.max, entry.claimed.max);
    assert.deepEqual(problems.console, []);
    await ctx2.close();
  });
}

test('http: two learners get different seeded variants of the RoPE question; each is graded on their own', { timeout: 120000 }, async () => {
  const { createRequire } = await import('node:module');
  const yaml = createRequire(import.meta.url)('js-yaml');
  const core = await (await import('./helpers.mjs')).nodeCore();
  const exercise = yaml.load(readFileSync(join(root, 'exercises', '08-rope.yaml'), 'utf8'));
  const variantOf = (learner) => core.variant({ exercise, learner }).variant;
  // Two learners whose variants differ (found with the core, not assumed).
  const names = ['ann', 'ben', 'cho', 'dai', 'eve', 'fumi'];
  const a = names[0];
  const b = names.find((n) => JSON.stringify(variantOf(n)) !== JSON.stringify(variantOf(a)));
  const rotate = ({ q: [x, y], m }) => [x * Math.cos(m) - y * Math.sin(m), x * Math.sin(m) + y * Math.cos(m)].map((v) => v.toFixed(3));
  for (const [learner, other] of [[a, b], [b, a]]) {
    const ctx = await lab.browser.newContext({ acceptDownloads: true });
    await watchCsp(ctx);
    const p = await ctx.newPage();
    await gotoReady(p, `${lab.bases.http}?learner=${learner}#ex=rope`);
    const v = variantOf(learner);
    const prompt = (await p.locator('[data-question="rotate-2d"] .prompt').innerText()).replace(/\s+/g, '');
    assert.ok(prompt.includes(`(${v.q[0]},${v.q[1]})`) && prompt.includes(`m=${v.m}`), `${learner}'s prompt shows their variant: ${prompt}`);
    const mine = rotate(v);
    const theirs = rotate(variantOf(other));
    if (mine.join() !== theirs.join()) assert.match(await answer(p, 'rotate-2d', theirs), /wrong/);
    assert.match(await answer(p, 'rotate-2d', mine), /correct/);
    await gotoReady(p, `${lab.bases.http}?learner=${learner}#`);
    const [download] = await Promise.all([p.waitForEvent('download'), p.click('.grading-download')]);
    const file = join(dir, `${learner}.json`);
    await download.saveAs(file);
    const out = spawnSync(cliPath, ['grade', '--exercises', join(root, 'exercises'), file, '--format', 'json'], { encoding: 'utf8' });
    const row = JSON.parse(out.stdout).rows.find((r) => r.exercise === 'rope');
    assert.equal(row.status, 'graded', row.message);
    assert.equal(row.questions.find((q) => q.id === 'rotate-2d').solved, true);
    assert.equal(row.claimedDiffers, false);
    await ctx.close();
  }
});
