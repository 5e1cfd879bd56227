// The grading flow end to end in Node with the real wasm core: a student
// answers, reloads, answers more, downloads the submission, and the CLI's
// re-grade equals the page's score; statements go out through the bridge;
// another learner gets another variant.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { createAttemptStore } from '../../web/js/grading/attempt-store.js';
import { createLearner } from '../../web/js/grading/learner.js';
import { createEmbedBridge } from '../../web/js/grading/embed-bridge.js';
import { createGradingSession, callCore, PRACTICE_LEARNER, variantDependent } from '../../web/js/grading/session.js';
import { submissionText, parseSubmission } from '../../web/js/grading/submission.js';
import { FakeStorage, fakeClock, PostTarget } from './fakes.mjs';

const require = createRequire(import.meta.url);
const yaml = require('js-yaml');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const fixtures = path.join(root, 'tests/fixtures/exercises');
const wasmPath = path.resolve(process.env.POSLAB_WASM || path.join(root, 'build/wasm/poslab.js'));
const cliPath = path.resolve(process.env.POSLAB_CLI || path.join(root, 'build/native/poslab'));
const demo = yaml.load(fs.readFileSync(path.join(fixtures, 'grading-demo.yaml'), 'utf8'));
const LMS = 'https://lms.example.edu';

let lab;
before(async () => {
  lab = await require(wasmPath)();
});

// The right weight for scale s (x1 = (s, 0), x2 = (0, 1), identity weights, d_k = 2), by hand.
const rightWeight = (s) => {
  const a = Math.exp((s * s) / Math.SQRT2);
  return (a / (a + 1)).toFixed(3);
};

function page(storage, learnerId, clock) {
  const win = new EventTarget();
  win.parent = new PostTarget('course page');
  win.location = { href: `https://lab.example.org/index.html?exercise=grading-demo&embed=1&parentOrigin=${LMS}&learner=${learnerId}` };
  win.document = { documentElement: { getBoundingClientRect: () => ({ height: 800 }) } };
  const learner = createLearner({ href: win.location.href, storage: null });
  const store = createAttemptStore({ storage, now: clock.now });
  const bridge = createEmbedBridge({ window: win, learner: () => learner.id, now: () => clock.ms() });
  const session = createGradingSession({ core: lab, store, learner, bridge });
  const statements = () => win.parent.posted.filter((p) => p.data.action === 'xAPI').map((p) => p.data.statement);
  return { session, store, statements, parent: win.parent };
}

