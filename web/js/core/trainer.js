// The page's side of "train short, test long": one training session at a time,
// its runs (one per scheme and seed; for the RoPE extension, one per seed)
// spread over a pool of dedicated Web Workers (train-worker.js; from file://
// too, see core-loader.js), each free Worker asking for the next run in run
// order (run-pool.js, issue 25). Every Worker gets the page's one compiled
// WebAssembly.Module. A run's numbers depend only on its scheme and seed, and
// the results are put back in run order, so any number of Workers gives the
// one-Worker numbers bit for bit. When the browser refuses a Worker, the same
// chunked loop runs on the main thread, yielding between chunks so the page
// stays responsive and Cancel works. The session lives outside the widget, so
// a re-rendered page (e.g. a language switch) picks it up again; when no
// widget is left to show it, it is cancelled.
import { train, makeYield, makeGate, runList, withKernels } from './train-loop.js';
import { extend } from './extend-loop.js';
import { CoreError, startCoreWorker } from './core-client.js';
import { loadCoreCode } from './core-loader.js';
import { poolSize, makeRunQueue, insertInOrder, makeStepCount } from './run-pool.js';

const WORKER_CHUNK = 10; // steps between progress messages (≈ 60–80 ms of work)
const MAIN_CHUNK = 5; // smaller on the main thread: the page is blocked during a chunk
const WORKER_START_MS = 15000;

// The training Workers, by slot: each a Promise of a ready Worker, or of null
// when the browser refused it. Kept between sessions; a Worker that failed
// is dropped, and its slot starts a fresh one next time.
const workers = [];
let mainLab = null;
let nextId = 1;
let current = null;

export function activeSession() {
  return current;
}

function startWorker(code) {
  const options = { startMs: WORKER_START_MS, init: (module) => ({ type: 'init', module }), isReady: (d) => d.type === 'ready', errorOf: (d) => d.error };
  return startCoreWorker(code, 'train-worker.js', options).then(({ worker: w }) => w);
}

// The first n Workers of the pool, started as needed (side by side), the
// ready ones in slot order with their slots. Empty when the first one was
// refused (the page then trains on the main thread).
async function getWorkers(n) {
  for (let k = 0; k < n; k++) {
    workers[k] ??= loadCoreCode()
      .then(startWorker)
      .catch(() => null);
  }
  const ready = await Promise.all(workers.slice(0, n));
  if (!ready[0]) return [];
  return ready.map((w, slot) => ({ w, slot })).filter((x) => x.w);
}

// How many Workers a session gets: options.workers (fixed in the link, checked
// by the widget) or the browser's core count, capped (run-pool.js).
function wantedWorkers(options, runs) {
  const hardware = typeof navigator !== 'undefined' ? navigator.hardwareConcurrency : 1;
  return poolSize({ requested: options.workers ?? null, hardware, runs });
}

async function getMainLab(core) {
  if (core?.lab) return core.lab; // the page's own core already runs on the main thread
  mainLab ??= loadCoreCode().then((code) => code.lab());
  return mainLab;
}

