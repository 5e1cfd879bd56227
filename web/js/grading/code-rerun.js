// Re-running the code attempts of one submission — never trusting the results
// the student's page stored — and putting the fresh results in the
// submission (a copy the caller parsed for the purpose). The one source of
// truth for scripts/grade-code.mjs (Node: scripts/py-sandbox.mjs) and the
// class results page (web/js/instructor/main.js: web/js/python/py-client.js);
// each passes its own sandbox as `run` and its own way to the learner's
// hidden cases (`poslab variant`, or the core's variant()).
//
// Limits, the same on both sides: at most MAX_RUNS_PER_QUESTION attempts per
// question are run (poslab grade does not grade past 200 either); an answer
// that is not {code: string of at most MAX_CODE_CHARS} is left as it is (the
// core calls it malformed) and counted not_code; each run has the question's
// time limit (time_limit_ms, else DEFAULT_TIME_LIMIT_MS).
import { asCoreStatus } from '../python/statuses.js';

export const MAX_RUNS_PER_QUESTION = 200;
export const MAX_CODE_CHARS = 10000;
export const DEFAULT_TIME_LIMIT_MS = 2000;
export const MAX_MESSAGE_CHARS = 1500;

// The statuses a run can end with (and not_code), in the order they are shown.
export const RUN_STATUSES = ['ok', 'timeout', 'syntax_error', 'load_error', 'no_function', 'memory', 'crashed', 'not_code'];

const codeQuestions = (ex) => new Map((Array.isArray(ex?.blocks) ? ex.blocks : []).filter((b) => b && b.type === 'code').map((b) => [b.id, b]));

// Every attempt at a code question of `sub`, in order, with whether the
// per-question cap leaves it out.
function* codeAttempts(sub, byId) {
  if (!sub || typeof sub !== 'object' || typeof sub.learner !== 'string' || !Array.isArray(sub.exercises)) return;
  for (const entry of sub.exercises) {
    const ex = entry && byId.get(entry.id);
    if (!ex || !Array.isArray(entry.attempts)) continue;
    const codeQs = codeQuestions(ex);
    const runs = new Map();
    for (const a of entry.attempts) {
      const q = a && codeQs.get(a.question);
      if (!q) continue;
      const n = runs.get(q.id) ?? 0;
      runs.set(q.id, n + 1);
      yield { ex, q, a, capped: n >= MAX_RUNS_PER_QUESTION }; // poslab grade does not grade past 200 either
    }
  }
}

/**
 * The code attempts that would be run (after the per-question cap), without
 * running anything: for progress and to decide whether to load a sandbox.
 * @param {object} sub  a parsed submission
 * @param {Map<string, object>} byId  exercises by id
 */
export function countCodeRuns(sub, byId) {
  let n = 0;
  for (const { capped } of codeAttempts(sub, byId)) if (!capped) n += 1;
  return n;
}

/**
 * Re-runs every code attempt of `sub` (changed in place: each answer becomes
 * {code, status, results} or {code, status, message}).
 * @param {object} sub  a parsed submission (the caller's copy)
 * @param {object} o
 * @param {Map<string, object>} o.byId  exercises by id
 * @param {(learner: string, exercise: object, questionId: string) => (Promise<{args: unknown[]}[]|null>|{args: unknown[]}[]|null)} o.hiddenCases
 * @param {(code: string, fn: string, cases: unknown[][], limits: {timeLimitMs: number}) => Promise<{status: string, results?: unknown[], message?: string}>} o.run
 * @param {(done: number) => void} [o.onRun]  after each attempt counted (run or not)
 * @returns {Promise<Record<string, Record<string, number>>>}  per "exercise/question": status → count
 */
export async function rerunCodeAttempts(sub, { byId, hiddenCases, run, onRun }) {
  const statuses = {};
  let done = 0;
  for (const { ex, q, a, capped } of codeAttempts(sub, byId)) {
    const tally = (statuses[`${ex.id}/${q.id}`] ??= {});
    if (capped) continue;
    try {
      if (!a.answer || typeof a.answer !== 'object' || typeof a.answer.code !== 'string' || a.answer.code.length > MAX_CODE_CHARS) {
        tally.not_code = (tally.not_code ?? 0) + 1; // left as it is: the core calls it malformed
        continue;
      }
      const cases = await hiddenCases(sub.learner, ex, q.id);
      if (!cases) continue;
      let r;
      try {
        // import_refused / unsupported are not attempts in the page; graded as the core knows them.
        r = asCoreStatus(await run(a.answer.code, q.function, cases.map((c) => c.args), { timeLimitMs: q.time_limit_ms ?? DEFAULT_TIME_LIMIT_MS }));
      } catch (e) {
        r = { status: 'crashed', message: String(e?.message ?? e) };
      }
      const status = RUN_STATUSES.includes(r?.status) ? r.status : 'crashed';
      tally[status] = (tally[status] ?? 0) + 1;
      a.answer = { code: a.answer.code, status, ...(status === 'ok' ? { results: r.results } : { message: String(r?.message ?? '').slice(0, MAX_MESSAGE_CHARS) }) };
    } finally {
      onRun?.(++done);
    }
  }
  return statuses;
}

/** grade-code.mjs's code_runs cell for one exercise: "question:status=n+status=n;…". */
export function codeRunsCell(statuses, exerciseId) {
  const runs = [];
  for (const [key, tally] of Object.entries(statuses ?? {})) {
    if (!key.startsWith(`${exerciseId}/`)) continue;
    runs.push(`${key.slice(exerciseId.length + 1)}:${Object.entries(tally).map(([s, n]) => `${s}=${n}`).join('+')}`);
  }
  return runs.join(';');
}
