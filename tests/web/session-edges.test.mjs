// The grading session's own logic (issue #23) with a small fake core whose
// grades are worked out by hand below: each question is worth 2 points when
// one of its attempts is "right"; every wrong attempt unlocks one hint (at most
// two). The real core is exercised end to end in session.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createAttemptStore } from '../../web/js/grading/attempt-store.js';
import { createGradingSession, callCore, PRACTICE_LEARNER, variantDependent } from '../../web/js/grading/session.js';
import { FakeStorage, fakeClock, domException } from './fakes.mjs';

const exercise = (id, blocks = [{ id: 'a', type: 'numeric', prompt: { ja: '$x$ は？', en: 'What is **x**?' } }, { id: 'b', type: 'choice' }], extra = {}) => ({ id, title: { ja: id, en: id }, blocks, ...extra });

// The fake core. Seeds: 0 for the empty (practice) id, else the id's length.
function fakeCore({ hashOf = (ex) => `h-${ex.id}`, optionOrders } = {}) {
  const calls = [];
  const gradeOf = ({ exercise: ex, attempts }) => {
    if (attempts.some((x) => x === null || typeof x !== 'object')) throw new Error('an attempt must be an object');
    if (attempts.some((x) => x.answer === 'poison')) throw new Error('cannot grade');
    if (attempts.filter((x) => x.answer === 'fragile').length >= 2) throw new Error('cannot grade these together');
    const questions = ex.blocks.map((b) => {
      const mine = attempts.filter((x) => x.question === b.id);
      const solved = mine.some((x) => x.answer === 'right');
      const wrong = mine.filter((x) => x.answer !== 'right').length;
      return { id: b.id, points: solved ? 2 : 0, max: 2, attempts: mine.length, solved, hintsUnlocked: Math.min(wrong, 2) };
    });
    return { points: questions.reduce((s, q) => s + q.points, 0), max: 2 * questions.length, questions };
  };
  const core = {
    calls,
    variant: ({ exercise: ex, learner }) => ({ contentHash: hashOf(ex), seed: learner.length, variant: { n: learner.length }, ...(optionOrders ? { optionOrders } : {}) }),
    checkAttempt: ({ answer }) => (answer === 'bad' ? { status: 'malformed', score: 0 } : answer === 'right' ? { status: 'correct', score: 1 } : { status: 'incorrect', score: answer === 'half' ? 0.5 : 0 }),
    gradeExercise: (args) => {
      calls.push(args.attempts.length);
      return gradeOf(args);
    },
    unlockedHints: ({ question, wrong }) => Array.from({ length: Math.min(wrong, 2) }, (_, i) => `${question}-hint${i + 1}`),
    contentHash: ({ exercise: ex }) => hashOf(ex),
  };
  return core;
}

function fakeBridge() {
  const sent = [];
  return {
    sent,
    opened: (id) => sent.push(['opened', id]),
    answered: (s) => sent.push(['answered', s]),
    completed: (s) => {
      sent.push(['completed', s]);
      return 'sent';
    },
  };
}

function setup({ learnerId = 'alice', core = fakeCore(), storage = new FakeStorage(), bridge = fakeBridge() } = {}) {
  const learner = { id: learnerId };
  const store = createAttemptStore({ storage, now: fakeClock().now });
  const session = createGradingSession({ core, store, learner, bridge });
  return { learner, store, session, core, bridge, storage };
}

test('variantDependent: "$n" as a whole value or {{n}} / {{n.0}} in a text, only for a named variant', () => {
  const ex = { variants: { q: [1, 2] }, blocks: [
    { id: 'args', args: { v: '$q' } },
    { id: 'tex', prompt: { ja: '$q$ を求めよ', en: 'find $q$' } },
    { id: 'mustache', prompt: { ja: '{{q}} の値', en: '{{q}}' } },
    { id: 'index', prompt: { en: 'the first is {{q.0}}' } },
    { id: 'longer', args: { v: '$qq' }, prompt: { en: '{{qq}}' } },
  ] };
  assert.deepEqual(ex.blocks.map((b) => variantDependent(ex, b.id)), [true, false, true, true, false]);
  assert.equal(variantDependent(ex, 'missing'), false);
  assert.equal(variantDependent({ blocks: ex.blocks }, 'args'), false, 'no variants');
  assert.equal(variantDependent({ variants: {}, blocks: ex.blocks }, 'args'), false);
  assert.equal(variantDependent(undefined, 'args'), false);
  assert.equal(variantDependent({ variants: { q: 1 } }, 'args'), false, 'no blocks');
  assert.equal(variantDependent({ variants: { r: 1, q: 1 }, blocks: ex.blocks }, 'args'), true, 'one of two names is enough');
});

