// Edges of the attempt store (issue #23): the limits, key parsing, record
// recovery and the store's failure paths, each checked against values worked
// out by hand from the rules in web/js/grading/attempt-store.js's comments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  withinLimits, recordKey, parseRecordKey, MemoryStorage, browserStorage, normalizeAttempt, attemptIdentity,
  recoverRecord, createAttemptStore, FORMAT, VERSION, MAX_ATTEMPTS, RECORD_PREFIX, ASIDE_PREFIX, BACKUP_PREFIX,
  LEGACY_KEY, LEGACY_DONE_KEY,
} from '../../web/js/grading/attempt-store.js';
import { KEY as PROGRESS_KEY } from '../../web/js/progress.js';
import { FakeStorage, fakeClock, domException } from './fakes.mjs';

const L = (o) => ({ depth: 8, nodes: 10, string: 10, ...o });
const T0 = '2026-12-01T09:00:00.000Z';
const ref = { learner: 'u', id: 'e', contentHash: 'h' };
const clean = (o = {}) => ({ format: FORMAT, version: VERSION, learner: 'u', id: 'e', contentHash: 'h', seed: 7, attempts: [], drafts: {}, createdAt: T0, updatedAt: T0, ...o });
const att = (question, answer, time) => ({ question, answer, lab: {}, lang: 'ja', ...(time ? { time } : {}) });

test('the legacy keys: the path progress key is progress.js\'s, the marker is in the store\'s namespace but no record', () => {
  assert.equal(LEGACY_KEY, PROGRESS_KEY);
  assert.ok(LEGACY_DONE_KEY.startsWith('poslab.attempts.'));
  assert.equal(parseRecordKey(LEGACY_DONE_KEY), null);
});

test('withinLimits: each bound is inclusive, and the checks run in order', () => {
  assert.equal(withinLimits('a', L({ nodes: 1 })), null, 'one value with nodes 1 is within');
  assert.equal(withinLimits('a', L({ nodes: 0 })), 'too_large');
  assert.equal(withinLimits('abc', L({ string: 3 })), null, 'a 3-character string with string 3');
  assert.equal(withinLimits('abcd', L({ string: 3 })), 'too_large');
  assert.equal(withinLimits({ abc: 1 }, L({ string: 3 })), null, 'a 3-character key');
  assert.equal(withinLimits({ abcd: 1 }, L({ string: 3 })), 'too_large', 'a 4-character key');
  // [1, 2]: 1 (the list) + 2 items = 3 nodes, exactly the limit.
  assert.equal(withinLimits([1, 2], L({ nodes: 3 })), null);
  // 1 + 3 items > 3: refused before any item is looked at (else undefined would say not_json).
  assert.equal(withinLimits(['a', 'b', undefined], L({ nodes: 3 })), 'too_large');
  assert.equal(withinLimits(['a', 'b', undefined], L({ nodes: 4 })), 'not_json');
  assert.equal(withinLimits(null), null);
  assert.equal(withinLimits(true), null);
  assert.equal(withinLimits([null, false, 0, '']), null);
  assert.equal(withinLimits(undefined), 'not_json');
  assert.equal(withinLimits(Infinity), 'not_json');
  assert.equal(withinLimits(Object.assign(Object.create(null), { a: 1 })), null, 'a prototype-less object is plain JSON');
  assert.equal(withinLimits(new Date(0)), 'not_json');
});

test('parseRecordKey: only three non-empty, decodable parts after the prefix', () => {
  assert.deepEqual(parseRecordKey(`${RECORD_PREFIX}a%3Ab:c:d`), { learner: 'a:b', id: 'c', contentHash: 'd' });
  assert.equal(parseRecordKey(42), null);
  assert.equal(parseRecordKey(`${'x'.repeat(RECORD_PREFIX.length)}a:b:c`), null, 'same length, other prefix');
  assert.equal(parseRecordKey(`${RECORD_PREFIX}a:b:c:d`), null);
  assert.equal(parseRecordKey(`${RECORD_PREFIX}a::c`), null);
  assert.equal(parseRecordKey(`${RECORD_PREFIX}::c`), null);
  assert.equal(parseRecordKey(`${RECORD_PREFIX}a:b:`), null);
  assert.equal(parseRecordKey(`${RECORD_PREFIX}:b:c`), null);
  assert.equal(parseRecordKey(`${RECORD_PREFIX}%E0%A4%A:b:c`), null, 'a broken escape');
});

