// Spreading a training experiment's runs over several Web Workers (issue 25).
// The runs (one per scheme and seed, or one per seed for the RoPE extension)
// share nothing, and each run's numbers depend only on its own options and
// seed, so any Worker may train any run: a Worker asks for the next run when
// it is free (a queue in run order), and the results are put back in run
// order, so the page gets the numbers of the one-Worker run, bit for bit.
// Pure: used by trainer.js and tested in Node (tests/wasm/run-pool.test.mjs).

// At most this many training Workers: each holds its own instance of the core
// (a few MiB), and past the cores a page has, more Workers only share them.
export const MAX_WORKERS = 8;

// The Worker count fixed in the link (workers=N), read as hostile input:
// { count } for a whole number from 1 to MAX_WORKERS, { count: null } when
// absent, or { error: {code, params} } saying what is allowed.
export function parseWorkerCount(text) {
  if (text === undefined || text === null) return { count: null };
  const s = String(text).trim();
  if (/^[0-9]{1,3}$/.test(s)) {
    const n = Number(s);
    if (n >= 1 && n <= MAX_WORKERS) return { count: n };
  }
  return { error: { code: 'bad_workers', params: { value: String(text).slice(0, 40), min: '1', max: String(MAX_WORKERS) } } };
}

// kernels=reference in the link (a bench's "before", bench/workers.mjs): the
// training Workers run the core's plain loops instead of its kernels
// (trainKernelsReference; the same numbers, bit for bit, only slower).
// { kernels: 'reference' }, { kernels: null } when absent, or { error }.
export function parseKernels(text) {
  if (text === undefined || text === null) return { kernels: null };
  if (String(text).trim() === 'reference') return { kernels: 'reference' };
  return { error: { code: 'bad_kernels', params: { value: String(text).slice(0, 40), allowed: 'reference' } } };
}

// How long a session has left, from its own pace so far (pauses left out by
// the caller's activeMs): { spent, left } in seconds, or null before the first
// step is done (no pace yet: the page promises nothing in advance).
export function timeLeft({ activeMs, stepsDone, stepsTotal }) {
  if (!(stepsDone > 0) || !(stepsTotal >= stepsDone) || !(activeMs >= 0)) return null;
  const spent = activeMs / 1000;
  return { spent, left: (spent / stepsDone) * (stepsTotal - stepsDone) };
}

// How many Workers to start: the count fixed in the link, else the browser's
// navigator.hardwareConcurrency; never more than MAX_WORKERS or than there
// are runs, never fewer than 1.
export function poolSize({ requested = null, hardware = 1, runs = 1 } = {}) {
  const want = requested ?? (Number.isInteger(hardware) && hardware > 0 ? hardware : 1);
  return Math.max(1, Math.min(want, MAX_WORKERS, Math.max(1, runs)));
}

// The runs still to hand out, in run order: next() gives the lowest index
// not yet given, or null when every run is out (or after stop()).
export function makeRunQueue(count) {
  let next = 0;
  let stopped = false;
  return {
    next() {
      if (stopped || next >= count) return null;
      return next++;
    },
    stop() {
      stopped = true;
    },
    get given() {
      return next;
    },
  };
}

// Puts a result into a list kept in run order (results from several Workers
// arrive as their runs finish). key(r) is the run's index.
export function insertInOrder(list, result, key = (r) => r.run) {
  let i = list.length;
  while (i > 0 && key(list[i - 1]) > key(result)) i--;
  list.splice(i, 0, result);
  return list;
}

// Steps done over every run, from the latest step each run reported.
export function makeStepCount() {
  const byRun = new Map();
  return {
    set(run, step) {
      byRun.set(run, step);
    },
    get total() {
      let t = 0;
      for (const v of byRun.values()) t += v;
      return t;
    },
  };
}