test('callCore: the method when there is one, else call(method, args)', async () => {
  assert.equal(await callCore({ twice: (x) => x * 2 }, 'twice', 4), 8);
  assert.deepEqual(await callCore({ call: async (m, a) => [m, a] }, 'twice', 4), ['twice', 4]);
});

test('open: the variant, seed, hash and an empty grade; practice without a learner', async () => {
  const { session, bridge } = setup({ core: fakeCore({ optionOrders: { b: ['y', 'x'] } }) });
  const v = await session.open(exercise('e'));
  assert.deepEqual({ ...v, grade: undefined }, { contentHash: 'h-e', seed: 5, variant: { n: 5 }, optionOrders: { b: ['y', 'x'] }, grade: undefined, hints: { a: [], b: [] }, attempts: [], drafts: {}, unusable: 0, practice: false });
  assert.deepEqual([v.grade.points, v.grade.max], [0, 4]);
  assert.deepEqual(bridge.sent, [['opened', 'e']]);

  const p = setup({ learnerId: null });
  const pv = await p.session.open(exercise('e'));
  assert.deepEqual([pv.seed, pv.practice, pv.optionOrders], [0, true, {}]);
  assert.deepEqual(p.bridge.sent, [], 'practice is not reported');
  assert.equal(p.store.records({ learner: PRACTICE_LEARNER }).length, 1);
});

test('check: result, grade, hints, claimed; complete sends completed once all are solved', async () => {
  const { session, store, bridge } = setup();
  const ex = exercise('e');
  await session.open(ex);
  const w1 = await session.check(ex, 'a', 'wrong');
  assert.deepEqual([w1.result.status, w1.question.points, w1.grade.points, w1.hints, w1.complete, w1.notSaved], ['incorrect', 0, 0, ['a-hint1'], false, null]);
  const w2 = await session.check(ex, 'a', 'half');
  assert.deepEqual(w2.hints, ['a-hint1', 'a-hint2']);
  const answered = bridge.sent.filter(([k]) => k === 'answered').map(([, s]) => s);
  assert.deepEqual(answered[1], {
    exercise: { id: 'e', title: { ja: 'e', en: 'e' }, contentHash: 'h-e', seed: 5 },
    question: { id: 'a', type: 'numeric', prompt: { ja: 'x は？', en: 'What is x?' } },
    score: { raw: 1, max: 2 }, // 0.5 × 2
    success: false,
    answer: 'half',
  });
  const r1 = await session.check(ex, 'a', 'right');
  assert.deepEqual([r1.result.status, r1.question.points, r1.grade.points, r1.complete], ['correct', 2, 2, false]);
  assert.equal(bridge.sent.at(-1)[1].success, true);
  assert.deepEqual(store.record({ learner: 'alice', id: 'e', contentHash: 'h-e' }).claimed, { points: 2, max: 4 });
  assert.ok(!bridge.sent.some(([k]) => k === 'completed'));
  const r2 = await session.check(ex, 'b', 'right');
  assert.equal(r2.complete, true);
  assert.deepEqual(bridge.sent.at(-2)[1].question, { id: 'b', type: 'choice', prompt: undefined });
  assert.deepEqual(bridge.sent.at(-1), ['completed', { exercise: { id: 'e', title: { ja: 'e', en: 'e' }, contentHash: 'h-e', seed: 5 }, score: { raw: 4, max: 4 }, success: true }]);
  assert.equal(r2.hints.length, 0, 'no wrong answer to b: no hint');
});

