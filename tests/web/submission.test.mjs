// The submission file: built in the exact format poslab grade reads (and
// graded by the real CLI, with the claimed score from the wasm core),
// downloaded without network, and validated on import (a bad file changes
// nothing; a good one merges without losing attempts).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { createAttemptStore } from '../../web/js/grading/attempt-store.js';
import { buildSubmission, submissionText, submissionFileName, downloadSubmission, parseSubmission, importSubmission, SubmissionError } from '../../web/js/grading/submission.js';
import { variantFor } from '../../web/js/grading/learner.js';
import { FakeStorage, fakeClock } from './fakes.mjs';

const require = createRequire(import.meta.url);
const yaml = require('js-yaml');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const fixtures = path.join(root, 'tests/fixtures/exercises');
// The same defaults as tests/wasm/helpers.mjs; POSLAB_WASM / POSLAB_CLI point elsewhere.
const wasmPath = path.resolve(process.env.POSLAB_WASM || path.join(root, 'build/wasm/poslab.js'));
const cliPath = path.resolve(process.env.POSLAB_CLI || path.join(root, 'build/native/poslab'));
const demo = yaml.load(fs.readFileSync(path.join(fixtures, 'grading-demo.yaml'), 'utf8'));

const HASH = '0123456789abcdef';
const ref = { learner: 'alice', id: 'hand-calc', contentHash: HASH };

function storeWith(attempts, clock = fakeClock()) {
  const storage = new FakeStorage();
  const store = createAttemptStore({ storage, now: clock.now });
  store.open({ ...ref, seed: 42 });
  for (const a of attempts) {
    clock.tick(1000);
    store.addAttempt(ref, a);
  }
  return { store, storage, clock };
}

let lab;
before(async () => {
  lab = await require(wasmPath)();
});

test('buildSubmission writes exactly the format poslab grade reads', () => {
  const { store } = storeWith([
    { question: 'dot', answer: ['0.5'] },
    { question: 'pick', answer: ['b', 'c'], lang: 'en' },
    { question: 'wall', answer: { positionOffset: 1023 }, lab: { pe: 'learned' } },
  ]);
  const sub = buildSubmission({ labVersion: '0.1.0', learner: 'alice', records: store.records({ learner: 'alice' }), grade: () => ({ points: 1.5, max: 3 }), now: new Date('2026-12-01T09:30:00Z') });
  assert.deepEqual(sub, {
    format: 'position-lab-submission',
    version: 1,
    labVersion: '0.1.0',
    learner: 'alice',
    createdAt: '2026-12-01T09:30:00.000Z',
    exercises: [
      {
        id: 'hand-calc',
        contentHash: HASH,
        seed: 42,
        claimed: { points: 1.5, max: 3 },
        attempts: [
          { question: 'dot', answer: ['0.5'], lab: {}, lang: 'ja', time: '2026-12-01T09:00:01.000Z' },
          { question: 'pick', answer: ['b', 'c'], lab: {}, lang: 'en', time: '2026-12-01T09:00:02.000Z' },
          { question: 'wall', answer: { positionOffset: 1023 }, lab: { pe: 'learned' }, lang: 'ja', time: '2026-12-01T09:00:03.000Z' },
        ],
      },
    ],
  });
  assert.equal(submissionFileName(sub), 'position-lab-alice-20261201-0930.json');
  assert.equal(submissionFileName({ ...sub, learner: '学籍 12/34' }), 'position-lab-学籍_12_34-20261201-0930.json');
  assert.throws(() => buildSubmission({ labVersion: '0.1.0', learner: 'bob', records: store.records() }), /belongs to learner alice, not bob/);
  assert.throws(() => buildSubmission({ labVersion: '', learner: 'alice', records: [] }), /labVersion must be a non-empty string/);
});

