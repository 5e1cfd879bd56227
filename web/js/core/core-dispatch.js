// Runs one request against the core (the wasm module's PositionLab object).
// Shared by the Web Worker and the main-thread fallback, so both behave the
// same. Requests: { method, args, select? } or { method: 'batch', args: [requests] }.
// `select` only slices what the core returned (no arithmetic): it keeps a few
// columns of a matrix, or a few entries of a vector, so that big results
// (e.g. a 2048 × 768 table) need not cross to the page whole.

const METHODS = new Set([
  'tokenize', 'forward', 'forwardHeads', 'forwardCombine', 'encoding', 'permutationCheck', 'attentionSteps', 'ropeCheck', 'shiftMatrix', 'similarity', 'alibiSlopes', 'alibiBias', 'ropeRotate', 'ropeAngleMap',
  // grading: the same rules as poslab grade
  'checkAttempt', 'unlockedHints', 'attemptStatus', 'gradeExercise', 'gradeSubmission', 'gradeSubmissionBytes', 'codeAttempts', 'gradeCsv', 'csvTable', 'displayText', 'variant', 'contentHash', 'callCore', 'codeRun',
]);
// These take a plain value, not an options object.
const POSITIONAL = { tokenize: 'text', alibiSlopes: 'heads' };

function selectFrom(result, select) {
  if (!select) return result;
  const target = select.path ? result[select.path] : result;
  if (target && target.shape && target.data) {
    const [rows, cols] = target.shape;
    const keep = select.columns;
    const data = new Float32Array(rows * keep.length);
    for (let r = 0; r < rows; r++) for (let j = 0; j < keep.length; j++) data[r * keep.length + j] = target.data[r * cols + keep[j]];
    const sliced = { shape: [rows, keep.length], data };
    return select.path ? { ...result, [select.path]: sliced } : sliced;
  }
  if (ArrayBuffer.isView(target) || Array.isArray(target)) return Float32Array.from(select.columns, (c) => target[c]);
  return result;
}

export function errorRecord(e) {
  return { message: String(e && e.message ? e.message : e), code: (e && e.code) || 'error', params: (e && e.params) || {} };
}

function runOne(lab, { method, args, select }) {
  if (!METHODS.has(method)) throw Object.assign(new Error(`unknown core method ${method}`), { code: 'unknown_method' });
  const arg = POSITIONAL[method] && args && typeof args === 'object' && !Array.isArray(args) ? args[POSITIONAL[method]] : args;
  return selectFrom(lab[method](arg), select);
}

export function dispatch(lab, request) {
  if (request.method === 'batch') {
    return request.args.map((r) => {
      try {
        return { ok: true, result: runOne(lab, r) };
      } catch (e) {
        return { ok: false, error: errorRecord(e) };
      }
    });
  }
  return runOne(lab, request);
}