test('check: a malformed answer is kept but grades nothing; a block without prompt still reports', async () => {
  const { session, store, bridge } = setup();
  const ex = exercise('e', [{ id: 'a', type: 'numeric' }]);
  await session.open(ex);
  const m = await session.check(ex, 'a', 'bad');
  assert.deepEqual({ ...m, result: undefined }, { result: undefined, question: null, grade: null, hints: [], complete: false, notSaved: null });
  assert.equal(store.attempts({ learner: 'alice', id: 'e', contentHash: 'h-e' }).length, 1);
  assert.deepEqual(bridge.sent.filter(([k]) => k === 'answered'), []);
  await session.check(ex, 'a', 'wrong');
  assert.deepEqual(bridge.sent.at(-1)[1].question, { id: 'a', type: 'numeric', prompt: undefined });
});

test('check: only after open, and again after the learner changed; practice is not reported', async () => {
  const { session, learner, bridge } = setup({ learnerId: null });
  const ex = exercise('e');
  await assert.rejects(session.check(ex, 'a', 'right'), /open\(e\) first/);
  await session.open(ex);
  const r = await session.check(ex, 'a', 'right');
  const s = await session.check(ex, 'b', 'right');
  assert.deepEqual([r.question.points, s.complete, s.grade.points], [2, false, 4], 'practice never completes');
  assert.deepEqual(bridge.sent, []);
  learner.id = 'bob';
  await assert.rejects(session.check(ex, 'a', 'right'), /after the learner changed/);
});

test('check: notSaved says why an attempt lasts only for the visit', async () => {
  const storage = new FakeStorage();
  const { session } = setup({ storage });
  const ex = exercise('e');
  await session.open(ex);
  storage.failSet = domException('QuotaExceededError');
  assert.equal((await session.check(ex, 'a', 'wrong')).notSaved, 'full');
  assert.equal((await session.check(ex, 'a', 'bad')).notSaved, 'full');
});

test('onResult: every graded attempt, not malformed ones; a failing listener does not undo the check; unsubscribe', async () => {
  const { session } = setup();
  const ex = exercise('e');
  await session.open(ex);
  const seen = [];
  const warn = console.warn;
  const warned = [];
  console.warn = (...a) => warned.push(a[0]);
  try {
    session.onResult(() => {
      throw new Error('LMS gone');
    });
    const off = session.onResult((e) => seen.push([e.questionId, e.type, e.answer, e.result.status, e.question.points, e.grade.points, e.complete, e.contentHash, e.seed]));
    await session.check(ex, 'a', 'bad');
    const r = await session.check(ex, 'a', 'right');
    assert.equal(r.question.points, 2);
    assert.deepEqual(seen, [['a', 'numeric', 'right', 'correct', 2, 2, false, 'h-e', 5]]);
    assert.deepEqual(warned, ['grading session: onResult listener failed']);
    off();
    await session.check(ex, 'b', 'wrong');
    assert.equal(seen.length, 1);
  } finally {
    console.warn = warn;
  }
});

test('grading what the core cannot grade together: each alone, the refused ones counted as unusable', async () => {
  const storage = new FakeStorage();
  const { session, store } = setup({ storage });
  const ex = exercise('e');
  const ref = { learner: 'alice', id: 'e', contentHash: 'h-e' };
  store.open(ref);
  store.merge({ ...ref, attempts: [{ question: 'a', answer: 'poison' }, { question: 'a', answer: 'right' }] });
  const v = await session.open(ex);
  assert.deepEqual([v.unusable, v.grade.points], [1, 2]);
  const s2 = setup();
  s2.store.open(ref);
  s2.store.merge({ ...ref, attempts: [{ question: 'a', answer: 'fragile' }, { question: 'b', answer: 'fragile' }, { question: 'b', answer: 'right' }] });
  // Each alone grades, the two fragile ones together do not: nothing usable is graded but the empty list.
  const v2 = await s2.session.open(ex);
  assert.deepEqual([v2.unusable, v2.grade.points], [3, 0]);
  const s3 = setup({ core: { ...fakeCore(), gradeExercise: () => { throw new Error('core down'); } } });
  await assert.rejects(s3.session.open(ex), /core down/, 'no attempts: the error itself');
});