test('downloadSubmission saves a Blob through an object URL (no network), then revokes it', async () => {
  const { store } = storeWith([{ question: 'dot', answer: ['0.5'] }]);
  const sub = buildSubmission({ labVersion: '0.1.0', learner: 'alice', records: store.records(), now: new Date('2026-12-01T09:30:00Z') });
  const calls = [];
  let blob;
  let revokeLater;
  const anchor = { style: {}, click: () => calls.push('click'), remove: () => calls.push('remove') };
  const doc = { createElement: (tag) => (calls.push(`create ${tag}`), anchor), body: { append: (el) => calls.push(el === anchor ? 'append' : 'append?') } };
  const Url = {
    createObjectURL: (b) => ((blob = b), calls.push('createObjectURL'), 'blob:lab/1'),
    revokeObjectURL: (u) => calls.push(`revoke ${u}`),
  };
  const name = downloadSubmission(sub, { document: doc, URL: Url, Blob, later: (f) => (revokeLater = f) });
  assert.equal(name, 'position-lab-alice-20261201-0930.json');
  assert.deepEqual(calls, ['createObjectURL', 'create a', 'append', 'click', 'remove']);
  assert.equal(anchor.href, 'blob:lab/1');
  assert.equal(anchor.download, name);
  assert.equal(blob.type, 'application/json');
  assert.deepEqual(JSON.parse(await blob.text()), sub);
  revokeLater();
  assert.equal(calls.at(-1), 'revoke blob:lab/1');
});

// What must be refused, and the field each error names.
const base = () => ({
  format: 'position-lab-submission',
  version: 1,
  labVersion: '0.1.0',
  learner: 'alice',
  createdAt: '2026-12-01T09:30:00Z',
  exercises: [{ id: 'hand-calc', contentHash: HASH, seed: 42, claimed: { points: 1, max: 3 }, attempts: [{ question: 'dot', answer: ['0.5'], lab: {}, lang: 'ja', time: '2026-12-01T09:00:01Z' }] }],
});
const refusals = [
  ['not JSON', '{"format": "position-lab-submission", "version": 1, "learner": "dan", "exercises": [', 'not_json', undefined],
  ['another JSON file', '{"hello": "world"}', 'not_submission', undefined],
  ['a list', '[1, 2]', 'not_submission', undefined],
  ['version 2', (s) => (s.version = 2), 'version', undefined],
  ['no version', (s) => delete s.version, 'version', undefined],
  ['another learner', (s) => (s.learner = 'bob'), 'other_learner', undefined],
  ['an empty learner', (s) => (s.learner = ''), 'field', 'learner'],
  ['exercises not a list', (s) => (s.exercises = {}), 'field', 'exercises'],
  ['an exercise without id', (s) => delete s.exercises[0].id, 'field', 'exercises[0].id'],
  ['a bad content hash', (s) => (s.exercises[0].contentHash = 'xyz'), 'field', 'exercises[0].contentHash'],
  ['a negative seed', (s) => (s.exercises[0].seed = -3), 'field', 'exercises[0].seed'],
  ['a claimed score that is text', (s) => (s.exercises[0].claimed.points = '3'), 'field', 'exercises[0].claimed.points'],
  ['attempts not a list', (s) => (s.exercises[0].attempts = 'many'), 'field', 'exercises[0].attempts'],
  ['an attempt without question', (s) => s.exercises[0].attempts.push({ answer: ['1'] }), 'field', 'exercises[0].attempts[1].question'],
  ['an attempt without answer', (s) => s.exercises[0].attempts.push({ question: 'dot' }), 'field', 'exercises[0].attempts[1].answer'],
  ['an attempt in French', (s) => (s.exercises[0].attempts[0].lang = 'fr'), 'field', 'exercises[0].attempts[0].lang'],
  ['an attempt with a bad time', (s) => (s.exercises[0].attempts[0].time = 'yesterday'), 'field', 'exercises[0].attempts[0].time'],
  ['lab settings that are a list', (s) => (s.exercises[0].attempts[0].lab = []), 'field', 'exercises[0].attempts[0].lab'],
];

