// The attempt store against a fake Storage: saved as made, restored on
// reload, drafts flushed on pagehide, one record per content hash, damaged
// and old data recovered or set aside (never dropped), reset with a backup,
// and a Storage that throws degrading to memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createAttemptStore, browserStorage, recordKey, parseRecordKey, RECORD_PREFIX, ASIDE_PREFIX, BACKUP_PREFIX, LEGACY_KEY, LEGACY_DONE_KEY } from '../../web/js/grading/attempt-store.js';
import { FakeStorage, fakeClock, domException } from './fakes.mjs';

const HASH_A = '0123456789abcdef';
const HASH_B = 'fedcba9876543210';
const ref = { learner: 'alice', id: 'hand-calc', contentHash: HASH_A };
// The key as the format defines it, written out by hand.
const KEY_A = 'poslab.attempts.v1:alice:hand-calc:0123456789abcdef';

test('record keys name learner, exercise id and content hash, each URI-encoded', () => {
  assert.equal(recordKey(ref), KEY_A);
  assert.equal(recordKey({ learner: 'a:b c', id: 'x/y', contentHash: HASH_B }), 'poslab.attempts.v1:a%3Ab%20c:x%2Fy:fedcba9876543210');
  assert.deepEqual(parseRecordKey('poslab.attempts.v1:a%3Ab%20c:x%2Fy:fedcba9876543210'), { learner: 'a:b c', id: 'x/y', contentHash: HASH_B });
  assert.equal(parseRecordKey('poslab.attempts.v1:only:two'), null);
  assert.equal(parseRecordKey('other:alice:x:y'), null);
});

test('every attempt is written as it is made, and a reload restores it', () => {
  const storage = new FakeStorage();
  const clock = fakeClock();
  const store = createAttemptStore({ storage, now: clock.now });
  store.open({ ...ref, seed: 12345 });
  clock.tick(1500);
  store.addAttempt(ref, { question: 'dot', answer: ['0.5'], lang: 'ja' });
  // Written already: no flush, no pagehide.
  const saved = JSON.parse(storage.getItem(KEY_A));
  assert.deepEqual(saved, {
    format: 'position-lab-attempts',
    version: 1,
    learner: 'alice',
    id: 'hand-calc',
    contentHash: HASH_A,
    seed: 12345,
    attempts: [{ question: 'dot', answer: ['0.5'], lab: {}, lang: 'ja', time: '2026-12-01T09:00:01.500Z' }],
    drafts: {},
    createdAt: '2026-12-01T09:00:00.000Z',
    updatedAt: '2026-12-01T09:00:01.500Z',
  });
  clock.tick(1000);
  store.addAttempt(ref, { question: 'wall', answer: { positionOffset: 1023 }, lab: { pe: 'learned' }, lang: 'en' });
  const again = createAttemptStore({ storage, now: clock.now });
  assert.deepEqual(again.warnings, []);
  assert.deepEqual(
    again.attempts(ref).map((a) => [a.question, a.answer, a.lab, a.lang, a.time]),
    [
      ['dot', ['0.5'], {}, 'ja', '2026-12-01T09:00:01.500Z'],
      ['wall', { positionOffset: 1023 }, { pe: 'learned' }, 'en', '2026-12-01T09:00:02.500Z'],
    ],
  );
  assert.equal(again.record(ref).seed, 12345);
});