test('check on a question the grade does not list: no hints (practice)', async () => {
  const { session } = setup({ learnerId: null });
  const ex = exercise('e');
  await session.open(ex);
  const r = await session.check(ex, 'zz', 'wrong');
  assert.deepEqual([r.question, r.hints], [undefined, []]);
});

test('hints: none when the core gives no count that matches', async () => {
  const core = { ...fakeCore(), unlockedHints: () => ['only-one-ever'] };
  const { session } = setup({ core });
  const ex = exercise('e');
  await session.open(ex);
  await session.check(ex, 'a', 'wrong');
  const r = await session.check(ex, 'a', 'wrong');
  assert.deepEqual(r.hints, [], 'two unlocked but the core never lists two');
});

test('finish: null before open and without a bridge; grades when not given a grade', async () => {
  const { session, bridge } = setup();
  const ex = exercise('e');
  assert.equal(await session.finish(ex), null);
  await session.open(ex);
  assert.equal(await session.finish(ex), 'sent');
  assert.deepEqual(bridge.sent.at(-1)[1].score, { raw: 0, max: 4 });
  assert.equal(bridge.sent.at(-1)[1].success, false);
  await session.check(ex, 'a', 'right');
  await session.finish(ex);
  assert.deepEqual([bridge.sent.at(-1)[1].score, bridge.sent.at(-1)[1].success], [{ raw: 2, max: 4 }, false], 'one of two solved');
  const nb = setup({ bridge: null });
  await nb.session.open(ex);
  assert.equal((await nb.session.check(ex, 'a', 'right')).question.points, 2, 'no bridge: checked all the same');
  assert.equal(await nb.session.finish(ex), null);
});

test('carryPractice: carries what does not depend on the variant, lists the rest, clears the practice', async () => {
  const { session, store, learner } = setup({ learnerId: null });
  const ex = exercise('e', [{ id: 'a', type: 'numeric' }, { id: 'v', type: 'numeric', prompt: { en: 'for {{n}}' } }], { variants: { n: [1, 2] } });
  const gone = exercise('gone');
  const empty = exercise('empty');
  assert.deepEqual(await session.carryPractice({ exercises: [ex] }), { carried: 0, redo: [] }, 'no learner: nothing');
  await session.open(ex);
  await session.open(empty);
  await session.open(gone);
  learner.id = 'carol';
  assert.deepEqual(await session.carryPractice({ exercises: [ex] }), { carried: 0, redo: [] }, 'no practice answers');
  assert.equal(store.records({ learner: PRACTICE_LEARNER }).length, 3, 'nothing to carry: nothing reset');
  learner.id = null;
  await session.check(ex, 'a', 'right');
  await session.check(ex, 'v', 'wrong');
  await session.check(ex, 'v', 'right');
  await session.check(gone, 'a', 'wrong');
  assert.deepEqual(await session.carryPractice({ exercises: [ex] }), { carried: 0, redo: [] }, 'still no learner');
  store.merge({ learner: 'carol', id: 'e', contentHash: 'h-e', attempts: [{ question: 'v', answer: 'x' }] });
  learner.id = 'carol';
  const out = await session.carryPractice({ exercises: [ex, empty] });
  assert.deepEqual(out, { carried: 1, redo: [{ exercise: 'e', question: 'v' }] });
  const mine = store.record({ learner: 'carol', id: 'e', contentHash: 'h-e' });
  assert.deepEqual([mine.seed, mine.attempts.map((a) => a.question), mine.claimed], [5, ['v', 'a'], { points: 2, max: 4 }], 'carol\'s own v answer is not listed again');
  assert.deepEqual(store.records({ learner: PRACTICE_LEARNER }), []);
  await assert.rejects(session.check(ex, 'a', 'right'), /open\(e\) first/, 'carried exercises must be opened again');
});

test('carryPractice: an older file version or only variant answers carry nothing', async () => {
  let version = 1;
  const core = fakeCore({ hashOf: (e) => (e.id === 'e' ? `h-e-${version}` : `h-${e.id}`) });
  const { session, store, learner } = setup({ learnerId: null, core });
  const ex = exercise('e');
  const vex = exercise('v', [{ id: 'q', args: { x: '$n' } }], { variants: { n: [1] } });
  await session.open(ex);
  await session.open(vex);
  await session.check(ex, 'a', 'right');
  await session.check(vex, 'q', 'right');
  version = 2;
  learner.id = 'dan';
  assert.deepEqual(await session.carryPractice({ exercises: [ex, vex] }), { carried: 0, redo: [{ exercise: 'v', question: 'q' }] });
  assert.deepEqual(store.records({ learner: 'dan' }), []);
});

