// Every answer and attempt, kept in localStorage as it is made (drafts on
// `pagehide`), one record per (learner, exercise id, content hash): editing an
// exercise changes its hash, so its attempts start a fresh record while the
// old one stays. Nothing is ever silently dropped: damaged or old-format data
// is recovered where it can be and otherwise set aside under another key with
// a warning; a reset first writes a backup; a Storage that throws (private
// mode, some file:// pages, a full quota) degrades to memory with a warning.
//
// The store only keeps what the student did. Scores, seeds and content hashes
// come from the core (lab.gradeExercise / lab.variant); nothing here grades.
//
// Stored record (key `poslab.attempts.v1:<learner>:<exercise id>:<content hash>`,
// each part encodeURIComponent'ed):
//   { format: 'position-lab-attempts', version: 1, learner, id, contentHash,
//     seed, attempts: [{question, answer, lab, lang, time}], drafts: {question: answer},
//     claimed?: {points, max}, createdAt, updatedAt }
import { messages } from './strings.js';

export const FORMAT = 'position-lab-attempts';
export const VERSION = 1;
export const RECORD_PREFIX = `poslab.attempts.v${VERSION}:`;
export const ASIDE_PREFIX = 'poslab.attempts.aside:';
export const BACKUP_PREFIX = 'poslab.attempts.backup:';
// What web/js/progress.js wrote before grading existed (no content hash, no seed).
export const LEGACY_KEY = 'poslab.progress.v1';
export const LEGACY_DONE_KEY = 'poslab.attempts.legacy-kept';

export function recordKey({ learner, id, contentHash }) {
  return RECORD_PREFIX + [learner, id, contentHash].map(encodeURIComponent).join(':');
}

// The (learner, id, contentHash) a record key names, or null.
export function parseRecordKey(key) {
  if (typeof key !== 'string' || !key.startsWith(RECORD_PREFIX)) return null;
  const parts = key.slice(RECORD_PREFIX.length).split(':');
  if (parts.length !== 3) return null;
  try {
    const [learner, id, contentHash] = parts.map(decodeURIComponent);
    return learner && id && contentHash ? { learner, id, contentHash } : null;
  } catch {
    return null;
  }
}

// A Storage-shaped map for when the real one is unusable (and for tests).
export class MemoryStorage {
  constructor(entries = {}) {
    this.map = new Map(Object.entries(entries));
  }
  get length() {
    return this.map.size;
  }
  key(i) {
    return [...this.map.keys()][i] ?? null;
  }
  getItem(k) {
    return this.map.has(k) ? this.map.get(k) : null;
  }
  setItem(k, v) {
    this.map.set(String(k), String(v));
  }
  removeItem(k) {
    this.map.delete(k);
  }
  clear() {
    this.map.clear();
  }
}

// window.localStorage, or null when even reading the property throws
// (Chromium does that for file:// pages with storage blocked, and sandboxed iframes).
export function browserStorage(win = globalThis) {
  try {
    const s = win.localStorage;
    return s ?? null;
  } catch {
    return null;
  }
}

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

// One attempt as kept: the submission's shape ({question, answer, lab, lang, time}).
export function normalizeAttempt(a) {
  if (!isObject(a)) return null;
  if (typeof a.question !== 'string' || a.question === '' || !('answer' in a) || a.answer === undefined) return null;
  // lab and lang get the core's defaults ({} and 'ja') written out, so that the
  // same attempt always looks the same (stored, downloaded, imported back).
  const out = { question: a.question, answer: a.answer, lab: a.lab ?? {}, lang: a.lang ?? 'ja' };
  if (!isObject(out.lab) || (out.lang !== 'ja' && out.lang !== 'en')) return null;
  if (a.time !== undefined) {
    if (typeof a.time !== 'string' || Number.isNaN(Date.parse(a.time))) return null;
    out.time = a.time;
  }
  return out;
}

// Two attempts are the same if every kept field is: how merging an imported
// submission avoids doubling what is already here.
export function attemptIdentity(a) {
  return JSON.stringify([a.question, a.answer, a.lab, a.lang, a.time ?? null]);
}

