// One attention forward spread over several Web Workers by heads (issue 25):
// the wall's long runs (exercise 6, GPT-2 small's shape, S up to 2048).
// Each Worker holds its own core and computes forwardHeads for a contiguous
// range of heads (its share of Q·Kᵀ, the softmax and ·V, and those heads'
// columns of the Q, K, V projections); the page puts the shares side by
// side and one Worker finishes with forwardCombine (the output projection).
// No SharedArrayBuffer: every Worker is sent the forward's own options (the
// tokens and the seed), from which its core rebuilds X and the weights, the
// same bits in every Worker, rather than 6 MiB of X and 7 MiB of weights.
// Each output value is the same sum in the same order as in one forward
// call, so the result equals forward's bit for bit (tests/wasm/attention-split.test.mjs).
// Pure (no DOM): used by the wall (widgets/wall.js, through
// attention-pool.js) and by the bench (bench/attention-workers.mjs) as it is.
import { MAX_WORKERS, parseWorkerCount } from './run-pool.js';

// The Worker count fixed in the link (workers=N) is read by the training
// pool's parser, so the wall and the training widgets accept the same values
// and word the same error; MAX_WORKERS (8) bounds both: each Worker holds its
// own core (its wasm memory grows to ~100 MiB at S = 2048), and past the
// cores a machine has, more Workers only share them.
export { parseWorkerCount };
export const MAX_ATTENTION_WORKERS = MAX_WORKERS;

// How many Workers to use: the count asked for, else the machine's
// (navigator.hardwareConcurrency); never more than MAX_ATTENTION_WORKERS or
// than there are heads, never fewer than 1.
export function attentionWorkerCount({ requested = null, hardware = 1, heads = 1 } = {}) {
  const want = requested ?? (Number.isInteger(hardware) && hardware > 0 ? hardware : 1);
  const h = Number.isInteger(heads) && heads > 0 ? heads : 1;
  return Math.max(1, Math.min(want, MAX_ATTENTION_WORKERS, h));
}

// Heads 0 … heads-1 in `parts` contiguous ranges [from, to), in order, none
// empty, sizes differing by at most one (the first ones take the extra head).
export function planHeads(heads, parts) {
  if (!Number.isInteger(heads) || heads < 1) throw new RangeError(`heads must be a whole number ≥ 1, got ${heads}`);
  if (!Number.isInteger(parts) || parts < 1) throw new RangeError(`parts must be a whole number ≥ 1, got ${parts}`);
  const n = Math.min(parts, heads);
  const base = Math.floor(heads / n);
  const extra = heads % n;
  const ranges = [];
  let from = 0;
  for (let i = 0; i < n; i++) {
    const to = from + base + (i < extra ? 1 : 0);
    ranges.push([from, to]);
    from = to;
  }
  return ranges;
}

// The shares ({shape: [S, w_i], data}) side by side, in order: [S, Σ w_i].
export function joinContexts(parts) {
  if (!parts.length) throw new RangeError('no shares to join');
  const rows = parts[0].shape[0];
  let width = 0;
  for (const p of parts) {
    if (p.shape.length !== 2 || p.shape[0] !== rows || p.data.length !== rows * p.shape[1])
      throw new RangeError(`every share must be ${rows} rows; got [${p.shape.join(', ')}]`);
    width += p.shape[1];
  }
  const data = new Float32Array(rows * width);
  let col = 0;
  for (const p of parts) {
    const w = p.shape[1];
    for (let r = 0; r < rows; r++) data.set(p.data.subarray(r * w, (r + 1) * w), r * width + col);
    col += w;
  }
  return { shape: [rows, width], data };
}

// forward(args) on `cores` (each { call(method, args, select) }, as
// core-client.js makes them; cores[0] finishes). Spread over the cores when
// there are several and the attention weights are not asked for (they are
// [H, S, S]: the one-call path keeps them); otherwise one forward call.
// A share that fails fails the whole call with the first failing share's
// error (in head order): forward would have thrown that same error, since
// every share checks the options as forward does. `select` slices the
// result as core.call does. onShare(done, total) reports progress.
export async function splitForward(cores, args, select, { onShare } = {}) {
  const heads = args.heads ?? 1;
  if (cores.length < 2 || args.returnAttention !== false || !Number.isInteger(heads) || heads < 2) {
    return cores[0].call('forward', args, select);
  }
  const ranges = planHeads(heads, cores.length);
  let done = 0;
  const settled = await Promise.allSettled(
    ranges.map(([from, to], i) =>
      cores[i].call('forwardHeads', { ...args, headFrom: from, headTo: to }).then((r) => {
        onShare?.(++done, ranges.length);
        return r;
      }),
    ),
  );
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  const context = joinContexts(settled.map((s) => s.value.context));
  return cores[0].call('forwardCombine', { ...args, context }, select);
}
