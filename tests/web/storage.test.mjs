// Hostile storage and imports: a damaged poslab.progress.v1, damaged or
// enormous attempt records, a full quota, deeply nested imported answers and
// imported attempts without their lab settings. Nothing may throw into the
// page; what is valid is kept, what is not is dropped with a warning; an
// attempt is never reported saved when it was not.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { createProgress, cleanProgress, KEY as PROGRESS_KEY } from '../../web/js/progress.js';
import { createAttemptStore, withinLimits, recordKey } from '../../web/js/grading/attempt-store.js';
import { createLearner } from '../../web/js/grading/learner.js';
import { createGradingSession } from '../../web/js/grading/session.js';
import { buildSubmission, importSubmission, parseSubmission, submissionText, SubmissionError } from '../../web/js/grading/submission.js';
import { FakeStorage, fakeClock, domException } from './fakes.mjs';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const wasmPath = path.resolve(process.env.POSLAB_WASM || path.join(root, 'build/wasm/poslab.js'));
const HASH = '0123456789abcdef';
// A JSON text nested n arrays deep (built as text: JSON.stringify of such a value would overflow).
const deepText = (n) => '['.repeat(n) + '"x"' + ']'.repeat(n);

let lab;
let exercises;
before(async () => {
  lab = await require(wasmPath)();
  exercises = JSON.parse(fs.readFileSync(path.join(root, 'dist', 'exercises.json'), 'utf8')).map(({ file, ...data }) => data);
});
const exercise = (id) => exercises.find((e) => e.id === id);
const handCalc = { id: 'hand-calc', blocks: [{ type: 'numeric', id: 'dots-a' }, { type: 'numeric', id: 'dots-b' }] };

test('progress.v1 of the wrong shape ({"hand-calc": 5}, 5, "abc", a list, bad types) loads as empty or partial, with a warning, and the page functions work', () => {
  for (const raw of ['{"hand-calc": 5}', '5', '"abc"', 'abc', '[1,2]', 'null', 'true', '{"hand-calc": null}', '{"hand-calc": {"questions": 5}}', '{"hand-calc": {"questions": {"dots-a": 5}}}']) {
    const storage = new FakeStorage({ [PROGRESS_KEY]: raw });
    const p = createProgress({ storage });
    // Each of these threw a TypeError (and blanked the exercise page) before.
    p.visit('hand-calc');
    assert.deepEqual(p.record('hand-calc', 'dots-a', { answer: ['1', '0'], correct: true }), { saved: true, reason: null }, raw);
    assert.equal(p.isCorrect('hand-calc', 'dots-a'), true);
    assert.equal(p.status(handCalc), 'in_progress');
    if (raw !== 'null') assert.equal(p.warnings[0]?.code, 'progress_dropped', raw);
    // What is written back is clean.
    assert.deepEqual(Object.keys(JSON.parse(storage.getItem(PROGRESS_KEY))), ['hand-calc']);
  }
});

test('progress.v1: the valid part is kept, each invalid part dropped and counted', () => {
  const raw = JSON.stringify({
    'hand-calc': {
      visited: true,
      questions: {
        'dots-a': { correct: true, attempts: [{ answer: ['1', '0'], correct: true, at: '2026-11-30T10:00:00Z' }] },
        // correct claimed with no correct attempt kept: not believed (1)
        'dots-b': { correct: true, attempts: [{ answer: ['0'], correct: false }, 'junk'] }, // 'junk' (1)
      },
    },
    rope: 7, // (1)
    '': { visited: true }, // (1)
  });
  const { data, dropped } = cleanProgress(raw);
  assert.equal(dropped, 4);
  assert.equal(data['hand-calc'].questions['dots-a'].correct, true);
  assert.equal(data['hand-calc'].questions['dots-b'].correct, false);
  assert.equal(data['hand-calc'].questions['dots-b'].attempts.length, 1);
  assert.deepEqual(Object.keys(data), ['hand-calc']);
  // A deeply nested answer (200 000 levels) is dropped without overflowing anything.
  const deep = `{"hand-calc":{"visited":true,"questions":{"dots-a":{"correct":true,"attempts":[{"correct":true,"answer":${deepText(200000)}}]}}}}`;
  const got = cleanProgress(deep);
  assert.equal(got.dropped, 2); // the attempt, and the "correct" it claimed
  assert.equal(got.data['hand-calc'].questions['dots-a'].correct, false);
  assert.ok(JSON.stringify(got.data).length < 200);
  // Too big a value is not parsed at all.
  assert.equal(cleanProgress('{"a":"' + 'x'.repeat(2_000_001) + '"}').dropped, 1);
});

