// The statuses of a Python run (web/js/python/py-worker.js), shared by the
// page (questions.js), the results page and the re-grade (scripts/py-sandbox.mjs).
//
// The core's check (cpp/src/code_questions.cpp, check_code_attempt) knows
// ok, timeout, syntax_error, load_error, no_function, memory, crashed,
// blocked. Two statuses are not attempts: the page does not record them
// (nothing is graded) and tells the student what to change:
//   import_refused: the code imports a module other than math (`module`);
//   unsupported: it uses a method MicroPython lacks (`feature`, e.g. float.is_integer).
export const NOT_AN_ATTEMPT = new Set(['import_refused', 'unsupported']);

// Should a re-grade meet one of them (an attempt recorded by an older page,
// or a forged file), the answer the core grades: a refused import is a load
// error; an unsupported method keeps its results (those cases failed with
// AttributeError) or, when it happened at load, is a load error.
// sandbox_unavailable (the re-grade's sandbox cannot run here) is not an
// outcome of the student's code: it throws, and the caller refuses to grade.
export function asCoreStatus(r) {
  if (r.status === 'sandbox_unavailable') throw new Error(`the Python sandbox is unavailable: ${r.message}`);
  if (r.status === 'import_refused') return { ...r, status: 'load_error' };
  if (r.status === 'unsupported') return Array.isArray(r.results) ? { ...r, status: 'ok' } : { ...r, status: 'load_error' };
  return r;
}
