// The submission file at its edges (issue #23, mutation testing of
// submission.js): every field check with the field and problem it names, the
// size limits on both sides, what a parsed file keeps, the file name and the
// download's anchor.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildSubmission, parseSubmission, submissionFileName, submissionText, downloadSubmission, importSubmission, SubmissionError, IMPORT_LIMITS, FORMAT, VERSION } from '../../web/js/grading/submission.js';
import en from '../../web/i18n/en.json' with { type: 'json' };
import ja from '../../web/i18n/ja.json' with { type: 'json' };

const HASH = '0123456789abcdef';
const attempt = () => ({ question: 'dot', answer: ['0.5'], lab: {}, lang: 'ja', time: '2026-12-01T09:00:01Z' });
const file = () => ({
  format: 'position-lab-submission',
  version: 1,
  labVersion: '0.1.0',
  learner: 'alice',
  createdAt: '2026-12-01T09:30:00Z',
  exercises: [{ id: 'hand-calc', contentHash: HASH, seed: 42, claimed: { points: 1, max: 3 }, attempts: [attempt()] }],
});
const fill = (s, p) => s.replace(/\{(\w+)\}/g, (_, k) => p[k]);
// The refusal expected for a field: the catalog's import_field text with the problem's text.
function refused(edit, field, problem) {
  const s = file();
  edit(s);
  let err;
  try {
    parseSubmission(JSON.stringify(s));
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof SubmissionError, `${field}: refused`);
  assert.equal(err.name, 'SubmissionError');
  assert.equal(err.code, 'field');
  assert.equal(err.field, field);
  assert.deepEqual(err.params, { field, problem });
  assert.equal(err.text.en, fill(en['grading.import_field'], { field, problem: en[`grading.problem_${problem}`] }));
  assert.equal(err.text.ja, fill(ja['grading.import_field'], { field, problem: ja[`grading.problem_${problem}`] }));
  assert.equal(err.message, err.text.en);
}
const nest = (depth) => {
  let v = 0;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};

test('each field check names the field and the problem, in ja and en', () => {
  const a0 = 'exercises[0].attempts[0]';
  refused((s) => (s.labVersion = 7), 'labVersion', 'string');
  refused((s) => (s.createdAt = 'soon'), 'createdAt', 'time');
  refused((s) => (s.createdAt = 20261201), 'createdAt', 'time');
  refused((s) => (s.learner = 5), 'learner', 'string');
  refused((s) => (s.exercises = [7]), 'exercises[0]', 'object');
  refused((s) => (s.exercises = [[]]), 'exercises[0]', 'object');
  refused((s) => (s.exercises[0].id = 3), 'exercises[0].id', 'string');
  refused((s) => (s.exercises[0].id = ''), 'exercises[0].id', 'string');
  refused((s) => (s.exercises[0].contentHash = 'ABCDEF0123456789'), 'exercises[0].contentHash', 'hash');
  refused((s) => (s.exercises[0].contentHash = `${HASH}0`), 'exercises[0].contentHash', 'hash');
  refused((s) => (s.exercises[0].contentHash = `x${HASH}`), 'exercises[0].contentHash', 'hash');
  refused((s) => (s.exercises[0].contentHash = 12), 'exercises[0].contentHash', 'hash');
  refused((s) => (s.exercises[0].seed = 4294967296), 'exercises[0].seed', 'seed');
  refused((s) => (s.exercises[0].seed = 1.5), 'exercises[0].seed', 'seed');
  refused((s) => (s.exercises[0].seed = '4'), 'exercises[0].seed', 'seed');
  refused((s) => (s.exercises[0].claimed = [1, 3]), 'exercises[0].claimed', 'object');
  refused((s) => (s.exercises[0].claimed = null), 'exercises[0].claimed', 'object');
  refused((s) => delete s.exercises[0].claimed.max, 'exercises[0].claimed.max', 'number');
  refused((s) => (s.exercises[0].attempts = [5]), a0, 'object');
  refused((s) => (s.exercises[0].attempts[0].question = ''), `${a0}.question`, 'string');
  refused((s) => (s.exercises[0].attempts[0].question = 'q'.repeat(201)), `${a0}.question`, 'too_large');
  refused((s) => (s.exercises[0].attempts[0].answer = null), `${a0}.answer`, 'answer');
  refused((s) => (s.exercises[0].attempts[0].answer = nest(9)), `${a0}.answer`, 'too_deep');
  refused((s) => (s.exercises[0].attempts[0].answer = 'x'.repeat(10001)), `${a0}.answer`, 'too_large');
  refused((s) => (s.exercises[0].attempts[0].lab = { a: nest(8) }), `${a0}.lab`, 'too_deep');
  refused((s) => (s.exercises[0].attempts[0].lab = { a: 'x'.repeat(10001) }), `${a0}.lab`, 'too_large');
  refused((s) => (s.exercises[0].attempts[0].lab = 'on'), `${a0}.lab`, 'object');
  refused((s) => (s.exercises[0].attempts[0].time = 12), `${a0}.time`, 'time');
  // The path counts every exercise and attempt.
  refused((s) => s.exercises.push({ ...s.exercises[0], attempts: [attempt(), { ...attempt(), lang: 'de' }] }), 'exercises[1].attempts[1].lang', 'lang');
});