// A parsed stored value → { record, dropped, fixed } (what could be kept), or
// { newer: true }, or null when nothing is usable. `hint` is what the key says.
export function recoverRecord(value, hint) {
  if (!isObject(value)) return null;
  if (typeof value.version === 'number' && value.version > VERSION) return { newer: true };
  let fixed = value.format !== FORMAT || value.version !== VERSION;
  const pick = (field, ok) => {
    if (ok(value[field])) return value[field];
    fixed = true;
    return hint?.[field];
  };
  const str = (v) => typeof v === 'string' && v !== '';
  const learner = pick('learner', str);
  const id = pick('id', str);
  const contentHash = pick('contentHash', str);
  if (!learner || !id || !contentHash) return null;
  // A key names one record: a value claiming another identity is not this key's record.
  if (hint && (learner !== hint.learner || id !== hint.id || contentHash !== hint.contentHash)) return null;
  let seed = value.seed;
  if (!(Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff)) {
    if (seed !== undefined && seed !== null) fixed = true;
    seed = null; // the core recomputes it when the exercise is opened again
  }
  let dropped = 0;
  const attempts = [];
  if (Array.isArray(value.attempts)) {
    for (const a of value.attempts) {
      const n = normalizeAttempt(a);
      if (n) attempts.push(n);
      else dropped += 1;
    }
  } else if (value.attempts !== undefined) {
    dropped += 1;
  }
  const drafts = {};
  if (isObject(value.drafts)) {
    for (const [q, ans] of Object.entries(value.drafts)) if (ans !== undefined) drafts[q] = ans;
  } else if (value.drafts !== undefined) fixed = true;
  let claimed;
  if (isObject(value.claimed) && Number.isFinite(value.claimed.points) && Number.isFinite(value.claimed.max)) {
    claimed = { points: value.claimed.points, max: value.claimed.max };
  } else if (value.claimed !== undefined) fixed = true;
  const time = (v) => (typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? v : undefined);
  const record = {
    format: FORMAT,
    version: VERSION,
    learner,
    id,
    contentHash,
    seed,
    attempts,
    drafts,
    createdAt: time(value.createdAt) ?? attempts[0]?.time ?? null,
    updatedAt: time(value.updatedAt) ?? attempts.at(-1)?.time ?? null,
  };
  if (claimed) record.claimed = claimed;
  return { record, dropped, fixed: fixed || dropped > 0 };
}

function clone(v) {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
}

/**
 * @param {object} [options]
 * @param {Storage|null} [options.storage] localStorage (default) or any Storage-shaped object.
 * @param {() => Date} [options.now]
 * @param {(w: {code: string, message: {ja: string, en: string}}) => void} [options.onWarning]
 */