test('MemoryStorage behaves like a Storage', () => {
  const m = new MemoryStorage({ a: '1' });
  assert.equal(m.length, 1);
  m.setItem('b', 2);
  assert.equal(m.getItem('b'), '2');
  assert.equal(m.length, 2);
  assert.equal(m.key(1), 'b');
  assert.equal(m.key(2), null);
  assert.equal(m.getItem('zz'), null);
  m.removeItem('a');
  assert.equal(m.getItem('a'), null);
  assert.equal(m.key(0), 'b');
  m.clear();
  assert.equal(m.length, 0);
});

test('browserStorage: the window\'s localStorage, or null when missing or throwing', () => {
  const s = new MemoryStorage();
  assert.equal(browserStorage({ localStorage: s }), s);
  assert.equal(browserStorage({}), null);
  assert.equal(browserStorage({ get localStorage() { throw domException('SecurityError'); } }), null);
});

test('normalizeAttempt: what is refused and what is filled in', () => {
  assert.equal(normalizeAttempt(null), null);
  const arr = Object.assign([], { question: 'q', answer: '1' });
  assert.equal(normalizeAttempt(arr), null, 'a list is not an attempt');
  assert.deepEqual(normalizeAttempt({ question: 'q'.repeat(200), answer: '1' }), { question: 'q'.repeat(200), answer: '1', lab: {}, lang: 'ja' });
  assert.equal(normalizeAttempt({ question: 'q'.repeat(201), answer: '1' }), null);
  let deep = {};
  for (let i = 0; i < 9; i++) deep = { d: deep };
  assert.equal(normalizeAttempt({ question: 'q', answer: '1', lab: deep }), null, 'a lab nested 10 deep');
  assert.deepEqual(normalizeAttempt({ question: 'q', answer: '1', lab: null, lang: 'en' }), { question: 'q', answer: '1', lab: {}, lang: 'en' });
  assert.equal(normalizeAttempt({ question: 'q', answer: '1', time: 'not a date' }), null);
  assert.equal(normalizeAttempt({ question: 'q', answer: '1', time: new Date(0) }), null, 'a Date object is not a stored time');
  assert.equal(normalizeAttempt({ question: 'q', answer: '1', time: T0 }).time, T0);
});

test('attemptIdentity: all five kept fields, a missing time as null', () => {
  assert.equal(attemptIdentity(att('q', ['1'], T0)), JSON.stringify(['q', ['1'], {}, 'ja', T0]));
  assert.equal(attemptIdentity(att('q', ['1'])), JSON.stringify(['q', ['1'], {}, 'ja', null]));
});

test('recoverRecord: a clean record is kept as it is, not marked fixed', () => {
  const v = clean({ attempts: [att('q', '1', T0)], drafts: { q2: 'x', q3: undefined }, claimed: { points: 1, max: 2 } });
  const got = recoverRecord(v, ref);
  assert.deepEqual(got, { record: clean({ attempts: [att('q', '1', T0)], drafts: { q2: 'x' }, claimed: { points: 1, max: 2 } }), dropped: 0, fixed: false });
  const noClaim = recoverRecord(clean(), ref).record;
  assert.ok(!('claimed' in noClaim));
  assert.equal(recoverRecord(clean({ seed: undefined }), ref).fixed, false, 'no seed yet is not damage');
  assert.equal(recoverRecord(clean({ drafts: undefined }), ref).fixed, false);
  assert.deepEqual(recoverRecord(clean({ attempts: undefined }), ref).dropped, 0, 'no attempts yet is not damage');
  const textVersion = recoverRecord(clean({ version: '2' }), ref);
  assert.deepEqual([textVersion.newer, textVersion.record.version, textVersion.fixed], [undefined, VERSION, true], 'only a number can be a newer version');
});

test('recoverRecord: what is not a record', () => {
  assert.equal(recoverRecord(null), null);
  assert.equal(recoverRecord([]), null);
  assert.deepEqual(recoverRecord(clean({ version: 2 })), { newer: true });
  assert.equal(recoverRecord(clean({ learner: undefined })), null, 'no learner and no key to say it');
  assert.equal(recoverRecord(clean({ id: undefined })), null);
  assert.equal(recoverRecord(clean({ contentHash: undefined })), null);
  assert.equal(recoverRecord(clean({ id: 'other' }), ref), null, 'another exercise than the key');
  assert.equal(recoverRecord(clean({ contentHash: 'other' }), ref), null, 'another version than the key');
  assert.equal(recoverRecord(clean({ learner: 'other' }), ref), null);
});