test('what is allowed at the edges: a 200-character question, 8 levels, seeds 0 and 2^32 − 1', () => {
  const s = file();
  s.exercises[0].attempts[0].question = 'q'.repeat(200);
  s.exercises[0].attempts[0].answer = nest(8);
  s.exercises[0].attempts[0].lab = { a: nest(7) };
  s.exercises[0].seed = 4294967295;
  const p = parseSubmission(JSON.stringify(s));
  assert.equal(p.exercises[0].attempts[0].question.length, 200);
  assert.equal(p.exercises[0].seed, 4294967295);
  s.exercises[0].seed = 0;
  assert.equal(parseSubmission(JSON.stringify(s)).exercises[0].seed, 0);
  // Optional parts may be left out: no labVersion, createdAt, seed, claimed, lab, lang or time.
  const bare = { format: FORMAT, version: VERSION, learner: 'bob', exercises: [{ id: 'e', contentHash: HASH, attempts: [{ question: 'q', answer: 1 }] }] };
  const b = parseSubmission(JSON.stringify(bare));
  assert.deepEqual(b, { format: FORMAT, version: VERSION, labVersion: undefined, learner: 'bob', createdAt: undefined, exercises: [{ id: 'e', contentHash: HASH, attempts: [{ question: 'q', answer: 1, lab: {}, lang: 'ja' }] }] });
  assert.ok(!('seed' in b.exercises[0]) && !('claimed' in b.exercises[0]));
  // Only the known fields are kept.
  const extra = file();
  extra.exercises[0].claimed.note = 'x';
  extra.exercises[0].extra = true;
  extra.exercises[0].attempts[0].status = 'correct';
  const e = parseSubmission(JSON.stringify(extra)).exercises[0];
  assert.deepEqual(Object.keys(e).sort(), ['attempts', 'claimed', 'contentHash', 'id', 'seed']);
  assert.deepEqual(e.claimed, { points: 1, max: 3 });
  assert.deepEqual(e.attempts[0], attempt());
});

test('the size limits: bytes, exercises and attempts per exercise, each refused one past it', () => {
  assert.deepEqual(IMPORT_LIMITS, { bytes: 10_000_000, exercises: 1000, attempts: 5000 });
  // 10,000,000 characters exactly parses (padding after the JSON); one more is too large.
  const text = JSON.stringify(file());
  assert.equal(parseSubmission(text + ' '.repeat(10_000_000 - text.length)).learner, 'alice');
  assert.throws(() => parseSubmission(text + ' '.repeat(10_000_001 - text.length)), (e) => e.code === 'field' && e.field === '(file)' && e.params.problem === 'too_large');
  const many = file();
  many.exercises = Array.from({ length: 1000 }, (_, i) => ({ id: `e${i}`, contentHash: HASH, attempts: [] }));
  assert.equal(parseSubmission(JSON.stringify(many)).exercises.length, 1000);
  many.exercises.push({ id: 'one-more', contentHash: HASH, attempts: [] });
  refused((s) => (s.exercises = many.exercises), 'exercises', 'too_large');
  const tries = Array.from({ length: 5000 }, attempt);
  const ok = file();
  ok.exercises[0].attempts = tries;
  assert.equal(parseSubmission(JSON.stringify(ok)).exercises[0].attempts.length, 5000);
  refused((s) => (s.exercises[0].attempts = [...tries, attempt()]), 'exercises[0].attempts', 'too_large');
  // Not text at all.
  assert.throws(() => parseSubmission(undefined), (e) => e.code === 'not_json' && e.params.detail === 'not text');
  assert.throws(() => parseSubmission(null), (e) => e.code === 'not_json');
  // format must be exactly the lab's.
  const other = file();
  other.format = 'position-lab-submission-v2';
  assert.throws(() => parseSubmission(JSON.stringify(other)), (e) => e.code === 'not_submission' && e.text.en === en['grading.import_not_submission']);
  // version: says what was found, null when absent.
  const v = file();
  v.version = '1';
  assert.throws(() => parseSubmission(JSON.stringify(v)), (e) => e.code === 'version' && e.params.version === '"1"');
  delete v.version;
  assert.throws(() => parseSubmission(JSON.stringify(v)), (e) => e.code === 'version' && e.params.version === 'null');
});