test('an edited exercise (new content hash) starts a fresh record and keeps the old one', () => {
  const storage = new FakeStorage();
  const store = createAttemptStore({ storage, now: fakeClock().now });
  store.open({ ...ref, seed: 1 });
  store.addAttempt(ref, { question: 'dot', answer: ['1'] });
  const edited = { ...ref, contentHash: HASH_B };
  store.open({ ...edited, seed: 2 });
  assert.deepEqual(store.attempts(edited), []);
  store.addAttempt(edited, { question: 'dot', answer: ['2'] });
  assert.deepEqual(store.attempts(ref).map((a) => a.answer), [['1']]);
  assert.deepEqual(store.attempts(edited).map((a) => a.answer), [['2']]);
  assert.deepEqual(store.versions({ learner: 'alice', id: 'hand-calc' }).map((r) => [r.contentHash, r.seed]).sort(), [[HASH_A, 1], [HASH_B, 2]]);
  assert.ok(storage.getItem(KEY_A));
  assert.ok(storage.getItem('poslab.attempts.v1:alice:hand-calc:fedcba9876543210'));
  // Another learner on the same browser has records of their own.
  store.open({ learner: 'bob', id: 'hand-calc', contentHash: HASH_A, seed: 3 });
  assert.deepEqual(store.attempts({ learner: 'bob', id: 'hand-calc', contentHash: HASH_A }), []);
  assert.equal(store.records({ learner: 'alice' }).length, 2);
});

test('drafts are kept on pagehide (and when the tab is hidden), not on every keystroke', () => {
  const storage = new FakeStorage();
  const store = createAttemptStore({ storage, now: fakeClock().now });
  store.open(ref);
  const win = new EventTarget();
  win.document = { visibilityState: 'visible' };
  const detach = store.attach(win);
  const writes = storage.writes.length;
  store.setDraft(ref, 'dot', ['0.7']);
  store.setDraft(ref, 'dot', ['0.70']);
  assert.equal(storage.writes.length, writes, 'no write while typing');
  assert.deepEqual(JSON.parse(storage.getItem(KEY_A)).drafts, {});
  win.dispatchEvent(new Event('pagehide'));
  assert.deepEqual(JSON.parse(storage.getItem(KEY_A)).drafts, { dot: ['0.70'] });
  store.setDraft(ref, 'weights', ['0.67', '0.33']);
  win.dispatchEvent(new Event('visibilitychange'));
  assert.equal(JSON.parse(storage.getItem(KEY_A)).drafts.weights, undefined, 'still visible: nothing written');
  win.document.visibilityState = 'hidden';
  win.dispatchEvent(new Event('visibilitychange'));
  assert.deepEqual(JSON.parse(storage.getItem(KEY_A)).drafts.weights, ['0.67', '0.33']);
  // A checked answer replaces its draft.
  store.addAttempt(ref, { question: 'dot', answer: ['0.70'] });
  assert.equal(JSON.parse(storage.getItem(KEY_A)).drafts.dot, undefined);
  assert.equal(createAttemptStore({ storage }).draft(ref, 'weights')[0], '0.67');
  detach();
  store.setDraft(ref, 'weights', ['x']);
  win.dispatchEvent(new Event('pagehide'));
  assert.deepEqual(JSON.parse(storage.getItem(KEY_A)).drafts.weights, ['0.67', '0.33'], 'detached: no flush');
});

test('a value that is not JSON is set aside under another key, with a warning, and the rest loads', () => {
  const good = JSON.stringify({ format: 'position-lab-attempts', version: 1, learner: 'alice', id: 'rope', contentHash: HASH_B, seed: 7, attempts: [{ question: 'q', answer: ['1'], lab: {}, lang: 'ja', time: '2026-11-30T10:00:00.000Z' }], drafts: {} });
  const storage = new FakeStorage({ [KEY_A]: '{"format": "position-lab-att', 'poslab.attempts.v1:alice:rope:fedcba9876543210': good, unrelated: 'x' });
  const seen = [];
  const store = createAttemptStore({ storage, now: fakeClock().now, onWarning: (w) => seen.push(w.code) });
  const aside = `${ASIDE_PREFIX}2026-12-01T09:00:00.000Z:${KEY_A}`;
  assert.equal(storage.getItem(aside), '{"format": "position-lab-att', 'kept byte for byte');
  assert.equal(storage.getItem(KEY_A), null);
  assert.deepEqual(seen, ['storage_corrupt']);
  assert.equal(store.warnings[0].key, KEY_A);
  assert.equal(store.warnings[0].aside, aside);
  assert.match(store.warnings[0].message.ja, /壊れて/);
  assert.ok(store.warnings[0].message.ja.includes(aside));
  assert.ok(store.warnings[0].message.en.includes('kept'));
  assert.equal(store.attempts({ learner: 'alice', id: 'rope', contentHash: HASH_B }).length, 1);
  assert.equal(storage.getItem('unrelated'), 'x');
  assert.deepEqual(store.setAside().map((a) => a.key), [aside]);
  // A second damaged value at the same instant does not overwrite the first aside.
  storage.setItem(KEY_A, 'garbage');
  createAttemptStore({ storage, now: fakeClock().now });
  assert.equal(storage.getItem(aside), '{"format": "position-lab-att');
  assert.equal(storage.getItem(`${aside}#2`), 'garbage');
});