test('recoverRecord: an empty or missing identity comes from the key and marks the record fixed', () => {
  const got = recoverRecord(clean({ learner: '' }), ref);
  assert.equal(got.record.learner, 'u');
  assert.equal(got.fixed, true);
  assert.equal(recoverRecord(clean({ format: 'x' }), ref).fixed, true);
  assert.equal(recoverRecord(clean({ version: 0 }), ref).fixed, true);
  assert.equal(recoverRecord(clean({ format: undefined, version: 0 }), ref).record.version, VERSION);
});

test('recoverRecord: the seed is a 32-bit unsigned integer, else null (fixed)', () => {
  for (const seed of [0, 0xffffffff, 12345]) {
    const got = recoverRecord(clean({ seed }), ref);
    assert.equal(got.record.seed, seed);
    assert.equal(got.fixed, false);
  }
  for (const seed of [-1, 2 ** 32, 1.5, '5']) {
    const got = recoverRecord(clean({ seed }), ref);
    assert.equal(got.record.seed, null, `seed ${seed}`);
    assert.equal(got.fixed, true, `seed ${seed}`);
  }
  assert.equal(recoverRecord(clean({ seed: null }), ref).fixed, false);
});

test('recoverRecord: attempts beyond MAX_ATTEMPTS, bad attempts, a non-list', () => {
  const many = Array.from({ length: MAX_ATTEMPTS + 2 }, (_, i) => att(`q${i}`, '1'));
  const got = recoverRecord(clean({ attempts: many }), ref);
  assert.equal(got.record.attempts.length, MAX_ATTEMPTS);
  assert.equal(got.record.attempts.at(-1).question, `q${MAX_ATTEMPTS - 1}`);
  assert.equal(got.dropped, 2);
  const bad = recoverRecord(clean({ attempts: [att('q', '1'), { question: 'q' }] }), ref);
  assert.deepEqual([bad.record.attempts.length, bad.dropped, bad.fixed], [1, 1, true]);
  for (const attempts of [5, {}, 'x']) {
    const r = recoverRecord(clean({ attempts }), ref);
    assert.deepEqual([r.record.attempts, r.dropped, r.fixed], [[], 1, true], `attempts ${JSON.stringify(attempts)}`);
  }
});

test('recoverRecord: drafts that cannot be kept are left out and the record marked fixed', () => {
  const proto = recoverRecord(JSON.parse(JSON.stringify(clean()).replace('"drafts":{}', '"drafts":{"__proto__":"x","ok":"y"}')), ref);
  assert.equal(proto.fixed, true);
  assert.deepEqual(Object.keys(proto.record.drafts), ['ok']);
  assert.equal(Object.getPrototypeOf(proto.record.drafts), Object.prototype);
  const k200 = 'k'.repeat(200);
  const long = recoverRecord(clean({ drafts: { [k200]: 'a', [`${k200}k`]: 'b' } }), ref);
  assert.deepEqual([Object.keys(long.record.drafts), long.fixed], [[k200], true]);
  const deep = recoverRecord(clean({ drafts: { q: [[[[[[[[[['x']]]]]]]]]] } }), ref);
  assert.deepEqual([deep.record.drafts, deep.fixed], [{}, true]);
  const notObj = recoverRecord(clean({ drafts: 'x' }), ref);
  assert.deepEqual([notObj.record.drafts, notObj.fixed], [{}, true]);
});

test('recoverRecord: claimed needs finite points and max; only those two are kept', () => {
  assert.deepEqual(recoverRecord(clean({ claimed: { points: 2, max: 3, extra: 1 } }), ref).record.claimed, { points: 2, max: 3 });
  const bad = recoverRecord(clean({ claimed: { points: 'x', max: 3 } }), ref);
  assert.ok(!('claimed' in bad.record));
  assert.equal(bad.fixed, true);
});

