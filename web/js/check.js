// Answer comparison, kept small and pure (issue 4 moves grading into the
// core). Expected values are never stored here: the runner obtains them from
// live core calls declared in the exercise file and passes them in.

// Reads a number typed by a student. NFKC turns full-width digits, signs and
// points (０．６７０, －１) into ASCII; the Unicode minus sign is accepted.
// Returns { ok: true, value } or { ok: false, reason: 'empty' | 'not_a_number' }.
export function parseNumber(input) {
  const s = String(input ?? '')
    .normalize('NFKC')
    .replace(/[\u2212\u2012\u2013\u2014]/g, '-')
    .replace(/\s+/g, '');
  if (s === '') return { ok: false, reason: 'empty' };
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(s)) return { ok: false, reason: 'not_a_number' };
  const value = Number(s);
  if (!Number.isFinite(value)) return { ok: false, reason: 'not_a_number' };
  return { ok: true, value };
}

export const DEFAULT_TOLERANCE = { rtol: 0, atol: 0.005 };

// |actual − expected| <= atol + rtol·|expected| (numpy.isclose's rule).
export function isClose(actual, expected, { rtol = 0, atol = 0 } = {}) {
  if (!Number.isFinite(actual) || !Number.isFinite(expected)) return false;
  return Math.abs(actual - expected) <= atol + rtol * Math.abs(expected);
}

// inputs: strings typed; expected: numbers; mistakes: [{ values: [number|null], feedback }].
// Returns { status: 'malformed' | 'correct' | 'wrong', fields: [{ ok, malformed, reason }], mistake }.
// A malformed answer is reported and should not count as an attempt.
export function gradeNumeric(inputs, expected, mistakes = [], tolerance = DEFAULT_TOLERANCE) {
  if (inputs.length !== expected.length) throw new Error(`gradeNumeric: ${inputs.length} inputs for ${expected.length} expected values`);
  const parsed = inputs.map(parseNumber);
  const fields = parsed.map((p) => (p.ok ? { ok: null, malformed: false, value: p.value } : { ok: false, malformed: true, reason: p.reason }));
  if (fields.some((f) => f.malformed)) return { status: 'malformed', fields, mistake: null };
  fields.forEach((f, i) => (f.ok = isClose(f.value, expected[i], tolerance)));
  if (fields.every((f) => f.ok)) return { status: 'correct', fields, mistake: null };
  // A known mistake: every field it pins (non-null) matches what was typed.
  const mistake =
    mistakes.find((m) => m.values.some((v) => v !== null) && m.values.every((v, i) => v === null || isClose(fields[i].value, v, tolerance))) ?? null;
  return { status: 'wrong', fields, mistake };
}

// selected, answer: arrays of option ids. Returns { correct, wrongChosen, missed }.
export function gradeChoice(selected, answer) {
  const want = new Set(answer);
  const got = new Set(selected);
  const wrongChosen = [...got].filter((id) => !want.has(id));
  const missed = [...want].filter((id) => !got.has(id));
  return { correct: wrongChosen.length === 0 && missed.length === 0 && got.size > 0, wrongChosen, missed, empty: got.size === 0 };
}

// Looks up a dotted path ("result.maxAbsDiff", "attention.data.0") in an object.
export function getPath(object, path) {
  let node = object;
  for (const part of String(path).split('.')) {
    if (node == null) return undefined;
    node = node[part];
  }
  return node;
}

// A "make the lab show X" task. condition: { path, equals | gt | lt | is_error }
// evaluated against a widget's { state, result }.
export function evalCondition(condition, widget) {
  if (!widget) return false;
  const value = getPath(widget, condition.path);
  if ('is_error' in condition) return (value instanceof Error || (value && typeof value.message === 'string')) === condition.is_error;
  if (value === undefined || value === null) return false;
  if ('equals' in condition) return JSON.stringify(value) === JSON.stringify(condition.equals);
  if ('gt' in condition) return typeof value === 'number' && value > condition.gt;
  if ('lt' in condition) return typeof value === 'number' && value < condition.lt;
  return false;
}

// Whether two rows the core returned are the same to within atol (used to
// say whether a swap changed a token's output).
export function rowsDiffer(a, b, atol = 1e-6) {
  if (a.length !== b.length) return true;
  for (let i = 0; i < a.length; i++) if (!isClose(a[i], b[i], { atol })) return true;
  return false;
}

// The permutation that swaps positions a and b (0-based) of n.
export function swapPermutation(n, a, b) {
  const p = Array.from({ length: n }, (_, i) => i);
  [p[a], p[b]] = [p[b], p[a]];
  return p;
}