test('a partly damaged record keeps what is readable and sets the original aside', () => {
  const raw = JSON.stringify({
    format: 'position-lab-attempts',
    version: 1,
    learner: 'alice',
    id: 'hand-calc',
    contentHash: HASH_A,
    seed: 'not a seed',
    attempts: [
      { question: 'dot', answer: ['0.5'], time: '2026-11-30T10:00:00.000Z' },
      { answer: ['no question'] },
      { question: 'dot', answer: ['0.707'], lang: 'fr' },
      { question: 'dot', answer: ['0.707'], lang: 'en', time: '2026-11-30T10:01:00.000Z' },
    ],
    drafts: { dot: ['0.7'] },
  });
  const storage = new FakeStorage({ [KEY_A]: raw });
  const store = createAttemptStore({ storage, now: fakeClock().now });
  assert.equal(store.warnings.length, 1);
  const w = store.warnings[0];
  assert.equal(w.code, 'storage_recovered');
  assert.equal(w.kept, 2);
  assert.equal(w.dropped, 2);
  assert.equal(storage.getItem(w.aside), raw);
  const r = store.record(ref);
  assert.equal(r.seed, null, 'a bad seed is forgotten: the core gives it again on open()');
  assert.deepEqual(r.attempts.map((a) => [a.answer[0], a.lang]), [['0.5', 'ja'], ['0.707', 'en']]);
  assert.deepEqual(r.drafts, { dot: ['0.7'] });
  // The repaired record was written back, and loads cleanly now.
  assert.deepEqual(createAttemptStore({ storage }).warnings, []);
  store.open({ ...ref, seed: 99 });
  assert.equal(JSON.parse(storage.getItem(KEY_A)).seed, 99);
});

test('fields missing from a value are taken from its key; a value naming another record is set aside', () => {
  const storage = new FakeStorage({
    [KEY_A]: JSON.stringify({ attempts: [{ question: 'dot', answer: ['1'], time: '2026-11-30T10:00:00.000Z' }] }),
    'poslab.attempts.v1:bob:hand-calc:0123456789abcdef': JSON.stringify({ format: 'position-lab-attempts', version: 1, learner: 'mallory', id: 'hand-calc', contentHash: HASH_A, attempts: [] }),
  });
  const store = createAttemptStore({ storage, now: fakeClock().now });
  assert.deepEqual(store.warnings.map((w) => w.code).sort(), ['storage_corrupt', 'storage_recovered']);
  assert.deepEqual(store.attempts(ref).map((a) => a.answer), [['1']]);
  assert.equal(store.record({ learner: 'bob', id: 'hand-calc', contentHash: HASH_A }), null);
  assert.equal(store.setAside().length, 2);
});

test('a record from a newer lab version is set aside, not read or overwritten', () => {
  const raw = JSON.stringify({ format: 'position-lab-attempts', version: 2, learner: 'alice', id: 'hand-calc', contentHash: HASH_A, tries: [] });
  const storage = new FakeStorage({ [KEY_A]: raw });
  const store = createAttemptStore({ storage, now: fakeClock().now });
  assert.equal(store.warnings[0].code, 'storage_newer');
  assert.equal(storage.getItem(store.warnings[0].aside), raw);
  assert.equal(store.record(ref), null);
});