test('progress: a full quota is reported (never "saved"), and nothing is written after the failure', () => {
  const storage = new FakeStorage();
  const p = createProgress({ storage, now: fakeClock().now });
  p.visit('hand-calc');
  storage.failSet = domException('QuotaExceededError');
  assert.deepEqual(p.record('hand-calc', 'dots-a', { answer: ['1', '0'], correct: true }), { saved: false, reason: 'full' });
  assert.equal(p.failure, 'full');
  // Room again: still nothing written in this visit, so a reload cannot show half of it.
  storage.failSet = null;
  const writes = storage.writes.length;
  p.visit('rope');
  assert.equal(storage.writes.length, writes);
  assert.equal(createProgress({ storage }).isCorrect('hand-calc', 'dots-a'), false, 'after a reload nothing claims the unsaved attempt');
  // persist: false (the grading store did not keep it): not written either.
  const s2 = new FakeStorage();
  const p2 = createProgress({ storage: s2 });
  assert.deepEqual(p2.record('hand-calc', 'dots-a', { answer: ['1', '0'], correct: true }, { persist: false }), { saved: false, reason: 'unavailable' });
  p2.visit('rope');
  assert.equal(s2.getItem(PROGRESS_KEY), null);
  // A storage that cannot be read at all.
  const s3 = new FakeStorage();
  s3.failGet = domException('SecurityError');
  const p3 = createProgress({ storage: s3 });
  assert.equal(p3.record('x', 'q', { answer: [], correct: false }).reason, 'unavailable');
});

test('the attempt store takes progress.v1 for what it is (current data, not legacy): no warning on any visit', () => {
  const storage = new FakeStorage();
  for (let visit = 1; visit <= 4; visit++) {
    const store = createAttemptStore({ storage, now: fakeClock().now });
    assert.deepEqual(store.warnings.map((w) => w.code), [], `visit ${visit}`);
    // What the page does on each visit: progress.js writes its key.
    storage.setItem('poslab.progress.v1', JSON.stringify({ 'hand-calc': { visited: true, questions: {} } }));
  }
});

test('withinLimits: depth, size, and non-JSON values', () => {
  assert.equal(withinLimits(['0.5', '1']), null);
  assert.equal(withinLimits({ pe: 'rope', d: 8, causal: true }), null);
  assert.equal(withinLimits(JSON.parse(deepText(8))), null); // 8 containers
  assert.equal(withinLimits(JSON.parse(deepText(9))), 'too_deep');
  assert.equal(withinLimits(JSON.parse(deepText(200000))), 'too_deep');
  assert.equal(withinLimits('x'.repeat(10001)), 'too_large');
  assert.equal(withinLimits(new Array(10001).fill(0)), 'too_large');
  assert.equal(withinLimits(Infinity), 'not_json');
  assert.equal(withinLimits(new Date()), 'not_json');
});

test('a stored record with a deeply nested answer: that attempt is dropped (set aside), the rest kept, and downloads still work', () => {
  const clock = fakeClock();
  const key = recordKey({ learner: 'alice', id: 'hand-calc', contentHash: HASH });
  const good = '{"question":"dots-a","answer":["1","0"],"lab":{},"lang":"ja","time":"2026-11-30T10:00:00.000Z"}';
  const raw = `{"format":"position-lab-attempts","version":1,"learner":"alice","id":"hand-calc","contentHash":"${HASH}","seed":1,"attempts":[${good},{"question":"dots-b","answer":${deepText(200000)},"lab":{},"lang":"ja"}],"drafts":{"dots-b":${deepText(50)}}}`;
  const storage = new FakeStorage({ [key]: raw });
  const store = createAttemptStore({ storage, now: clock.now });
  assert.equal(store.warnings[0].code, 'storage_recovered');
  assert.equal(store.warnings[0].kept, 1);
  assert.equal(store.warnings[0].dropped, 1);
  const records = store.records({ learner: 'alice' });
  assert.equal(records[0].attempts.length, 1);
  assert.deepEqual(records[0].drafts, {});
  const text = submissionText(buildSubmission({ labVersion: '1', learner: 'alice', records, now: clock.now() }));
  assert.equal(parseSubmission(text).exercises[0].attempts.length, 1);
});

test('an imported answer nested 200 000 deep is refused, naming the field; nothing changes and later downloads work', () => {
  const clock = fakeClock();
  const store = createAttemptStore({ storage: new FakeStorage(), now: clock.now });
  const file = `{"format":"position-lab-submission","version":1,"learner":"alice","exercises":[{"id":"hand-calc","contentHash":"${HASH}","seed":1,"attempts":[{"question":"dots-a","answer":${deepText(200000)}}]}]}`;
  let err;
  try {
    importSubmission(store, file, { learner: 'alice' });
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof SubmissionError, String(err));
  assert.equal(err.field, 'exercises[0].attempts[0].answer');
  assert.equal(err.params.problem, 'too_deep');
  assert.deepEqual(store.records(), []);
  // Too many attempts, or a lab nested too deep, are refused the same way.
  const many = { format: 'position-lab-submission', version: 1, learner: 'alice', exercises: [{ id: 'x', contentHash: HASH, attempts: new Array(5001).fill({ question: 'q', answer: ['1'] }) }] };
  assert.throws(() => parseSubmission(JSON.stringify(many)), (e) => e.field === 'exercises[0].attempts' && e.params.problem === 'too_large');
  const deepLab = `{"format":"position-lab-submission","version":1,"learner":"alice","exercises":[{"id":"x","contentHash":"${HASH}","attempts":[{"question":"q","answer":["1"],"lab":{"a":${deepText(20)}}}]}]}`;
  assert.throws(() => parseSubmission(deepLab), (e) => e.field === 'exercises[0].attempts[0].lab' && e.params.problem === 'too_deep');
  // A normal import afterwards, and a download, work.
  store.open({ learner: 'alice', id: 'hand-calc', contentHash: HASH });
  store.addAttempt({ learner: 'alice', id: 'hand-calc', contentHash: HASH }, { question: 'dots-a', answer: ['1', '0'] });
  assert.ok(submissionText(buildSubmission({ labVersion: '1', learner: 'alice', records: store.records(), now: clock.now() })).length > 0);
});