test('the importing learner: the same one passes, none given means any', () => {
  const text = JSON.stringify(file());
  assert.equal(parseSubmission(text, { learner: 'alice' }).learner, 'alice');
  assert.equal(parseSubmission(text, { learner: '' }).learner, 'alice');
  assert.throws(() => parseSubmission(text, { learner: 'bob' }), (e) => e.code === 'other_learner' && e.params.found === 'alice' && e.params.expected === 'bob');
  // importSubmission hands each exercise to the store with the file's learner, and counts.
  const merged = [];
  const store = { merge: (r) => (merged.push(r), { added: r.attempts.length }) };
  const two = file();
  two.exercises.push({ id: 'rope', contentHash: HASH, attempts: [attempt(), attempt()] });
  const r = importSubmission(store, JSON.stringify(two));
  assert.deepEqual([r.learner, r.exercises, r.added], ['alice', 2, 3]);
  assert.deepEqual(merged.map((m) => [m.learner, m.id, m.attempts.length]), [['alice', 'hand-calc', 1], ['alice', 'rope', 2]]);
  assert.equal(r.message.en, fill(en['grading.import_done'], { exercises: 2, added: 3 }));
  assert.equal(r.message.ja, fill(ja['grading.import_done'], { exercises: 2, added: 3 }));
});

test('buildSubmission: the grade function\'s score, else the stored claim; seeds only when valid', () => {
  const now = new Date('2026-12-01T09:30:00.000Z');
  const records = [
    { id: 'a', contentHash: HASH, seed: 0, claimed: { points: 1, max: 2 }, attempts: [attempt()] },
    { id: 'b', contentHash: HASH, seed: 4294967296, attempts: [] },
    { id: 'c', contentHash: HASH, seed: -1, claimed: null, attempts: [] },
  ];
  const stored = buildSubmission({ labVersion: '1.2.3', learner: 'alice', records, now });
  assert.equal(stored.createdAt, '2026-12-01T09:30:00.000Z');
  assert.deepEqual(stored.exercises.map((e) => [e.id, e.seed, e.claimed]), [['a', 0, { points: 1, max: 2 }], ['b', undefined, undefined], ['c', undefined, undefined]]);
  assert.ok(!('seed' in stored.exercises[1]) && !('claimed' in stored.exercises[1]));
  const graded = buildSubmission({ labVersion: '1.2.3', learner: 'alice', records, now, grade: (r) => ({ points: r.id.length * 5, max: 10, extra: 1 }) });
  assert.deepEqual(graded.exercises[0].claimed, { points: 5, max: 10 });
  assert.deepEqual(graded.exercises[2].claimed, { points: 5, max: 10 });
  assert.throws(() => buildSubmission({ labVersion: '1', learner: '', records: [] }), (e) => e instanceof TypeError && /learner must be a non-empty string/.test(e.message));
  assert.throws(() => buildSubmission({ labVersion: 1, learner: 'a', records: [] }), TypeError);
  assert.throws(
    () => buildSubmission({ labVersion: '1', learner: 'a', records: [{ id: 'x', contentHash: HASH, attempts: [{ question: '', answer: 1 }] }] }),
    (e) => e instanceof TypeError && /record x has a malformed attempt/.test(e.message),
  );
  // A record of no stated learner is the one asked for.
  assert.equal(buildSubmission({ labVersion: '1', learner: 'a', records: [{ id: 'x', contentHash: HASH, attempts: [] }] }).exercises.length, 1);
  // The text is the JSON, one space indent, with a final newline.
  assert.equal(submissionText({ a: [1] }), '{\n "a": [\n  1\n ]\n}\n');
});