test('poslab.progress.v1 (progress.js, still written on every visit) is not legacy data: left alone, no warning, no copy', () => {
  const progress = JSON.stringify({ 'hand-calc': { visited: true, questions: { dot: { correct: false, attempts: [{ answer: ['0.5'], correct: false, at: '2026-11-29T10:00:00Z' }] } } } });
  const storage = new FakeStorage({ [LEGACY_KEY]: progress });
  for (let visit = 0; visit < 3; visit++) assert.deepEqual(createAttemptStore({ storage, now: fakeClock().now }).warnings, []);
  assert.deepEqual(storage.snapshot(), { [LEGACY_KEY]: progress }, 'the original is untouched, nothing set aside');
  assert.equal(storage.getItem(LEGACY_DONE_KEY), null);
  assert.deepEqual(createAttemptStore({ storage }).records(), [], 'it is not graded: no content hash, no seed');
});

test('reset keeps a backup first; a backup can be listed and restored', () => {
  const storage = new FakeStorage();
  const clock = fakeClock();
  const store = createAttemptStore({ storage, now: clock.now });
  const rope = { learner: 'alice', id: 'rope', contentHash: HASH_B };
  store.open({ ...ref, seed: 5 });
  store.open({ ...rope, seed: 6 });
  clock.tick(10);
  store.addAttempt(ref, { question: 'dot', answer: ['0.5'] });
  store.addAttempt(rope, { question: 'rot', answer: ['1', '0'] });
  store.setDraft(rope, 'rot', ['0.54']);
  clock.tick(10);
  // One exercise only.
  const one = store.reset({ learner: 'alice', id: 'rope' });
  assert.equal(one.removed, 1);
  assert.equal(one.backupKey, `${BACKUP_PREFIX}2026-12-01T09:00:00.020Z`);
  const backup = JSON.parse(storage.getItem(one.backupKey));
  assert.equal(backup.format, 'position-lab-attempts-backup');
  assert.deepEqual(backup.records.map((r) => [r.id, r.attempts.length, r.drafts.rot]), [['rope', 1, ['0.54']]], 'drafts are flushed into the backup');
  assert.equal(storage.getItem(recordKey(rope)), null);
  assert.equal(store.attempts(ref).length, 1, 'the other exercise is untouched');
  // Everything of the learner.
  clock.tick(10);
  const all = store.reset({ learner: 'alice' });
  assert.equal(all.removed, 1);
  assert.equal(store.records().length, 0);
  assert.equal([...storage.map.keys()].filter((k) => k.startsWith(RECORD_PREFIX)).length, 0);
  assert.deepEqual(store.backups(), [
    { key: one.backupKey, count: 1 },
    { key: all.backupKey, count: 1 },
  ]);
  assert.deepEqual(store.reset({ learner: 'alice' }), { backupKey: null, removed: 0 }, 'nothing to reset: no empty backup');
  // Restoring merges the records back, drafts included.
  assert.deepEqual(store.restoreBackup(one.backupKey), { added: 1 });
  assert.deepEqual(store.restoreBackup(all.backupKey), { added: 1 });
  assert.deepEqual(store.restoreBackup(all.backupKey), { added: 0 }, 'twice adds nothing');
  const restored = createAttemptStore({ storage });
  assert.deepEqual(restored.attempts(rope).map((a) => a.answer), [['1', '0']]);
  assert.deepEqual(restored.draft(rope, 'rot'), ['0.54']);
  assert.equal(restored.record(ref).seed, 5);
  assert.throws(() => store.restoreBackup('poslab.attempts.v1:x'), /not a backup key/);
});

