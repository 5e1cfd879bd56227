// "Train short, test long": what a finished run measured, ranked (for the
// verdict the page writes from the run's own numbers), and the last run kept
// for the browser tab (sessionStorage), read back as hostile input. Pure
// functions of plain data: no DOM, no strings shown.

export const SCHEMES = ['learned', 'sinusoidal', 'rope', 'alibi', 'none'];
const TIE = 1e-9;

// results: [{scheme, seed, evaluation: {solvedUpTo}}], schemes in the run's
// order. Per scheme, its "largest n solved" per seed and their mean; the
// schemes with the highest mean went furthest, those with the lowest failed
// first (several when tied; with one scheme, it is both).
export function rankRun(results, schemes) {
  const rows = schemes.map((scheme) => {
    const values = results.filter((r) => r.scheme === scheme).map((r) => r.evaluation.solvedUpTo);
    return { scheme, values, mean: values.reduce((a, b) => a + b, 0) / values.length };
  });
  const hi = Math.max(...rows.map((r) => r.mean));
  const lo = Math.min(...rows.map((r) => r.mean));
  return {
    rows,
    furthest: rows.filter((r) => Math.abs(r.mean - hi) <= TIE).map((r) => r.scheme),
    first: rows.filter((r) => Math.abs(r.mean - lo) <= TIE).map((r) => r.scheme),
    allTied: hi - lo <= TIE,
  };
}

// How a prediction (a scheme id) compares with the run:
// 'not_trained' | 'all_tied' (no scheme differed: nothing to compare) |
// 'furthest' (alone) | 'tied' (among the tied furthest) | 'other'.
export function predictionOutcome(predicted, rank) {
  if (!rank.rows.some((r) => r.scheme === predicted)) return 'not_trained';
  if (rank.allTied && rank.rows.length > 1) return 'all_tied';
  if (!rank.furthest.includes(predicted)) return 'other';
  return rank.furthest.length === 1 ? 'furthest' : 'tied';
}

// ---- the last run of the tab, per scheme set ----
const PREFIX = 'poslab.extrap.v1';
export const MAX_STORED_CHARS = 1_000_000;
const keyOf = (exercise, schemes) => `${PREFIX}:${exercise}:${[...schemes].sort().join(',')}`;
const lastKey = (exercise) => `${PREFIX}:${exercise}:last`;

const isInt = (v, lo, hi) => Number.isInteger(v) && v >= lo && v <= hi;
const isNum = (v, lo, hi) => typeof v === 'number' && Number.isFinite(v) && v >= lo && v <= hi;

// A stored run as plain data, or null if anything in it is not what a run
// of this page can produce (wrong types, sizes, unknown schemes, numbers out
// of range, missing or extra runs).
export function validateRun(v) {
  if (!v || typeof v !== 'object' || v.v !== 1) return null;
  const o = v.options;
  if (!o || typeof o !== 'object') return null;
  const { schemes, seeds, steps } = o;
  if (!Array.isArray(schemes) || schemes.length < 1 || schemes.length > SCHEMES.length) return null;
  if (!schemes.every((s) => SCHEMES.includes(s)) || new Set(schemes).size !== schemes.length) return null;
  if (!Array.isArray(seeds) || seeds.length < 1 || seeds.length > 5 || !seeds.every((s) => isInt(s, 0, 4294967295))) return null;
  if (new Set(seeds).size !== seeds.length || !isInt(steps, 1, 2000)) return null;
  if (!Array.isArray(v.results) || v.results.length !== schemes.length * seeds.length) return null;
  const seen = new Set();
  const results = [];
  for (const r of v.results) {
    if (!r || typeof r !== 'object' || !schemes.includes(r.scheme) || !seeds.includes(r.seed)) return null;
    const key = `${r.scheme}|${r.seed}`;
    if (seen.has(key)) return null;
    seen.add(key);
    const e = r.evaluation;
    if (!e || typeof e !== 'object' || !isInt(e.trainMax, 1, 64) || !isInt(e.testMax, e.trainMax, 256)) return null;
    if (!Array.isArray(e.exactMatch) || e.exactMatch.length !== e.testMax || !e.exactMatch.every((x) => x === 0 || x === 1)) return null;
    if (!isInt(e.solvedUpTo, 0, e.testMax) || !isNum(e.meanExtrapolated, 0, 1)) return null;
    results.push({ scheme: r.scheme, seed: r.seed, seconds: isNum(r.seconds, 0, 1e6) ? r.seconds : 0, evaluation: { exactMatch: e.exactMatch.slice(), solvedUpTo: e.solvedUpTo, meanExtrapolated: e.meanExtrapolated, trainMax: e.trainMax, testMax: e.testMax } });
  }
  if (results.some((r) => r.evaluation.trainMax !== results[0].evaluation.trainMax || r.evaluation.testMax !== results[0].evaluation.testMax)) return null;
  const losses = {};
  if (!v.losses || typeof v.losses !== 'object' || Array.isArray(v.losses)) return null;
  for (const [key, list] of Object.entries(v.losses)) {
    if (!seen.has(key) || !Array.isArray(list) || list.length > steps || !list.every((x) => isNum(x, 0, 1e3))) return null;
    losses[key] = list.slice();
  }
  return { options: { schemes: schemes.slice(), seeds: seeds.slice(), steps }, results, losses, seconds: isNum(v.seconds, 0, 1e6) ? v.seconds : 0, mode: v.mode === 'main' ? 'main' : 'worker', savedAt: typeof v.savedAt === 'string' ? v.savedAt.slice(0, 40) : '' };
}

function storage() {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    return null; // storage refused (some file:// setups, privacy settings)
  }
}

// Keeps a finished session's options, results and losses for this tab.
export function saveRun(exercise, s, store = storage()) {
  if (!store) return false;
  const data = { v: 1, options: s.options, results: s.results.map((r) => ({ scheme: r.scheme, seed: r.seed, seconds: r.seconds, evaluation: r.evaluation })), losses: s.losses, seconds: s.seconds, mode: s.mode, savedAt: new Date().toISOString() };
  const text = JSON.stringify(data);
  if (text.length > MAX_STORED_CHARS || !validateRun(JSON.parse(text))) return false;
  try {
    store.setItem(keyOf(exercise, s.options.schemes), text);
    store.setItem(lastKey(exercise), [...s.options.schemes].sort().join(','));
    return true;
  } catch {
    return false; // full or refused: the run is simply not kept
  }
}

// The kept run for this scheme set, else the tab's last run; null if none or
// if what is stored is not a valid run (then it is removed).
export function loadRun(exercise, schemes, store = storage()) {
  if (!store) return null;
  const read = (key) => {
    let text;
    try {
      text = store.getItem(key);
    } catch {
      return null;
    }
    if (typeof text !== 'string') return null;
    let run = null;
    if (text.length <= MAX_STORED_CHARS) {
      try {
        run = validateRun(JSON.parse(text));
      } catch {
        run = null;
      }
    }
    if (!run) {
      try {
        store.removeItem(key);
      } catch {
        // nothing to do
      }
    }
    return run;
  };
  const own = read(keyOf(exercise, schemes));
  if (own) return own;
  let last = null;
  try {
    last = store.getItem(lastKey(exercise));
  } catch {
    last = null;
  }
  if (typeof last !== 'string' || last.length > 100) return null;
  const names = last.split(',');
  if (!names.every((n) => SCHEMES.includes(n))) return null;
  return read(keyOf(exercise, names));
}