test('answer, reload, answer more, download: poslab grade agrees with the page', async () => {
  const storage = new FakeStorage();
  const clock = fakeClock();
  let p = page(storage, 'alice', clock);
  const opened = await p.session.open(demo);
  const s = opened.variant.scale;
  assert.ok([1, 2, 3].includes(s));
  assert.deepEqual([opened.grade.points, opened.grade.max], [0, 4]);
  assert.deepEqual(opened.attempts, []);

  clock.tick(4000);
  let r = await p.session.check(demo, 'weight', ['0.5']);
  assert.equal(r.result.status, 'incorrect');
  assert.deepEqual([r.question.points, r.question.max, r.question.attempts, r.question.solved], [0, 2, 1, false]);
  // After one wrong attempt: whatever the core unlocks for one (when a hint shows is the core's rule).
  const afterOne = lab.unlockedHints({ exercise: demo, question: 'weight', wrong: 1 });
  assert.equal(r.question.hintsUnlocked, afterOne.length);
  assert.deepEqual(r.hints, afterOne);
  r = await p.session.check(demo, 'weight', ['abc']);
  assert.equal(r.result.status, 'malformed');
  assert.equal(r.question, null);
  assert.equal(p.store.attempts({ learner: 'alice', id: 'grading-demo', contentHash: opened.contentHash }).length, 2, 'kept, though it costs no attempt');
  r = await p.session.check(demo, 'weight', ['0.4']);
  assert.deepEqual([r.question.attempts, r.question.hintsUnlocked], [2, 1]);
  assert.deepEqual(r.hints, [demo.blocks[0].hint], 'two wrong attempts: the file’s hint');
  p.session.draft(demo, 'weight', ['0.6']);

  // Reload: a new page on the same storage.
  p = page(storage, 'alice', clock);
  const again = await p.session.open(demo);
  assert.equal(again.seed, opened.seed);
  assert.equal(again.attempts.length, 3);
  assert.deepEqual(again.hints.weight, [demo.blocks[0].hint]);
  assert.deepEqual(again.grade.questions.find((q) => q.id === 'weight').attempts, 2);

  clock.tick(8500);
  r = await p.session.check(demo, 'weight', [rightWeight(s)]);
  assert.equal(r.result.status, 'correct');
  assert.deepEqual([r.question.points, r.question.solved, r.complete], [2, true, false]);
  r = await p.session.check(demo, 'property', ['equivariance']);
  assert.equal(r.grade.points, 3);
  // The task: three tokens from position 1022 go past the 1024-row table.
  r = await p.session.check(demo, 'wall', { positionOffset: 1022 });
  assert.equal(r.result.status, 'correct');
  assert.deepEqual([r.grade.points, r.grade.max, r.complete], [4, 4, true]);

  // Statements since the reload: three answered, then one completed.
  const st = p.statements();
  assert.deepEqual(st.map((x) => x.verb.id.split('/').pop()), ['answered', 'answered', 'answered', 'completed']);
  assert.deepEqual(st[0].result.score, { raw: 2, max: 2, min: 0, scaled: 1 });
  assert.equal(st[0].result.response, rightWeight(s));
  assert.equal(st[0].result.duration, 'PT8.5S', 'from open() to the answer');
  assert.deepEqual(st[3].result.score, { raw: 4, max: 4, min: 0, scaled: 1 });
  assert.equal(st[3].result.success, true);
  assert.equal(st[3].context.extensions['urn:position-lab:extension:seed'], opened.seed);
  assert.ok(p.parent.posted.every((x) => x.targetOrigin === LMS));
  assert.equal(await p.session.finish(demo), null, 'completed once');

  // Download, then the instructor's re-grade.
  const sub = await p.session.submission({ labVersion: '0.1.0', exercises: [demo] });
  assert.deepEqual(sub.exercises.map((e) => [e.id, e.contentHash, e.seed, e.claimed, e.attempts.length]), [['grading-demo', opened.contentHash, opened.seed, { points: 4, max: 4 }, 6]]);
  assert.deepEqual(parseSubmission(submissionText(sub), { learner: 'alice' }).exercises[0].attempts, sub.exercises[0].attempts);
  assert.ok(fs.existsSync(cliPath), `poslab CLI not built at ${cliPath} (set POSLAB_CLI)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'poslab-session-'));
  try {
    fs.writeFileSync(path.join(dir, 'alice.json'), submissionText(sub));
    const out = spawnSync(cliPath, ['grade', '--exercises', fixtures, path.join(dir, 'alice.json'), '--format', 'json'], { encoding: 'utf8' });
    assert.equal(out.status, 0, out.stderr);
    const row = JSON.parse(out.stdout).rows[0];
    assert.deepEqual([row.status, row.points, row.max, row.claimedDiffers], ['graded', 4, 4, false]);
    assert.deepEqual(row.questions, r.grade.questions, 'per question too');
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
});

test('another learner gets another variant, and alice’s answer is not right for bob', async () => {
  const clock = fakeClock();
  const seeds = new Map();
  for (const who of ['alice', 'bob', 'carol', 'dave']) seeds.set(who, (await page(new FakeStorage(), who, clock).session.open(demo)).seed);
  assert.equal(new Set(seeds.values()).size, 4);
  // Find two learners whose scales differ and check the first one's number on the second.
  const scale = (who) => lab.variant({ exercise: demo, learner: who }).variant.scale;
  const [a, b] = ['alice', 'bob', 'carol', 'dave'].flatMap((x, i, all) => all.slice(i + 1).map((y) => [x, y])).find(([x, y]) => scale(x) !== scale(y));
  const p = page(new FakeStorage(), b, clock);
  await p.session.open(demo);
  const r = await p.session.check(demo, 'weight', [rightWeight(scale(a))]);
  assert.equal(r.result.status, 'incorrect');
});

test('import merges a downloaded file into a fresh browser; reset keeps a backup', async () => {
  const clock = fakeClock();
  const first = page(new FakeStorage(), 'alice', clock);
  await first.session.open(demo);
  await first.session.check(demo, 'property', ['invariance']);
  const text = submissionText(await first.session.submission({ labVersion: '0.1.0', exercises: [demo] }));
  const storage = new FakeStorage();
  const second = page(storage, 'alice', clock);
  const r = second.session.import(text);
  assert.equal(r.added, 1);
  const v = await second.session.open(demo);
  assert.deepEqual(v.grade.questions.find((q) => q.id === 'property').attempts, 1);
  const reset = second.session.reset({ exerciseId: 'grading-demo' });
  assert.equal(reset.removed, 1);
  assert.ok(storage.getItem(reset.backupKey).includes('invariance'));
  await assert.rejects(second.session.check(demo, 'property', ['equivariance']), /open\(grading-demo\) first/);
  assert.deepEqual((await second.session.open(demo)).attempts, []);
});

test('callCore works with the wasm object and with the page’s core client', async () => {
  assert.equal(await callCore(lab, 'contentHash', { exercise: demo }), lab.contentHash({ exercise: demo }));
  const client = { call: async (method, args) => lab[method](args) };
  assert.equal(await callCore(client, 'contentHash', { exercise: demo }), lab.contentHash({ exercise: demo }));
  // Without a learner id an exercise opens as practice; a submission still needs an id.
  const noLearner = createGradingSession({ core: lab, store: createAttemptStore({ storage: new FakeStorage() }), learner: { id: null } });
  assert.equal((await noLearner.open(demo)).practice, true);
  await assert.rejects(noLearner.submission({ labVersion: 'test', exercises: [demo] }), /no learner id yet/);
});

test('practice answers (no learner id) are kept and carried into the learner’s record; variant-dependent ones are not', async () => {
  const storage = new FakeStorage();
  const store = createAttemptStore({ storage });
  const who = { id: null };
  const session = createGradingSession({ core: lab, store, learner: who });
  const opened = await session.open(demo);
  assert.equal(opened.practice, true);
  // The practice variant is the empty id's, as the page shows it.
  assert.deepEqual(opened.variant, lab.variant({ exercise: demo, learner: '' }).variant);
  await session.check(demo, 'property', ['invariance']);
  await session.check(demo, 'property', ['equivariance']);
  await session.check(demo, 'weight', ['0.5']); // depends on the variant ($scale)
  assert.equal(store.records({ learner: PRACTICE_LEARNER })[0].attempts.length, 3, 'kept under the practice key');
  assert.ok(variantDependent(demo, 'weight'));
  assert.ok(!variantDependent(demo, 'property'));
  assert.ok(!variantDependent(demo, 'wall'));
  // TeX in a prompt ($m - n$) is not a variant value; "$m" as an args value is.
  const tex = { variants: { m: {} }, blocks: [{ id: 'a', prompt: { ja: '$m - n$ が同じなら' } }, { id: 'b', check: { args: { position: '$m' } } }, { id: 'c', prompt: 'm = {{m}}' }] };
  assert.deepEqual(['a', 'b', 'c'].map((id) => variantDependent(tex, id)), [false, true, true]);

  who.id = 'hana';
  const r = await session.carryPractice({ exercises: [demo] });
  assert.equal(r.carried, 2);
  assert.deepEqual(r.redo, [{ exercise: 'grading-demo', question: 'weight' }]);
  const mine = store.records({ learner: 'hana' });
  assert.equal(mine.length, 1);
  assert.deepEqual(mine[0].attempts.map((a) => a.question), ['property', 'property']);
  assert.equal(mine[0].seed, lab.variant({ exercise: demo, learner: 'hana' }).seed, "the learner's own seed");
  // The claimed score is the core's, for the learner: property solved on the second try.
  const g = lab.gradeExercise({ exercise: demo, seed: mine[0].seed, attempts: mine[0].attempts });
  assert.deepEqual(mine[0].claimed, { points: g.points, max: g.max });
  assert.equal(g.questions.find((q) => q.id === 'property').solved, true);
  assert.deepEqual(store.records({ learner: PRACTICE_LEARNER }), [], 'practice cleared (a backup is kept)');
  assert.equal(store.backups().length, 1);
  // Nothing left to carry the second time; visits without answers leave no backup behind.
  assert.deepEqual(await session.carryPractice({ exercises: [demo] }), { carried: 0, redo: [] });
  who.id = null;
  await session.open(demo);
  who.id = 'hana';
  assert.deepEqual(await session.carryPractice({ exercises: [demo] }), { carried: 0, redo: [] });
  assert.equal(store.backups().length, 1, 'no backup of an empty practice record');
});