test('a Storage that throws on read (private mode, file://) degrades to memory with a warning', () => {
  const storage = new FakeStorage();
  storage.failGet = domException('SecurityError', 'The operation is insecure.');
  storage.failSet = domException('SecurityError');
  const store = createAttemptStore({ storage, now: fakeClock().now });
  assert.equal(store.mode, 'memory');
  assert.deepEqual(store.warnings.map((w) => w.code), ['storage_unavailable']);
  assert.match(store.warnings[0].message.ja, /保存できません/);
  store.open(ref);
  store.addAttempt(ref, { question: 'dot', answer: ['0.5'] });
  assert.equal(store.attempts(ref).length, 1, 'the visit still keeps every attempt');
  assert.equal(store.warnings.length, 1, 'warned once');
});

test('localStorage whose getter throws, or no localStorage at all, means memory', () => {
  const win = {};
  Object.defineProperty(win, 'localStorage', {
    get() {
      throw domException('SecurityError');
    },
  });
  assert.equal(browserStorage(win), null);
  const store = createAttemptStore({ storage: browserStorage(win) });
  assert.equal(store.mode, 'memory');
  assert.equal(store.warnings[0].code, 'storage_unavailable');
});

test('a full quota switches to memory without losing the attempt that did not fit', () => {
  const storage = new FakeStorage();
  const store = createAttemptStore({ storage, now: fakeClock().now });
  store.open(ref);
  store.addAttempt(ref, { question: 'dot', answer: ['1'] });
  storage.failSet = domException('QuotaExceededError');
  store.addAttempt(ref, { question: 'dot', answer: ['2'] });
  assert.equal(store.mode, 'memory');
  assert.deepEqual(store.warnings.map((w) => w.code), ['storage_full']);
  assert.deepEqual(store.attempts(ref).map((a) => a.answer[0]), ['1', '2']);
  // What reached the real storage before the quota ran out is still there.
  assert.deepEqual(JSON.parse(storage.getItem(KEY_A)).attempts.map((a) => a.answer[0]), ['1']);
  store.addAttempt(ref, { question: 'dot', answer: ['3'] });
  assert.equal(store.attempts(ref).length, 3);
});

test('merge adds only attempts not already there, in the order they were made', () => {
  const store = createAttemptStore({ storage: new FakeStorage(), now: fakeClock().now });
  store.open({ ...ref, seed: 4 });
  const a = (answer, time) => ({ question: 'dot', answer: [answer], lab: {}, lang: 'ja', time });
  store.merge({ ...ref, attempts: [a('1', '2026-12-01T08:00:00.000Z'), a('3', '2026-12-01T08:02:00.000Z')] });
  const r = store.merge({ ...ref, seed: 4, attempts: [a('2', '2026-12-01T08:01:00.000Z'), a('3', '2026-12-01T08:02:00.000Z')] });
  assert.deepEqual(r, { added: 1 });
  assert.deepEqual(store.attempts(ref).map((x) => x.answer[0]), ['1', '2', '3']);
  assert.throws(() => store.merge({ ...ref, attempts: [{ answer: ['x'] }] }), /malformed attempt/);
});

test('bad calls name the field and what is allowed', () => {
  const store = createAttemptStore({ storage: new FakeStorage() });
  assert.throws(() => store.open({ learner: 'alice', id: 'x' }), /contentHash must be a non-empty string, got undefined/);
  assert.throws(() => store.open({ ...ref, seed: -1 }), /seed must be a 32-bit unsigned integer, got -1/);
  assert.throws(() => store.open({ ...ref, seed: 2 ** 32 }), /seed must be a 32-bit unsigned integer/);
  assert.throws(() => store.addAttempt(ref, { question: 'q', answer: ['1'] }), /no record for hand-calc .* call open\(\) first/);
  store.open(ref);
  assert.throws(() => store.addAttempt(ref, { answer: ['1'] }), /needs a question id and an answer/);
  assert.throws(() => store.addAttempt(ref, { question: 'q', answer: ['1'], lang: 'fr' }), /lang 'ja' or 'en'/);
  assert.throws(() => store.setClaimed(ref, { points: 1 }), /claimed points and max must be numbers/);
});