test('file names: NFKC, unsafe runs become _, at most 60 characters of the id, the minute of creation', () => {
  const at = '2026-01-02T03:04:05.678Z';
  assert.equal(submissionFileName({ learner: 'ＡＢ１', createdAt: at }), 'position-lab-AB1-20260102-0304.json');
  assert.equal(submissionFileName({ learner: 'a/../b c', createdAt: at }), 'position-lab-a_.._b_c-20260102-0304.json');
  assert.equal(submissionFileName({ learner: 'x'.repeat(70), createdAt: at }), `position-lab-${'x'.repeat(60)}-20260102-0304.json`);
  assert.equal(submissionFileName({ learner: 'é_-.9', createdAt: at }), 'position-lab-é_-.9-20260102-0304.json');
  assert.equal(submissionFileName({ learner: '', createdAt: at }), 'position-lab-learner-20260102-0304.json');
});

test('the download anchor is hidden, noopener, removed after the click; the URL is revoked later, not at once', () => {
  const events = [];
  let anchor;
  let revokeLater;
  const doc = {
    createElement: (t) => (anchor = { tag: t, style: {}, click: () => events.push('click'), remove: () => events.push('remove') }),
    body: { append: (a) => events.push(`append ${a.tag}`) },
  };
  const Url = { createObjectURL: () => 'blob:1', revokeObjectURL: (u) => events.push(`revoke ${u}`) };
  class FakeBlob {
    constructor(parts, o) {
      this.parts = parts;
      this.type = o.type;
    }
  }
  const sub = { learner: 'bob', createdAt: '2026-01-02T03:04:05.000Z' };
  const name = downloadSubmission(sub, { document: doc, URL: Url, Blob: FakeBlob, later: (f) => (revokeLater = f) });
  assert.equal(name, 'position-lab-bob-20260102-0304.json');
  assert.deepEqual([anchor.href, anchor.download, anchor.rel, anchor.style.display], ['blob:1', name, 'noopener', 'none']);
  assert.deepEqual(events, ['append a', 'click', 'remove']);
  revokeLater();
  assert.deepEqual(events.at(-1), 'revoke blob:1');
});

test('values of the wrong type that would read as valid text are refused too', () => {
  // A one-element list turns into its element as a string: still not a hash or a time.
  refused((s) => (s.exercises[0].contentHash = [HASH]), 'exercises[0].contentHash', 'hash');
  refused((s) => (s.createdAt = ['2026-12-01T09:30:00Z']), 'createdAt', 'time');
  assert.throws(() => buildSubmission({ labVersion: '1', learner: 5, records: [] }), (e) => e instanceof TypeError && /learner must be a non-empty string/.test(e.message));
  // The JSON error's own words are passed on.
  let detail;
  try {
    JSON.parse('{');
  } catch (e) {
    detail = e.message;
  }
  assert.throws(() => parseSubmission('{'), (e) => e.code === 'not_json' && e.params.detail === detail && e.text.en === fill(en['grading.import_not_json'], { detail }));
  // A run of unsafe characters becomes one _.
  assert.equal(submissionFileName({ learner: 'a//:b', createdAt: '2026-01-02T03:04:05Z' }), 'position-lab-a_b-20260102-0304.json');
});

test('without a scheduler given, the object URL is revoked 10 s after the click', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const revoked = [];
  const doc = { createElement: () => ({ style: {}, click() {}, remove() {} }), body: { append() {} } };
  const Url = { createObjectURL: () => 'blob:2', revokeObjectURL: (u) => revoked.push(u) };
  downloadSubmission({ learner: 'b', createdAt: '2026-01-02T03:04:05Z' }, { document: doc, URL: Url, Blob: class {} });
  t.mock.timers.tick(9999);
  assert.deepEqual(revoked, []);
  t.mock.timers.tick(1);
  assert.deepEqual(revoked, ['blob:2']);
});