function session(storage, learnerId = 'alice') {
  const clock = fakeClock();
  const store = createAttemptStore({ storage, now: clock.now });
  const learner = createLearner({ href: `https://lab.example.org/index.html?learner=${learnerId}`, storage: null });
  return { store, session: createGradingSession({ core: lab, store, learner }) };
}

test('with the quota full, check() says the attempt was not saved (notSaved: "full"), and a reload has no such attempt', async () => {
  const storage = new FakeStorage();
  const { session: s } = session(storage);
  const ex = exercise('hand-calc');
  await s.open(ex);
  const ok = await s.check(ex, 'dots-a', ['1', '0'], { lab: {}, lang: 'ja' });
  assert.equal(ok.notSaved, null);
  storage.failSet = domException('QuotaExceededError');
  const full = await s.check(ex, 'dots-b', ['0', '1'], { lab: {}, lang: 'ja' });
  assert.equal(full.notSaved, 'full');
  storage.failSet = null;
  const again = session(storage);
  const view = await again.session.open(ex);
  assert.deepEqual(view.attempts.map((a) => a.question), ['dots-a']);
});

test('imported attempts without lab settings (a task the core cannot re-run without them) do not break the exercise or the download', async () => {
  const storage = new FakeStorage();
  const { store, session: s } = session(storage);
  const ex = exercise('add-position');
  const task = ex.blocks.find((b) => b.type === 'task');
  const v = lab.variant({ exercise: ex, learner: 'alice' });
  // As an imported file gives them: no lab.
  const file = JSON.stringify({ format: 'position-lab-submission', version: 1, learner: 'alice', exercises: [{ id: ex.id, contentHash: v.contentHash, seed: v.seed, attempts: [{ question: task.id, answer: {} }] }] });
  importSubmission(store, file, { learner: 'alice' });
  // The core refuses to grade it as it is…
  assert.throws(() => lab.gradeExercise({ exercise: ex, seed: v.seed, attempts: store.attempts({ learner: 'alice', id: ex.id, contentHash: v.contentHash }) }));
  // …yet the page opens the exercise (this threw before), and says how many it left out.
  const view = await s.open(ex);
  assert.equal(view.unusable, 1);
  assert.equal(view.grade.points, 0);
  assert.equal(view.attempts.length, 1, 'the attempt is still kept');
  const sub = await s.submission({ labVersion: '1', exercises });
  assert.equal(sub.exercises[0].attempts.length, 1);
  assert.deepEqual(sub.exercises[0].attempts[0].lab, {});
});

test('a damaged stored learner id (control characters, a megabyte, empty after trimming) is not used, and says so', () => {
  for (const bad of ['bad\u0001id', 'x'.repeat(1_000_000), '   ']) {
    const learner = createLearner({ href: 'https://lab.example.org/index.html', storage: new FakeStorage({ 'poslab.learner.v1': bad }) });
    assert.equal(learner.id, null);
    assert.equal(learner.editable, true);
    assert.deepEqual(learner.warnings.map((w) => w.code), ['learner_dropped']);
  }
  const good = createLearner({ href: 'https://lab.example.org/index.html', storage: new FakeStorage({ 'poslab.learner.v1': 'alice' }) });
  assert.equal(good.id, 'alice');
  assert.deepEqual(good.warnings, []);
});

test('merging imports never grows a record past the attempts a reload keeps', () => {
  const store = createAttemptStore({ storage: new FakeStorage(), now: fakeClock().now });
  const ref = { learner: 'alice', id: 'hand-calc', contentHash: HASH };
  const batch = (from) => Array.from({ length: 3000 }, (_, i) => ({ question: 'dots-a', answer: [String(from + i)], lab: {}, lang: 'ja' }));
  store.merge({ ...ref, attempts: batch(0) });
  const { added } = store.merge({ ...ref, attempts: batch(3000) });
  assert.equal(added, 2000);
  assert.equal(store.attempts(ref).length, 5000);
});
