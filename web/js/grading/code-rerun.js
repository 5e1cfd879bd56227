// Re-running the code attempts of one submission, for scripts/grade-code.mjs
// (Node: scripts/py-sandbox.mjs) and the class results page
// (web/js/instructor/main.js: web/js/python/py-client.js).
//
// What to run is never decided here: the core parses the file and lists the
// code attempts that can count (poslab code-attempts / wasm codeAttempts:
// per learner and question, after duplicate entries are merged, in the
// grader's order, up to max_attempts, each with its key, code, function,
// time limit and the learner's hidden cases). This module only runs that
// list, within a time budget per learner, and returns the results keyed by
// attempt, which the grader takes out of band (poslab grade --code-results,
// wasm gradeSubmission{Bytes} codeResults). The grader never reads results a
// submission carries.
import { asCoreStatus } from '../python/statuses.js';

// The statuses a run can end with, in the order they are shown.
export const RUN_STATUSES = ['ok', 'timeout', 'syntax_error', 'load_error', 'no_function', 'memory', 'crashed'];
export const MAX_MESSAGE_CHARS = 500;
// Re-run time one learner may use in total (all their files), by default.
export const DEFAULT_BUDGET_MS = 120000;

/**
 * Runs the listed attempts of one file.
 * @param {{attempts: {key: string, runnable: boolean, code: string, function: string, timeLimitMs: number, cases: unknown[][]}[]}} list  the core's list (codeAttempts)
 * @param {object} o
 * @param {(code: string, fn: string, cases: unknown[][], limits: {timeLimitMs: number}) => Promise<{status: string, results?: unknown[], message?: string}>} o.run
 * @param {{spentMs: number}} o.budget  this learner's time so far (changed in place)
 * @param {number} [o.budgetMs]  the learner's budget (DEFAULT_BUDGET_MS)
 * @param {string|null} [o.notRun]  a reason to run nothing (e.g. 'sandbox_unavailable')
 * @param {() => number} [o.now]
 * @param {(done: number) => void} [o.onRun]
 * @returns {Promise<{results: Record<string, object>, runs: number}>}
 */
export async function runListedAttempts(list, { run, budget, budgetMs = DEFAULT_BUDGET_MS, notRun = null, now = () => Date.now(), onRun }) {
  const results = {};
  let runs = 0;
  let done = 0;
  for (const a of list?.attempts ?? []) {
    try {
      if (!a.runnable) continue; // the core says why (too_long); the grader flags it
      if (notRun) {
        results[a.key] = { status: 'not_rerun', reason: notRun };
        continue;
      }
      if (budget.spentMs >= budgetMs) {
        results[a.key] = { status: 'not_rerun', reason: 'budget' };
        continue;
      }
      const start = now();
      let r;
      try {
        runs += 1;
        // import_refused / unsupported are not attempts in the page; graded as the core knows them.
        const raw = await run(a.code, a.function, a.cases, { timeLimitMs: a.timeLimitMs });
        r = raw?.status === 'sandbox_unavailable' ? raw : asCoreStatus(raw);
      } catch (e) {
        r = { status: 'crashed', message: String(e?.message ?? e) };
      } finally {
        budget.spentMs += Math.max(0, now() - start);
      }
      if (r?.status === 'sandbox_unavailable') {
        results[a.key] = { status: 'not_rerun', reason: 'sandbox_unavailable' };
        continue;
      }
      const status = RUN_STATUSES.includes(r?.status) ? r.status : 'crashed';
      results[a.key] = status === 'ok' ? { status, results: r.results } : { status, message: String(r?.message ?? '').slice(0, MAX_MESSAGE_CHARS) };
    } finally {
      onRun?.(++done);
    }
  }
  return { results, runs };
}

/** How many listed attempts would be run (for progress, and to decide whether to load a sandbox). */
export function countRunnable(list) {
  return (list?.attempts ?? []).filter((a) => a.runnable).length;
}