test('recoverRecord: times are kept when they parse, else taken from the first and last attempts', () => {
  const t = ['2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z', '2026-01-03T00:00:00.000Z'];
  const attempts = t.map((x, i) => att(`q${i}`, '1', x));
  const kept = recoverRecord(clean({ attempts }), ref).record;
  assert.deepEqual([kept.createdAt, kept.updatedAt], [T0, T0]);
  const derived = recoverRecord(clean({ attempts, createdAt: 'garbage', updatedAt: new Date(0) }), ref).record;
  assert.deepEqual([derived.createdAt, derived.updatedAt], [t[0], t[2]]);
  const none = recoverRecord(clean({ createdAt: undefined, updatedAt: undefined }), ref).record;
  assert.deepEqual([none.createdAt, none.updatedAt], [null, null]);
});

// A Storage whose listing names a key that is gone when read (another tab
// removed it between the two calls), and whose key() can return null.
class RacyStorage extends FakeStorage {
  constructor(entries, { phantom, nullAt } = {}) {
    super(entries);
    this.phantom = phantom;
    this.nullAt = nullAt;
  }
  get length() {
    return this.map.size + (this.phantom ? 1 : 0) + (this.nullAt !== undefined ? 1 : 0);
  }
  key(i) {
    if (i === this.nullAt) return null;
    const ks = [...this.map.keys()];
    if (this.phantom && i === ks.length) return this.phantom;
    return ks[i] ?? null;
  }
}

test('loading: a key listed but gone, or a null from key(), is skipped quietly', () => {
  const phantom = recordKey({ learner: 'u', id: 'gone', contentHash: 'h' });
  const storage = new RacyStorage({ [recordKey(ref)]: JSON.stringify(clean()) }, { phantom, nullAt: 0 });
  const store = createAttemptStore({ storage, now: fakeClock().now });
  assert.deepEqual(store.warnings, []);
  assert.equal(store.mode, 'local');
  assert.equal(store.failure, null);
});

test('a missing Storage: memory, failure "unavailable", one warning', () => {
  const store = createAttemptStore({ storage: null, now: fakeClock().now });
  assert.deepEqual([store.mode, store.failure, store.warnings.map((w) => w.code)], ['memory', 'unavailable', ['storage_unavailable']]);
});

test('a write that fails: quota errors by name or code say "full", others "unavailable", warned once', () => {
  for (const [err, failure, code] of [
    [domException('QuotaExceededError'), 'full', 'storage_full'],
    [Object.assign(new Error('q'), { code: 22 }), 'full', 'storage_full'],
    [Object.assign(new Error('q'), { code: 1014 }), 'full', 'storage_full'],
    [domException('SecurityError'), 'unavailable', 'storage_unavailable'],
  ]) {
    const aside = `${ASIDE_PREFIX}old`;
    const storage = new FakeStorage({ [aside]: 'raw', other: 'x' });
    const warned = [];
    const store = createAttemptStore({ storage, now: fakeClock().now, onWarning: (w) => warned.push(w.code) });
    assert.equal(store.mode, 'local');
    storage.failSet = err;
    store.open(ref);
    store.addAttempt(ref, { question: 'q', answer: '1' });
    assert.deepEqual([store.mode, store.failure, warned], ['memory', failure, [code]], err.message);
    assert.deepEqual(store.setAside(), [{ key: aside, value: 'raw' }], 'what was there stays readable');
    assert.equal(store.attempts(ref).length, 1);
  }
});

test('a throw of null is not a full quota', () => {
  const storage = new FakeStorage();
  const store = createAttemptStore({ storage, now: fakeClock().now });
  storage.setItem = () => { throw null; }; // eslint-disable-line no-throw-literal
  store.open(ref);
  assert.equal(store.failure, 'unavailable');
});

test('a read or a removal that fails goes to memory with a warning instead of throwing', () => {
  const aside = `${ASIDE_PREFIX}old`;
  const storage = new FakeStorage({ [aside]: 'raw' });
  const store = createAttemptStore({ storage, now: fakeClock().now });
  storage.getItem = () => { throw domException('SecurityError'); };
  assert.deepEqual(store.setAside(), [{ key: aside, value: null }]);
  assert.deepEqual([store.mode, store.warnings.map((w) => w.code)], ['memory', ['storage_unavailable']]);

  const s2 = new FakeStorage();
  const st2 = createAttemptStore({ storage: s2, now: fakeClock().now });
  st2.open(ref);
  s2.removeItem = () => { throw domException('SecurityError'); };
  const r = st2.reset();
  assert.equal(r.removed, 1);
  assert.deepEqual([st2.mode, st2.warnings.map((w) => w.code), st2.record(ref)], ['memory', ['storage_unavailable'], null]);
});