test('draft: kept only for an opened exercise', async () => {
  const { session, store } = setup();
  const ex = exercise('e');
  session.draft(ex, 'a', 'typed');
  await session.open(ex);
  session.draft(ex, 'a', 'typed');
  assert.equal(store.draft({ learner: 'alice', id: 'e', contentHash: 'h-e' }, 'a'), 'typed');
});

test('submission: current versions re-graded now, old ones keep their stored score, no seed means no re-grade', async () => {
  let version = 1;
  const core = fakeCore({ hashOf: (e) => `h-${e.id}-${version}` });
  const { session, store } = setup({ core });
  const ex = exercise('e');
  await session.open(ex);
  await session.check(ex, 'a', 'right');
  store.setClaimed({ learner: 'alice', id: 'e', contentHash: 'h-e-1' }, { points: 1, max: 4 }); // what version 1 said then
  store.open({ learner: 'zed', id: 'e', contentHash: 'h-e-1', seed: 3 });
  version = 2;
  await session.open(ex);
  const ref2 = { learner: 'alice', id: 'e', contentHash: 'h-e-2' };
  store.merge({ ...ref2, attempts: [{ question: 'b', answer: 'right' }, { question: 'a', answer: 'right' }] });
  store.setClaimed(ref2, { points: 1, max: 99 }); // stale: the core says 4/4 now
  const noSeed = { learner: 'alice', id: 'x', contentHash: 'h-x-2' };
  store.open(noSeed);
  store.setClaimed(noSeed, { points: 3, max: 3 });
  const s = await session.submission({ labVersion: '1.0', exercises: [ex, exercise('x')], now: new Date(Date.UTC(2026, 0, 2)) });
  assert.equal(s.learner, 'alice');
  assert.equal(s.createdAt, '2026-01-02T00:00:00.000Z');
  const by = Object.fromEntries(s.exercises.map((e) => [e.contentHash, e.claimed]));
  assert.deepEqual(by, { 'h-e-1': { points: 1, max: 4 }, 'h-e-2': { points: 4, max: 4 }, 'h-x-2': { points: 3, max: 3 } });
  let clicked = 0;
  const a = { style: {}, click: () => { clicked += 1; }, remove() {} };
  const env = { document: { createElement: () => a, body: { append() {} } }, URL: { createObjectURL: () => 'blob:x', revokeObjectURL() {} }, Blob: class {}, later() {} };
  assert.equal(await session.download({ labVersion: '1.0', exercises: [ex], now: new Date(Date.UTC(2026, 0, 2, 3, 4)) }, env), 'position-lab-alice-20260102-0304.json');
  assert.deepEqual([clicked, a.download], [1, 'position-lab-alice-20260102-0304.json']);
  const anon = setup({ learnerId: null });
  await assert.rejects(anon.session.submission({ labVersion: '1.0', exercises: [] }), /no learner id yet/);
  assert.throws(() => anon.session.import('{}'), /no learner id yet/);
});

test('reset: one exercise or all, of the learner or of the practice', async () => {
  const { session, store, learner } = setup();
  const e1 = exercise('e1');
  const e2 = exercise('e2');
  await session.open(e1);
  await session.open(e2);
  assert.equal(session.reset({ exerciseId: 'e1' }).removed, 1);
  await assert.rejects(session.check(e1, 'a', 'right'), /open\(e1\) first/);
  assert.equal((await session.check(e2, 'a', 'right')).question.points, 2, 'the other stays open');
  assert.equal(session.reset().removed, 1);
  await assert.rejects(session.check(e2, 'a', 'right'), /open\(e2\) first/);
  learner.id = null;
  await session.open(e1);
  assert.equal(session.reset().removed, 1);
  assert.deepEqual(store.records(), []);
});