for (const [what, edit, code, field] of refusals) {
  test(`import refuses ${what} with a clear error and changes nothing`, () => {
    const { store, storage } = storeWith([{ question: 'dot', answer: ['0.7'] }]);
    let text = edit;
    if (typeof edit === 'function') {
      const s = base();
      edit(s);
      text = JSON.stringify(s);
    }
    const before = storage.snapshot();
    assert.throws(
      () => importSubmission(store, text, { learner: 'alice' }),
      (e) => {
        assert.ok(e instanceof SubmissionError, e.stack);
        assert.equal(e.code, code);
        assert.equal(e.field, field);
        if (field) {
          assert.ok(e.text.ja.includes(field) && e.text.en.includes(field), 'the message names the field');
          assert.match(e.text.en, /: it must be|: the answer is missing/);
        }
        assert.ok(e.text.ja.endsWith('何も変更していません。'));
        assert.ok(e.text.en.endsWith('Nothing was changed.'));
        return true;
      },
    );
    assert.deepEqual(storage.snapshot(), before);
  });
}

test('the errors say what was found: version, learners, JSON detail', () => {
  const s = base();
  s.version = 2;
  assert.throws(() => parseSubmission(JSON.stringify(s)), /version 2 is not supported \(this lab reads version 1\)/);
  s.version = 1;
  s.learner = 'bob';
  assert.throws(() => parseSubmission(JSON.stringify(s), { learner: 'alice' }), /another learner’s submission \(bob\); the current learner is alice/);
  // Without a current learner, any learner's file is readable (e.g. on a fresh browser).
  assert.equal(parseSubmission(JSON.stringify(s)).learner, 'bob');
  assert.throws(() => parseSubmission('{'), (e) => e.code === 'not_json' && /not readable JSON \(/.test(e.message));
});

test('a valid file merges into the store without losing any attempt', () => {
  const clock = fakeClock();
  const { store, storage } = storeWith([{ question: 'dot', answer: ['0.7'] }, { question: 'dot', answer: ['0.71'] }], clock);
  const here = store.attempts(ref);
  const s = base();
  // One attempt already here, one new; and an exercise this browser has not seen.
  s.exercises[0].attempts = [here[1], { question: 'dot', answer: ['0.707'], lab: {}, lang: 'en', time: '2026-12-01T09:00:05.000Z' }];
  s.exercises.push({ id: 'rope', contentHash: 'fedcba9876543210', seed: 9, attempts: [{ question: 'rot', answer: ['1', '0'], time: '2026-12-01T08:00:00.000Z' }] });
  const r = importSubmission(store, JSON.stringify(s), { learner: 'alice' });
  assert.equal(r.exercises, 2);
  assert.equal(r.added, 2);
  assert.match(r.message.ja, /演習 2 件、新しい回答 2 件/);
  assert.deepEqual(store.attempts(ref).map((a) => a.answer[0]), ['0.7', '0.71', '0.707']);
  const rope = { learner: 'alice', id: 'rope', contentHash: 'fedcba9876543210' };
  assert.deepEqual(store.record(rope).seed, 9);
  assert.deepEqual(store.attempts(rope)[0], { question: 'rot', answer: ['1', '0'], lab: {}, lang: 'ja', time: '2026-12-01T08:00:00.000Z' });
  // Persisted: a reload sees the merged attempts.
  assert.equal(createAttemptStore({ storage }).attempts(ref).length, 3);
  // Importing the same file again adds nothing.
  assert.equal(importSubmission(store, JSON.stringify(s), { learner: 'alice' }).added, 0);
});

test('download → import round trip on a fresh browser restores the same records', () => {
  const { store } = storeWith([{ question: 'dot', answer: ['0.5'] }, { question: 'wall', answer: { positionOffset: 3 }, lab: { pe: 'learned', d: 8 } }]);
  const sub = buildSubmission({ labVersion: '0.1.0', learner: 'alice', records: store.records() });
  const fresh = createAttemptStore({ storage: new FakeStorage() });
  importSubmission(fresh, submissionText(sub), { learner: 'alice' });
  assert.deepEqual(fresh.attempts(ref), store.attempts(ref));
  assert.equal(fresh.record(ref).seed, 42);
});

// The real re-grade. Expected points worked out by hand: weight 2 points
// (wrong, malformed — no attempt —, then right within max_attempts 3), the
// choice 1, the task 1 (three tokens from position 1022 reach 1024, past
// the 1024-row learned table).
test('a submission the page builds is graded by poslab grade, and its claimed score agrees', async () => {
  assert.ok(fs.existsSync(cliPath), `poslab CLI not built at ${cliPath} (set POSLAB_CLI)`);
  const learner = 'alice';
  const v = await variantFor(lab, demo, learner);
  assert.equal(v.contentHash, lab.contentHash({ exercise: demo }));
  const s = v.variant.scale;
  const a = Math.exp((s * s) / Math.SQRT2);
  const w = (a / (a + 1)).toFixed(3);
  const store = createAttemptStore({ storage: new FakeStorage(), now: fakeClock().now });
  const r = { learner, id: demo.id, contentHash: v.contentHash };
  store.open({ ...r, seed: v.seed });
  for (const attempt of [
    { question: 'weight', answer: ['0.5'] },
    { question: 'weight', answer: ['abc'] },
    { question: 'weight', answer: [w] },
    { question: 'property', answer: ['equivariance'] },
    { question: 'wall', answer: { positionOffset: 1022 }, lab: {} },
  ])
    store.addAttempt(r, attempt);
  // An older version of the exercise, answered before it was edited.
  store.open({ ...r, contentHash: '00000000deadbeef', seed: 1 });
  store.addAttempt({ ...r, contentHash: '00000000deadbeef' }, { question: 'weight', answer: ['0.9'] });

  const grade = (rec) => {
    const g = lab.gradeExercise({ exercise: demo, seed: rec.seed, attempts: rec.attempts });
    return { points: g.points, max: g.max };
  };
  const current = buildSubmission({ labVersion: '0.1.0', learner, records: store.records({ learner }).filter((x) => x.contentHash === v.contentHash), grade });
  assert.deepEqual(current.exercises[0].claimed, { points: 4, max: 4 }, 'the page (wasm core) scores 2 + 1 + 1');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'poslab-submission-'));
  try {
    const file = path.join(dir, submissionFileName(current));
    fs.writeFileSync(file, submissionText(current));
    let out = spawnSync(cliPath, ['grade', '--exercises', fixtures, file, '--format', 'json'], { encoding: 'utf8' });
    assert.equal(out.status, 0, out.stderr);
    let rows = JSON.parse(out.stdout).rows;
    assert.equal(rows.length, 1);
    assert.deepEqual([rows[0].status, rows[0].learner, rows[0].exercise, rows[0].points, rows[0].max, rows[0].claimedPoints, rows[0].claimedDiffers, rows[0].message], ['graded', 'alice', 'grading-demo', 4, 4, 4, false, '']);
    const weight = rows[0].questions.find((q) => q.id === 'weight');
    assert.equal(weight.attempts, 2, 'the malformed answer cost no attempt');
    assert.equal(weight.solved, true);

    // A tampered claim is flagged; a file with every version reports the old one per row.
    const tampered = JSON.parse(submissionText(current));
    tampered.exercises[0].claimed.points = 3;
    fs.writeFileSync(path.join(dir, 'tampered.json'), JSON.stringify(tampered));
    const all = buildSubmission({ labVersion: '0.1.0', learner, records: store.records({ learner }), grade });
    fs.writeFileSync(path.join(dir, 'all.json'), submissionText(all));
    out = spawnSync(cliPath, ['grade', '--exercises', fixtures, path.join(dir, 'tampered.json'), path.join(dir, 'all.json'), '--format', 'json'], { encoding: 'utf8' });
    assert.equal(out.status, 1, 'some rows not graded');
    rows = JSON.parse(out.stdout).rows;
    assert.deepEqual(rows.map((x) => [path.basename(x.file), x.status, x.points, x.claimedDiffers]).sort(), [
      ['all.json', 'graded', 4, false],
      ['all.json', 'hash_mismatch', null, null],
      ['tampered.json', 'graded', 4, true],
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
});
