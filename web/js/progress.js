// Progress in localStorage: per exercise, whether it was opened and each
// question's attempts. Every attempt is kept (the design's honest grading:
// the page gives formative feedback; the instructor re-grades).
//
// What is read back is checked, never trusted: a value of the wrong shape or
// type, or too big or too deep, is dropped (what is valid is kept) and a
// warning says so. A write that fails (quota full, storage off) is reported
// to the caller, and from then on nothing more is written in this visit, so
// that a later write cannot keep part of what the student was told was not
// saved.
import { withinLimits } from './grading/attempt-store.js';

export const KEY = 'poslab.progress.v1';
export const LIMITS = {
  bytes: 2_000_000, // the stored JSON text
  exercises: 200,
  questions: 200, // per exercise
  attempts: 1000, // per question: the latest are kept
  id: 200, // characters of an exercise or question id
};

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isId = (k) => typeof k === 'string' && k !== '' && k.length <= LIMITS.id && k !== '__proto__';

// One stored attempt: {answer, correct, at}.
function cleanAttempt(a) {
  if (!isObject(a) || typeof a.correct !== 'boolean' || !('answer' in a) || withinLimits(a.answer) !== null) return null;
  const out = { answer: a.answer, correct: a.correct };
  if (typeof a.at === 'string' && a.at.length <= 40 && !Number.isNaN(Date.parse(a.at))) out.at = a.at;
  return out;
}

/**
 * The stored value → {data, dropped}: what is valid, and how many parts were
 * not (a whole value of the wrong kind counts as one).
 */
export function cleanProgress(raw) {
  const data = Object.create(null);
  if (raw === null || raw === undefined) return { data, dropped: 0 };
  if (typeof raw !== 'string' || raw.length > LIMITS.bytes) return { data, dropped: 1 };
  let value;
  try {
    value = JSON.parse(raw);
  } catch {
    return { data, dropped: 1 };
  }
  if (!isObject(value)) return { data, dropped: 1 };
  let dropped = 0;
  for (const [ex, e] of Object.entries(value)) {
    if (Object.keys(data).length >= LIMITS.exercises || !isId(ex) || !isObject(e)) {
      dropped += 1;
      continue;
    }
    const entry = { visited: e.visited === true, questions: Object.create(null) };
    if (e.visited !== undefined && typeof e.visited !== 'boolean') dropped += 1;
    if (e.questions !== undefined && !isObject(e.questions)) dropped += 1;
    for (const [q, v] of Object.entries(isObject(e.questions) ? e.questions : {})) {
      if (Object.keys(entry.questions).length >= LIMITS.questions || !isId(q) || !isObject(v) || !Array.isArray(v.attempts ?? [])) {
        dropped += 1;
        continue;
      }
      const attempts = [];
      const list = v.attempts ?? [];
      if (list.length > LIMITS.attempts) dropped += list.length - LIMITS.attempts;
      for (const a of list.slice(-LIMITS.attempts)) {
        const c = cleanAttempt(a);
        if (c) attempts.push(c);
        else dropped += 1;
      }
      // "correct" is believed only with a kept correct attempt behind it
      // (or when older attempts were trimmed above).
      const correct = attempts.some((a) => a.correct) || (v.correct === true && list.length > LIMITS.attempts);
      if (v.correct === true && !correct) dropped += 1;
      entry.questions[q] = { correct, attempts };
    }
    data[ex] = entry;
  }
  return { data, dropped };
}

function defaultStorage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

const isQuota = (e) => !!e && (e.name === 'QuotaExceededError' || e.name === 'NS_ERROR_DOM_QUOTA_REACHED' || e.code === 22 || e.code === 1014);

/**
 * @param {object} [o]
 * @param {Storage|null} [o.storage] localStorage (default) or any Storage-shaped object
 * @param {() => Date} [o.now]
 */
export function createProgress({ storage = defaultStorage(), now = () => new Date() } = {}) {
  // [{code: 'progress_dropped', params: {count}}]: shown in place by the page.
  const warnings = [];
  let data;
  // null while writes work; 'full' or 'unavailable' once one failed (then
  // nothing more is written in this visit).
  let failure = storage ? null : 'unavailable';
  {
    let raw = null;
    try {
      raw = storage?.getItem(KEY) ?? null;
    } catch {
      failure = 'unavailable';
    }
    const got = cleanProgress(raw);
    data = got.data;
    if (got.dropped) warnings.push({ code: 'progress_dropped', params: { count: got.dropped } });
  }

  // Returns whether the value was written.
  const save = () => {
    if (failure) return false;
    try {
      storage.setItem(KEY, JSON.stringify(data));
      return true;
    } catch (e) {
      failure = isQuota(e) ? 'full' : 'unavailable';
      return false;
    }
  };
  const entry = (ex) => (data[ex] ??= { visited: false, questions: Object.create(null) });

  return {
    warnings,
    // null, 'full' or 'unavailable'.
    get failure() {
      return failure;
    },
    visit(ex) {
      entry(ex).visited = true;
      save();
    },
    /**
     * Keeps an attempt. persist: false when the attempt was not kept elsewhere
     * (the grading store failed): it then counts for this visit only, and
     * nothing more is written. Returns {saved, reason} (reason 'full' or
     * 'unavailable' when not saved).
     */
    record(ex, question, attempt, { persist = true } = {}) {
      const q = (entry(ex).questions[question] ??= { correct: false, attempts: [] });
      q.attempts.push({ answer: attempt.answer, correct: !!attempt.correct, at: now().toISOString() });
      if (q.attempts.length > LIMITS.attempts) q.attempts.splice(0, q.attempts.length - LIMITS.attempts);
      if (attempt.correct) q.correct = true;
      if (!persist && !failure) failure = 'unavailable';
      const saved = persist && save();
      return { saved, reason: saved ? null : failure };
    },
    isCorrect(ex, question) {
      return !!data[ex]?.questions[question]?.correct;
    },
    // The answers checked for a question (without a learner id), oldest first.
    answers(ex, question) {
      const list = data[ex]?.questions?.[question]?.attempts;
      return Array.isArray(list) ? list.map((a) => a?.answer) : [];
    },
    // 'not_started' | 'in_progress' | 'done'
    status(exercise) {
      const e = data[exercise.id];
      if (!e) return 'not_started';
      // A prediction counts once recorded; an explanation is optional.
      const ids = exercise.blocks.filter((b) => ['numeric', 'choice', 'task', 'prediction', 'code'].includes(b.type)).map((b) => b.id);
      if (ids.length && ids.every((id) => e.questions[id]?.correct)) return 'done';
      return e.visited || Object.keys(e.questions).length ? 'in_progress' : 'not_started';
    },
    reset() {
      data = Object.create(null);
      warnings.length = 0;
      // A reset may write again: an empty value is what the student asked for.
      failure = storage ? null : 'unavailable';
      save();
    },
  };
}

// The page's progress (created on first use).
let page = null;
export function pageProgress() {
  page ??= createProgress();
  return page;
}
export const visit = (ex) => pageProgress().visit(ex);
export const record = (ex, question, attempt, options) => pageProgress().record(ex, question, attempt, options);
export const isCorrect = (ex, question) => pageProgress().isCorrect(ex, question);
export const answers = (ex, question) => pageProgress().answers(ex, question);
export const status = (exercise) => pageProgress().status(exercise);
export const reset = () => pageProgress().reset();
export const warnings = () => pageProgress().warnings;
export const failure = () => pageProgress().failure;
