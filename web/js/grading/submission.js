// The "Download submission" file and its import. The format is the one
// `poslab grade` reads (cpp/cli/grade.cpp):
//   { format: 'position-lab-submission', version: 1, labVersion, learner, createdAt,
//     exercises: [{ id, contentHash, seed, claimed: {points, max},
//                   attempts: [{question, answer, lab, lang, time}] }] }
// Answers are raw (numeric: the strings typed; choice: option ids; task: the
// lab settings), so the instructor's re-grade recomputes every score; the
// claimed score is the page's, computed by the core, and only compared.
import { message, messages } from './strings.js';
import { normalizeAttempt, withinLimits, MAX_ATTEMPTS } from './attempt-store.js';

export const FORMAT = 'position-lab-submission';
export const VERSION = 1;
// What an imported file may hold: its size, exercises (records), attempts per
// exercise (as the store keeps them); each answer and lab within VALUE_LIMITS.
export const IMPORT_LIMITS = { bytes: 10_000_000, exercises: 1000, attempts: MAX_ATTEMPTS };

export class SubmissionError extends Error {
  constructor(code, params = {}, text = messages(`grading.import_${code}`, params)) {
    super(text.en);
    this.name = 'SubmissionError';
    this.code = code;
    this.params = params;
    this.field = params.field;
    // {ja, en}: what the page shows.
    this.text = text;
  }
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isSeed = (v) => Number.isInteger(v) && v >= 0 && v <= 0xffffffff;
const HASH = /^[0-9a-f]{16}$/;

/**
 * @param {object} o
 * @param {string} o.labVersion   the lab's version (package.json / core version)
 * @param {string} o.learner
 * @param {object[]} o.records    the store's records (store.records({learner}))
 * @param {(record) => {points: number, max: number}} [o.grade]
 *   the page's score for a record, from the core: (r) => lab.gradeExercise({exercise, seed: r.seed, attempts: r.attempts});
 *   without it, a record's stored `claimed` is used.
 * @param {Date} [o.now]
 */
export function buildSubmission({ labVersion, learner, records, grade, now = new Date() }) {
  if (typeof learner !== 'string' || learner === '') throw new TypeError('submission: learner must be a non-empty string');
  if (typeof labVersion !== 'string' || labVersion === '') throw new TypeError('submission: labVersion must be a non-empty string');
  const exercises = [];
  for (const r of records) {
    if (r.learner !== undefined && r.learner !== learner) throw new RangeError(`submission: record ${r.id} belongs to learner ${r.learner}, not ${learner}`);
    const entry = { id: r.id, contentHash: r.contentHash };
    if (isSeed(r.seed)) entry.seed = r.seed;
    const g = grade ? grade(r) : r.claimed;
    if (g) entry.claimed = { points: g.points, max: g.max };
    entry.attempts = r.attempts.map((a) => {
      const n = normalizeAttempt(a);
      if (!n) throw new TypeError(`submission: record ${r.id} has a malformed attempt ${JSON.stringify(a)}`);
      return n;
    });
    exercises.push(entry);
  }
  return { format: FORMAT, version: VERSION, labVersion, learner, createdAt: now.toISOString(), exercises };
}

export function submissionText(submission) {
  return `${JSON.stringify(submission, null, 1)}\n`;
}

// position-lab-<learner>-<yyyymmdd-hhmm>.json, safe on every file system.
export function submissionFileName(submission) {
  const who = submission.learner.normalize('NFKC').replace(/[^\p{L}\p{N}._-]+/gu, '_').slice(0, 60) || 'learner';
  const t = submission.createdAt.replace(/[-:]/g, '').replace('T', '-').slice(0, 13);
  return `position-lab-${who}-${t}.json`;
}

// Saves the file with no network (a Blob and an object URL work from
// file:// too). Returns the file name.
export function downloadSubmission(submission, { document: doc = globalThis.document, URL: Url = globalThis.URL, Blob: BlobCtor = globalThis.Blob, later = (f) => setTimeout(f, 10000) } = {}) {
  const name = submissionFileName(submission);
  const url = Url.createObjectURL(new BlobCtor([submissionText(submission)], { type: 'application/json' }));
  const a = doc.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  a.style.display = 'none';
  doc.body.append(a);
  a.click();
  a.remove();
  // Revoke later: revoking at once can cancel the download in some browsers.
  later(() => Url.revokeObjectURL(url));
  return name;
}

// code 'field': params.field is where (e.g. exercises[0].attempts[2].answer), params.problem what.
function fieldError(field, problem) {
  const p = messages(`grading.problem_${problem}`);
  const text = { ja: message('grading.import_field', 'ja', { field, problem: p.ja }), en: message('grading.import_field', 'en', { field, problem: p.en }) };
  return new SubmissionError('field', { field, problem }, text);
}

// Field-by-field checks of one attempt, naming the first thing wrong.
function checkAttempt(a, path) {
  if (!isObject(a)) throw fieldError(path, 'object');
  if (typeof a.question !== 'string' || a.question === '') throw fieldError(`${path}.question`, 'string');
  if (a.question.length > 200) throw fieldError(`${path}.question`, 'too_large');
  if (!('answer' in a) || a.answer === undefined || a.answer === null) throw fieldError(`${path}.answer`, 'answer');
  const answerProblem = withinLimits(a.answer);
  if (answerProblem) throw fieldError(`${path}.answer`, answerProblem === 'too_deep' ? 'too_deep' : 'too_large');
  if (a.lab !== undefined && !isObject(a.lab)) throw fieldError(`${path}.lab`, 'object');
  const labProblem = a.lab === undefined ? null : withinLimits(a.lab);
  if (labProblem) throw fieldError(`${path}.lab`, labProblem === 'too_deep' ? 'too_deep' : 'too_large');
  if (a.lang !== undefined && a.lang !== 'ja' && a.lang !== 'en') throw fieldError(`${path}.lang`, 'lang');
  if (a.time !== undefined && (typeof a.time !== 'string' || Number.isNaN(Date.parse(a.time)))) throw fieldError(`${path}.time`, 'time');
  return normalizeAttempt(a);
}

/**
 * Reads a submission file's text. Throws a SubmissionError (code not_json,
 * not_submission, version, other_learner or field, with .field naming the
 * place) for anything that is not a valid version-1 submission.
 * @param {string} text
 * @param {{learner?: string}} [o] the current learner: another learner's file is refused.
 */
export function parseSubmission(text, { learner } = {}) {
  if (typeof text !== 'string') throw new SubmissionError('not_json', { detail: 'not text' });
  if (text.length > IMPORT_LIMITS.bytes) throw fieldError('(file)', 'too_large');
  let s;
  try {
    s = JSON.parse(text);
  } catch (e) {
    throw new SubmissionError('not_json', { detail: e.message });
  }
  if (!isObject(s) || s.format !== FORMAT) throw new SubmissionError('not_submission');
  if (s.version !== VERSION) throw new SubmissionError('version', { version: JSON.stringify(s.version ?? null) });
  if (typeof s.learner !== 'string' || s.learner === '') throw fieldError('learner', 'string');
  if (learner && s.learner !== learner) throw new SubmissionError('other_learner', { found: s.learner, expected: learner });
  if (s.labVersion !== undefined && typeof s.labVersion !== 'string') throw fieldError('labVersion', 'string');
  if (s.createdAt !== undefined && (typeof s.createdAt !== 'string' || Number.isNaN(Date.parse(s.createdAt)))) throw fieldError('createdAt', 'time');
  if (!Array.isArray(s.exercises)) throw fieldError('exercises', 'list');
  if (s.exercises.length > IMPORT_LIMITS.exercises) throw fieldError('exercises', 'too_large');
  const exercises = s.exercises.map((e, i) => {
    const path = `exercises[${i}]`;
    if (!isObject(e)) throw fieldError(path, 'object');
    if (typeof e.id !== 'string' || e.id === '') throw fieldError(`${path}.id`, 'string');
    if (typeof e.contentHash !== 'string' || !HASH.test(e.contentHash)) throw fieldError(`${path}.contentHash`, 'hash');
    if (e.seed !== undefined && !isSeed(e.seed)) throw fieldError(`${path}.seed`, 'seed');
    if (e.claimed !== undefined) {
      if (!isObject(e.claimed)) throw fieldError(`${path}.claimed`, 'object');
      for (const k of ['points', 'max']) if (!Number.isFinite(e.claimed[k])) throw fieldError(`${path}.claimed.${k}`, 'number');
    }
    if (!Array.isArray(e.attempts)) throw fieldError(`${path}.attempts`, 'list');
    if (e.attempts.length > IMPORT_LIMITS.attempts) throw fieldError(`${path}.attempts`, 'too_large');
    const attempts = e.attempts.map((a, j) => checkAttempt(a, `${path}.attempts[${j}]`));
    const out = { id: e.id, contentHash: e.contentHash, attempts };
    if (e.seed !== undefined) out.seed = e.seed;
    if (e.claimed !== undefined) out.claimed = { points: e.claimed.points, max: e.claimed.max };
    return out;
  });
  return { format: FORMAT, version: VERSION, labVersion: s.labVersion, learner: s.learner, createdAt: s.createdAt, exercises };
}

/**
 * Validates the whole file first (nothing changes if anything is wrong), then
 * merges each exercise's attempts into the store, keeping every attempt that
 * is already there. Returns {learner, exercises, added}.
 */
export function importSubmission(store, text, { learner } = {}) {
  const sub = parseSubmission(text, { learner });
  let added = 0;
  for (const e of sub.exercises) added += store.merge({ learner: sub.learner, ...e }).added;
  return { learner: sub.learner, exercises: sub.exercises.length, added, message: messages('grading.import_done', { exercises: sub.exercises.length, added }) };
}