// options: { schemes, seeds, steps, workers?, kernels? } (workers: how many Workers, 1 to
// MAX_WORKERS; absent, navigator.hardwareConcurrency, capped; kernels: 'reference' trains
// with the core's plain loops, the bench's "before"). Returns the session:
// { id, options, status: 'starting' | 'running' | 'cancelling' | 'done' | 'cancelled' | 'error',
//   mode: 'worker' | 'main', workers: how many Workers, runs: [{scheme, seed}], losses: {"scheme|seed": [loss per step]},
//   results: [{run, scheme, seed, evaluation, seconds}] in run order, live: {"scheme|seed": the latest evaluation during training},
//   active: {run index: {run, scheme, seed, step, steps}} (the runs in training now),
//   progress, error, seconds, paused, subscribe(fn, isAlive), cancel(), pause(), resume(), step(),
//   activeMs(): the time spent training so far, pauses left out (for the time-left estimate) }
export function startTraining(options, { core } = {}) {
  if (current && ['starting', 'running', 'cancelling'].includes(current.status)) throw new Error('a training run is already going');
  // kind 'extend': RoPE context extension (extend-loop.js), one run per seed.
  const isExtend = options.kind === 'extend';
  const runs = isExtend ? options.seeds.map((seed) => ({ scheme: 'rope', seed })) : runList(options);
  const listeners = new Set();
  const s = {
    id: nextId++,
    options,
    status: 'starting',
    mode: null,
    chunk: WORKER_CHUNK, // steps per progress message (and per Step while paused)
    runs,
    losses: {},
    live: {},
    liveTests: 0,
    active: {}, // run index → {run, scheme, seed, step, steps}: the runs in training now
    workers: 0, // how many Workers train it (0 on the main thread)
    results: [],
    paused: false,
    held: false,
    progress: { run: 0, runs: runs.length, scheme: runs[0]?.scheme, seed: runs[0]?.seed, step: 0, steps: options.steps, stepsDone: 0, stepsTotal: runs.length * options.steps },
    error: null,
    seconds: null,
    startedAt: performance.now(),
    subscribe(fn, isAlive) {
      const entry = { fn, isAlive };
      listeners.add(entry);
      return () => listeners.delete(entry);
    },
    cancel: () => {},
    pause: () => {},
    resume: () => {},
    step: () => {},
    pausedMs: 0,
    pausedAt: null,
    activeMs() {
      const end = s.seconds !== null ? s.startedAt + s.seconds * 1000 : performance.now();
      return end - s.startedAt - s.pausedMs - (s.pausedAt !== null ? end - s.pausedAt : 0);
    },
  };
  current = s;
  // Paused and stopped between chunks: no step is in flight (s.held until the next step or resume).
  const hold = () => {
    if (!s.paused || s.held) return;
    s.held = true;
    notify();
  };
  // Pause, step and resume: the same for the Worker and the main thread (send says how).
  const controls = (send) => {
    s.pause = () => {
      if (s.status !== 'running' || s.paused) return;
      s.paused = true;
      s.pausedAt = performance.now();
      send('pause');
      notify();
    };
    s.resume = () => {
      if (!s.paused) return;
      s.paused = false;
      s.held = false;
      s.pausedMs += performance.now() - s.pausedAt;
      s.pausedAt = null;
      send('resume');
      notify();
    };
    s.step = () => {
      if (s.status !== 'running' || !s.paused) return;
      s.held = false;
      send('step');
      notify();
    };
  };

  const notify = () => {
    for (const l of [...listeners]) if (!l.isAlive()) listeners.delete(l);
    if (!listeners.size && (s.status === 'running' || s.status === 'starting')) {
      s.cancel(); // nobody can see it any more (the learner left the exercise)
      return;
    }
    for (const l of listeners) l.fn(s);
  };
  // Several Workers report at once: the steps done are summed over the runs,
  // and the progress line follows the earliest run not finished yet (with the
  // queue in run order, it is always one in training or about to start).
  const steps = makeStepCount();
  const finished = new Set();
  const lead = () => {
    let i = 0;
    while (finished.has(i)) i++;
    return Math.min(i, runs.length - 1);
  };
  const onProgress = (p) => {
    const index = isExtend ? p.seedIndex : p.run;
    steps.set(index, p.step);
    s.active[index] = { run: index, scheme: runs[index].scheme, seed: p.seed, step: p.step, steps: p.steps };
    const i = lead();
    const leadStep = s.active[i]?.step ?? 0;
    if (isExtend) {
      s.progress = { ...p, seedIndex: i, seed: runs[i].seed, step: leadStep, stepsDone: steps.total, stepsTotal: p.seeds * p.steps };
      notify();
      return;
    }
    const key = `${p.scheme}|${p.seed}`;
    (s.losses[key] ??= []).push(...p.loss);
    if (p.evaluation) {
      s.live[key] = p.evaluation;
      s.liveTests++;
    }
    s.progress = { ...p, run: i, scheme: runs[i].scheme, seed: runs[i].seed, step: leadStep, stepsDone: steps.total, stepsTotal: p.runs * options.steps };
    notify();
  };
  const onResult = (r) => {
    const index = isExtend ? r.seedIndex : r.run;
    delete s.active[index];
    finished.add(index);
    insertInOrder(s.results, r, (x) => (isExtend ? x.seedIndex : x.run));
    notify();
  };
  const finish = (status, error = null) => {
    if (['done', 'cancelled', 'error'].includes(s.status)) return;
    s.held = false; // an ended session holds nothing (a Step can train the last chunk)
    if (s.paused) {
      s.paused = false;
      s.pausedMs += performance.now() - s.pausedAt;
      s.pausedAt = null;
    }
    s.status = status;
    s.error = error;
    s.seconds = (performance.now() - s.startedAt) / 1000;
    notify();
  };

  (async () => {
    const pool = await getWorkers(wantedWorkers(options, runs.length));
    if (s.status === 'cancelling') return finish('cancelled');
    if (pool.length) {
      s.mode = 'worker';
      s.workers = pool.length;
      s.chunk = WORKER_CHUNK;
      s.status = 'running';
      const queue = makeRunQueue(runs.length);
      const going = new Set(pool.map((x) => x.slot)); // slots whose job has not ended
      const held = new Set(); // slots stopped at the gate while paused
      const assigned = new Map(); // slot → the run it trains now
      const ended = () => ['done', 'cancelled', 'error'].includes(s.status);
      const toAll = (m) => {
        for (const { w, slot } of pool) if (going.has(slot)) w.postMessage({ ...m, id: s.id });
      };
      // Paused: held once every Worker still at work has stopped.
      const checkHeld = () => {
        if (s.paused && [...going].every((slot) => held.has(slot))) hold();
      };
      const stopAll = () => {
        queue.stop();
        toAll({ type: 'cancel' });
      };
      for (const { w, slot } of pool) {
        w.onmessage = (event) => {
          const m = event.data;
          if (m.id !== s.id || ended()) return;
          if (m.type === 'next') {
            const index = s.status === 'running' ? queue.next() : null;
            if (index === null) assigned.delete(slot);
            else assigned.set(slot, index);
            w.postMessage({ type: 'run', id: s.id, index });
          } else if (m.type === 'progress') onProgress(m);
          else if (m.type === 'held') {
            if (!s.paused) return; // sent before a resume that has gone out since
            held.add(slot);
            checkHeld();
          } else if (m.type === 'result') onResult(m);
          else if (m.type === 'done' || m.type === 'cancelled') {
            going.delete(slot);
            held.delete(slot);
            assigned.delete(slot);
            if (!going.size) finish(s.results.length === runs.length ? 'done' : 'cancelled');
            else checkHeld();
          } else if (m.type === 'error') {
            going.delete(slot);
            stopAll();
            finish('error', new CoreError(m.error));
          }
        };
        w.onerror = (e) => {
          e.preventDefault?.();
          workers[slot] = null; // start a fresh one next time
          going.delete(slot);
          if (ended()) return;
          stopAll();
          finish('error', new CoreError({ message: 'the training worker stopped', code: 'worker_failed', params: {} }));
        };
      }
      s.cancel = () => {
        if (s.status !== 'running' && s.status !== 'starting') return;
        s.status = 'cancelling';
        stopAll();
        notify();
      };
      s.pause = () => {
        if (s.status !== 'running' || s.paused) return;
        s.paused = true;
        s.pausedAt = performance.now();
        held.clear();
        toAll({ type: 'pause' });
        notify();
      };
      s.resume = () => {
        if (!s.paused) return;
        s.paused = false;
        s.held = false;
        held.clear();
        s.pausedMs += performance.now() - s.pausedAt;
        s.pausedAt = null;
        toAll({ type: 'resume' });
        notify();
      };
      // One Step is one chunk of one run: the earliest run in training.
      s.step = () => {
        if (s.status !== 'running' || !s.paused) return;
        const slots = [...going];
        if (!slots.length) return;
        const slot = slots.reduce((a, b) => ((assigned.get(b) ?? Infinity) < (assigned.get(a) ?? Infinity) ? b : a));
        s.held = false;
        held.delete(slot);
        pool.find((x) => x.slot === slot).w.postMessage({ type: 'step', id: s.id });
        notify();
      };
      for (const { w } of pool) w.postMessage({ type: 'start', id: s.id, options: { ...options, chunk: WORKER_CHUNK, pooled: true } });
      notify();
      return;
    }
    s.mode = 'main';
    s.chunk = MAIN_CHUNK;
    let cancelled = false;
    const gate = makeGate(() => cancelled, hold);
    s.cancel = () => {
      if (s.status !== 'running' && s.status !== 'starting') return;
      cancelled = true;
      s.status = 'cancelling';
      gate.wake();
      notify();
    };
    controls((type) => gate[type]());
    try {
      const lab = await getMainLab(core);
      if (s.status === 'starting') s.status = 'running';
      notify();
      const mainOptions = { ...options, chunk: MAIN_CHUNK };
      const outcome = await withKernels(lab, mainOptions, () => (isExtend ? extend : train)(lab, mainOptions, { progress: onProgress, result: onResult }, { isCancelled: () => cancelled, yieldNow: makeYield(), gate: gate.gate }));
      finish(outcome);
    } catch (e) {
      finish('error', e instanceof CoreError ? e : new CoreError({ message: String(e?.message ?? e), code: e?.code ?? 'error', params: e?.params ?? {} }));
    }
  })();
  // Until the Worker is known, a cancel just marks the session.
  s.cancel = () => {
    if (s.status === 'starting') {
      s.status = 'cancelling';
      notify();
    }
  };
  return s;
}