test('reset at one instant three times: backup keys base, #2, #3', () => {
  const clock = fakeClock();
  const store = createAttemptStore({ storage: new FakeStorage(), now: clock.now });
  const keys = [];
  for (let i = 0; i < 3; i++) {
    store.open(ref);
    keys.push(store.reset().backupKey);
  }
  const base = `${BACKUP_PREFIX}${T0}`;
  assert.deepEqual(keys, [base, `${base}#2`, `${base}#3`]);
});

test('open/addAttempt/setClaimed/draft/attempts: the checks on what is passed', () => {
  const store = createAttemptStore({ storage: new FakeStorage(), now: fakeClock().now });
  assert.throws(() => store.open(undefined), { name: 'TypeError', message: /learner must be a non-empty string, got undefined/ });
  assert.throws(() => store.open({ ...ref, learner: '' }), { name: 'TypeError', message: /learner must be a non-empty string, got ""/ });
  assert.equal(store.open({ ...ref, seed: 0 }).seed, 0);
  assert.equal(store.open({ ...ref, seed: 0xffffffff }).seed, 0xffffffff);
  assert.equal(store.open({ ...ref, seed: null }).seed, 0xffffffff, 'null leaves the seed alone');
  assert.throws(() => store.open({ ...ref, seed: 2 ** 32 }), RangeError);
  assert.throws(() => store.open({ ...ref, seed: -1 }), RangeError);
  assert.throws(() => store.addAttempt(ref, { question: 'q1', answer: undefined }), { name: 'TypeError', message: /"question":"q1"/ });
  assert.throws(() => store.setClaimed(ref, { points: 'x', max: 2 }), { name: 'TypeError', message: /"points":"x","max":2/ });
  store.setClaimed(ref, { points: 3, max: 4 });
  assert.deepEqual(store.record(ref).claimed, { points: 3, max: 4 });
  const other = { ...ref, id: 'never-opened' };
  assert.deepEqual(store.attempts(other), []);
  assert.equal(store.draft(other, 'q'), undefined);
  assert.equal(store.record(other), null);
});

test('records() sorts by creation time then id; versions() is one learner\'s one exercise', () => {
  const rec = (learner, id, contentHash, createdAt) => [recordKey({ learner, id, contentHash }), JSON.stringify(clean({ learner, id, contentHash, createdAt }))];
  const storage = new FakeStorage(Object.fromEntries([
    rec('u', 'a', 'h2', '2026-01-03T00:00:00.000Z'),
    rec('u', 'b', 'h1', '2026-01-02T00:00:00.000Z'),
    rec('v', 'a', 'h1', '2026-01-01T00:00:00.000Z'),
    rec('u', 'a', 'h1', '2026-01-02T00:00:00.000Z'),
  ]));
  const store = createAttemptStore({ storage, now: fakeClock().now });
  const ids = (rs) => rs.map((r) => `${r.learner}/${r.id}/${r.contentHash}`);
  assert.deepEqual(ids(store.records()), ['v/a/h1', 'u/a/h1', 'u/b/h1', 'u/a/h2']);
  assert.deepEqual(ids(store.records({ learner: 'u' })), ['u/a/h1', 'u/b/h1', 'u/a/h2']);
  assert.deepEqual(ids(store.versions({ learner: 'u', id: 'a' })), ['u/a/h1', 'u/a/h2']);
  store.reset({ learner: 'u' });
  assert.deepEqual(ids(store.records()), ['v/a/h1'], 'reset of one learner leaves the other');
  store.reset();
  assert.deepEqual(store.records(), []);
});

