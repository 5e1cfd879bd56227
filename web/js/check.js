// Small helpers for what the page shows: reading a widget's values, and
// comparing rows the core returned. Answers are never checked here: the core
// does that (checkAttempt), as poslab grade does.

function isClose(actual, expected, atol) {
  return Number.isFinite(actual) && Number.isFinite(expected) && Math.abs(actual - expected) <= atol;
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
  for (let i = 0; i < a.length; i++) if (!isClose(a[i], b[i], atol)) return true;
  return false;
}

// The permutation that swaps positions a and b (0-based) of n.
export function swapPermutation(n, a, b) {
  const p = Array.from({ length: n }, (_, i) => i);
  [p[a], p[b]] = [p[b], p[a]];
  return p;
}