export function createAttemptStore({ storage = browserStorage(), now = () => new Date(), onWarning } = {}) {
  const warnings = [];
  const cache = new Map(); // key → record
  const dirty = new Set();
  let backend = storage;
  let mode = 'local';

  const warn = (code, params = {}) => {
    const w = { code, ...params, message: messages(`grading.${code}`, params) };
    warnings.push(w);
    onWarning?.(w);
  };
  const iso = () => now().toISOString();

  const toMemory = (code) => {
    if (mode === 'memory') return;
    mode = 'memory';
    const memory = new MemoryStorage();
    // Whatever was readable (and set aside) stays reachable for the visit.
    try {
      for (const k of keysOf(backend)) {
        const v = backend.getItem(k);
        if (v !== null) memory.setItem(k, v);
      }
    } catch {
      // Nothing more can be read from it.
    }
    backend = memory;
    for (const [k, r] of cache) memory.setItem(k, JSON.stringify(r));
    warn(code);
  };
  const isQuota = (e) => e && (e.name === 'QuotaExceededError' || e.code === 22 || e.code === 1014);
  const write = (key, value) => {
    try {
      backend.setItem(key, value);
    } catch (e) {
      toMemory(isQuota(e) ? 'storage_full' : 'storage_unavailable');
      backend.setItem(key, value);
    }
  };
  const read = (key) => {
    try {
      return backend.getItem(key);
    } catch {
      toMemory('storage_unavailable');
      return backend.getItem(key);
    }
  };
  const remove = (key) => {
    try {
      backend.removeItem(key);
    } catch {
      toMemory('storage_unavailable');
      backend.removeItem(key);
    }
  };
  function keysOf(s) {
    const out = [];
    for (let i = 0; i < s.length; i++) {
      const k = s.key(i);
      if (k !== null) out.push(k);
    }
    return out;
  }
  const keys = () => {
    try {
      return keysOf(backend);
    } catch {
      toMemory('storage_unavailable');
      return keysOf(backend);
    }
  };
  const freeKey = (base) => {
    let k = base;
    for (let n = 2; read(k) !== null; n++) k = `${base}#${n}`;
    return k;
  };
  // Keeps a value under another key; returns that key.
  const setAside = (key, raw) => {
    const aside = freeKey(`${ASIDE_PREFIX}${iso()}:${key}`);
    write(aside, raw);
    return aside;
  };
  const save = (key) => {
    dirty.delete(key);
    write(key, JSON.stringify(cache.get(key)));
  };

  // Load what is there, recovering what can be recovered.
  if (!backend) {
    backend = new MemoryStorage();
    mode = 'memory';
    warn('storage_unavailable');
  }
  for (const key of keys()) {
    if (!key.startsWith(RECORD_PREFIX)) continue;
    const raw = read(key);
    if (raw === null) continue;
    let value;
    try {
      value = JSON.parse(raw);
    } catch {
      value = undefined;
    }
    const hint = parseRecordKey(key);
    const got = value === undefined ? null : recoverRecord(value, hint);
    if (!got || !hint) {
      const aside = setAside(key, raw);
      remove(key);
      warn('storage_corrupt', { key, aside });
    } else if (got.newer) {
      const aside = setAside(key, raw);
      remove(key);
      warn('storage_newer', { key, aside });
    } else {
      cache.set(key, got.record);
      if (got.fixed) {
        const aside = setAside(key, raw);
        save(key);
        warn('storage_recovered', { key, aside, kept: got.record.attempts.length, dropped: got.dropped });
      }
    }
  }
  // The pre-grading progress cannot be graded (no content hash, no seed): keep a
  // copy aside once, and leave the original to whatever still reads it.
  const legacy = read(LEGACY_KEY);
  if (legacy !== null && read(LEGACY_DONE_KEY) === null) {
    const aside = setAside(LEGACY_KEY, legacy);
    write(LEGACY_DONE_KEY, aside);
    warn('storage_legacy', { key: LEGACY_KEY, aside });
  } else if (legacy === null && read(LEGACY_DONE_KEY) === null) {
    // A browser that starts with this version: the progress.js written from
    // now on is this version's own (the path's marks), not pre-grading data.
    write(LEGACY_DONE_KEY, '');
  }

  const checkRef = (ref) => {
    for (const f of ['learner', 'id', 'contentHash']) {
      if (typeof ref?.[f] !== 'string' || ref[f] === '') throw new TypeError(`attempt store: ${f} must be a non-empty string, got ${JSON.stringify(ref?.[f])}`);
    }
    return recordKey(ref);
  };
  const existing = (ref) => {
    const key = checkRef(ref);
    const r = cache.get(key);
    if (!r) throw new Error(`attempt store: no record for ${ref.id} (${ref.contentHash}); call open() first`);
    return [key, r];
  };

  const store = {
    get mode() {
      return mode;
    },
    warnings,

    // The record of this exercise version for this learner, created if new.
    // seed: from lab.variant({exercise, learner}); it is stored with the record.
    open(ref) {
      const key = checkRef(ref);
      const hasSeed = ref.seed !== undefined && ref.seed !== null;
      if (hasSeed && !(Number.isInteger(ref.seed) && ref.seed >= 0 && ref.seed <= 0xffffffff)) throw new RangeError(`attempt store: seed must be a 32-bit unsigned integer, got ${JSON.stringify(ref.seed)}`);
      let r = cache.get(key);
      if (!r) {
        const t = iso();
        r = { format: FORMAT, version: VERSION, learner: ref.learner, id: ref.id, contentHash: ref.contentHash, seed: null, attempts: [], drafts: {}, createdAt: t, updatedAt: t };
        cache.set(key, r);
      }
      if (hasSeed) r.seed = ref.seed;
      save(key);
      return clone(r);
    },

    record(ref) {
      return clone(cache.get(checkRef(ref))) ?? null;
    },

    // Saved at once. answer: numeric → the strings typed; choice → option ids;
    // task → the lab settings. Malformed answers are kept too (they cost no
    // attempt: the core decides that when it grades).
    addAttempt(ref, { question, answer, lab, lang }) {
      const [key, r] = existing(ref);
      const attempt = normalizeAttempt({ question, answer, lab, lang, time: iso() });
      if (!attempt) throw new TypeError(`attempt store: an attempt needs a question id and an answer (lab an object, lang 'ja' or 'en'), got ${JSON.stringify({ question, answer, lab, lang })}`);
      r.attempts.push(clone(attempt));
      delete r.drafts[question];
      r.updatedAt = attempt.time;
      save(key);
      return clone(attempt);
    },

    attempts(ref) {
      return clone(cache.get(checkRef(ref))?.attempts ?? []);
    },

    // What is typed but not yet checked: kept on flush() (pagehide).
    setDraft(ref, question, answer) {
      const [key, r] = existing(ref);
      if (answer === undefined) delete r.drafts[question];
      else r.drafts[question] = clone(answer);
      dirty.add(key);
    },

    draft(ref, question) {
      return clone(cache.get(checkRef(ref))?.drafts[question]);
    },

    // The score the page computed with the core (shown in the submission; the
    // instructor's re-grade only compares it).
    setClaimed(ref, { points, max }) {
      const [key, r] = existing(ref);
      if (!Number.isFinite(points) || !Number.isFinite(max)) throw new TypeError(`attempt store: claimed points and max must be numbers, got ${JSON.stringify({ points, max })}`);
      r.claimed = { points, max };
      save(key);
    },

    // Every record (of one learner, if given), oldest first.
    records({ learner } = {}) {
      return [...cache.values()]
        .filter((r) => learner === undefined || r.learner === learner)
        .sort((a, b) => String(a.createdAt).localeCompare(String(b.createdAt)) || a.id.localeCompare(b.id))
        .map(clone);
    },

    // All versions (content hashes) of one exercise a learner has records for.
    versions({ learner, id }) {
      return store.records({ learner }).filter((r) => r.id === id);
    },

    // Adds a record's attempts (an imported submission's exercise) to the
    // store; attempts already here are not doubled. Returns {added}.
    merge({ learner, id, contentHash, seed, attempts = [], claimed }) {
      const key = checkRef({ learner, id, contentHash });
      if (!cache.has(key)) store.open({ learner, id, contentHash });
      const r = cache.get(key);
      if (r.seed === null && seed !== undefined && seed !== null) r.seed = seed;
      const seen = new Set(r.attempts.map(attemptIdentity));
      let added = 0;
      for (const a of attempts) {
        const n = normalizeAttempt(a);
        if (!n) throw new TypeError(`attempt store: cannot merge a malformed attempt ${JSON.stringify(a)}`);
        if (seen.has(attemptIdentity(n))) continue;
        seen.add(attemptIdentity(n));
        r.attempts.push(n);
        added += 1;
      }
      // Keep the attempts in the order they were made: the core counts the
      // first max_attempts of them.
      if (r.attempts.every((a) => a.time)) r.attempts.sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
      if (!r.claimed && claimed) r.claimed = { points: claimed.points, max: claimed.max };
      if (added) r.updatedAt = iso();
      save(key);
      return { added };
    },

    flush() {
      for (const key of [...dirty]) if (cache.has(key)) save(key);
    },

    // Flushes drafts when the page goes away (pagehide, and hidden tabs,
    // which mobile browsers may close without a pagehide). Returns a detach function.
    attach(target = globalThis) {
      const onHide = () => store.flush();
      const onVisibility = () => {
        if (target.document?.visibilityState === 'hidden') store.flush();
      };
      target.addEventListener('pagehide', onHide);
      target.addEventListener('visibilitychange', onVisibility);
      return () => {
        target.removeEventListener('pagehide', onHide);
        target.removeEventListener('visibilitychange', onVisibility);
      };
    },

    // Clears a learner's records (or one exercise's, every version) after
    // writing them to a backup key. Returns {backupKey, removed}.
    reset({ learner, id } = {}) {
      store.flush();
      const doomed = [...cache.entries()].filter(([, r]) => (learner === undefined || r.learner === learner) && (id === undefined || r.id === id));
      if (!doomed.length) return { backupKey: null, removed: 0 };
      const backupKey = freeKey(`${BACKUP_PREFIX}${iso()}`);
      // The backup must be written before anything is removed.
      write(backupKey, JSON.stringify({ format: `${FORMAT}-backup`, version: VERSION, createdAt: iso(), records: doomed.map(([, r]) => r) }));
      for (const [key] of doomed) {
        cache.delete(key);
        dirty.delete(key);
        remove(key);
      }
      return { backupKey, removed: doomed.length };
    },

    backups() {
      return keys()
        .filter((k) => k.startsWith(BACKUP_PREFIX))
        .sort()
        .map((key) => {
          let count = null;
          try {
            count = JSON.parse(read(key)).records.length;
          } catch {
            // Listed anyway: it is the student's data.
          }
          return { key, count };
        });
    },

    // Puts a backup's records back (merged: nothing here is lost). Returns {added}.
    restoreBackup(key) {
      if (!key.startsWith(BACKUP_PREFIX)) throw new RangeError(`attempt store: ${key} is not a backup key (${BACKUP_PREFIX}…)`);
      const raw = read(key);
      if (raw === null) throw new RangeError(`attempt store: no backup ${key}`);
      const value = JSON.parse(raw);
      let added = 0;
      for (const rec of value.records ?? []) {
        const got = recoverRecord(rec);
        if (!got || got.newer) continue;
        added += store.merge(got.record).added;
        for (const [q, a] of Object.entries(got.record.drafts)) if (store.draft(got.record, q) === undefined) store.setDraft(got.record, q, a);
      }
      store.flush();
      return { added };
    },

    // Set-aside values (damaged or old data), to offer for download.
    setAside() {
      return keys()
        .filter((k) => k.startsWith(ASIDE_PREFIX))
        .sort()
        .map((key) => ({ key, value: read(key) }));
    },
  };
  return store;
}