test('merge: seed only into a record without one; claimed only when none; attempts in time order when all are timed', () => {
  const clock = fakeClock();
  const store = createAttemptStore({ storage: new FakeStorage(), now: clock.now });
  assert.deepEqual(store.merge({ ...ref }), { added: 0 });
  assert.equal(store.record(ref).seed, null);
  store.merge({ ...ref, seed: undefined });
  assert.equal(store.record(ref).seed, null);
  store.merge({ ...ref, seed: 5, claimed: { points: 2, max: 3, extra: 'x' } });
  assert.equal(store.record(ref).seed, 5);
  assert.deepEqual(store.record(ref).claimed, { points: 2, max: 3 });
  store.merge({ ...ref, seed: 7, claimed: { points: 9, max: 9 } });
  assert.equal(store.record(ref).seed, 5);
  assert.deepEqual(store.record(ref).claimed, { points: 2, max: 3 });

  const t1 = '2026-12-01T08:00:00.000Z';
  const t2 = '2026-12-01T10:00:00.000Z';
  clock.tick(1000);
  store.merge({ ...ref, attempts: [att('q', 'b', t2)] });
  const after1 = store.record(ref).updatedAt;
  assert.equal(after1, '2026-12-01T09:00:01.000Z', 'a merge that adds moves updatedAt');
  clock.tick(1000);
  assert.deepEqual(store.merge({ ...ref, attempts: [att('q', 'b', t2)] }), { added: 0 });
  assert.equal(store.record(ref).updatedAt, after1, 'nothing added, nothing moved');
  store.merge({ ...ref, attempts: [att('q', 'a', t1)] });
  assert.deepEqual(store.attempts(ref).map((a) => a.answer), ['a', 'b'], 'sorted by time');
  const other = { ...ref, id: 'f' };
  store.merge({ ...other, attempts: [att('q', 'late', t2)] });
  store.merge({ ...other, attempts: [att('q', 'early', t1), att('q', 'untimed')] });
  assert.deepEqual(store.attempts(other).map((a) => a.answer), ['late', 'early', 'untimed'], 'one untimed: order left as it came');
});

test('attach: drafts flushed when hidden; nothing thrown without a document; detach removes both listeners', () => {
  const storage = new FakeStorage();
  const store = createAttemptStore({ storage, now: fakeClock().now });
  store.open(ref);
  const bare = new EventTarget();
  const detachBare = store.attach(bare);
  store.setDraft(ref, 'q', 'typed');
  bare.dispatchEvent(new Event('visibilitychange'));
  assert.deepEqual(JSON.parse(storage.getItem(recordKey(ref))).drafts, {}, 'no document: not hidden, not flushed');
  detachBare();

  const win = Object.assign(new EventTarget(), { document: { visibilityState: 'hidden' } });
  const detach = store.attach(win);
  detach();
  win.dispatchEvent(new Event('visibilitychange'));
  win.dispatchEvent(new Event('pagehide'));
  assert.deepEqual(JSON.parse(storage.getItem(recordKey(ref))).drafts, {}, 'detached: not flushed');
  store.attach(win);
  win.dispatchEvent(new Event('visibilitychange'));
  assert.deepEqual(JSON.parse(storage.getItem(recordKey(ref))).drafts, { q: 'typed' });
});

test('backups() and setAside() list only their own keys, sorted', () => {
  const b1 = `${BACKUP_PREFIX}2026-01-01T00:00:00.000Z`;
  const b2 = `${BACKUP_PREFIX}2026-02-01T00:00:00.000Z`;
  const a1 = `${ASIDE_PREFIX}2026-01-01`;
  const a2 = `${ASIDE_PREFIX}2026-02-01`;
  const storage = new FakeStorage({ [b2]: JSON.stringify({ records: [1, 2] }), [a2]: 'y', other: 'z', [b1]: 'not json', [a1]: 'x' });
  const store = createAttemptStore({ storage, now: fakeClock().now });
  assert.deepEqual(store.backups(), [{ key: b1, count: null }, { key: b2, count: 2 }]);
  assert.deepEqual(store.setAside(), [{ key: a1, value: 'x' }, { key: a2, value: 'y' }]);
});

test('restoreBackup: skips what is not a record, keeps the drafts typed since', () => {
  const storage = new FakeStorage();
  const store = createAttemptStore({ storage, now: fakeClock().now });
  assert.throws(() => store.restoreBackup(`${BACKUP_PREFIX}none`), { name: 'RangeError', message: /no backup/ });
  assert.throws(() => store.restoreBackup('elsewhere'), RangeError);
  const key = `${BACKUP_PREFIX}x`;
  const backed = clean({ attempts: [att('q', '1', T0), att('q', '2', T0)], drafts: { a: 'old', b: 'only-in-backup' } });
  storage.setItem(key, JSON.stringify({ records: [null, clean({ version: 9 }), backed] }));
  store.open(ref);
  store.setDraft(ref, 'a', 'mine');
  assert.deepEqual(store.restoreBackup(key), { added: 2 });
  assert.equal(store.draft(ref, 'a'), 'mine');
  assert.equal(store.draft(ref, 'b'), 'only-in-backup');
  storage.setItem(key, JSON.stringify({}));
  assert.deepEqual(store.restoreBackup(key), { added: 0 });
});
