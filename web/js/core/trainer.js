// The page's side of "train short, test long": one training session at a time,
// run in a dedicated Web Worker (train-worker.js; from file:// too, see
// core-loader.js), or — when the browser refuses a Worker — by the
// same chunked loop on the main thread, yielding between chunks so the page
// stays responsive and Cancel works. The session lives outside the widget, so
// a re-rendered page (e.g. a language switch) picks it up again; when no
// widget is left to show it, it is cancelled.
import { train, makeYield, makeGate, runList } from './train-loop.js';
import { extend } from './extend-loop.js';
import { CoreError, startCoreWorker } from './core-client.js';
import { loadCoreCode } from './core-loader.js';

const WORKER_CHUNK = 10; // steps between progress messages (≈ 60–80 ms of work)
const MAIN_CHUNK = 5; // smaller on the main thread: the page is blocked during a chunk
const WORKER_START_MS = 15000;

let worker = null; // Promise of a ready Worker, or null when refused
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

async function getWorker() {
  worker ??= loadCoreCode()
    .then(startWorker)
    .catch(() => null);
  return worker;
}

async function getMainLab(core) {
  if (core?.lab) return core.lab; // the page's own core already runs on the main thread
  mainLab ??= loadCoreCode().then((code) => code.lab());
  return mainLab;
}

// options: { schemes, seeds, steps }. Returns the session:
// { id, options, status: 'starting' | 'running' | 'cancelling' | 'done' | 'cancelled' | 'error',
//   mode: 'worker' | 'main', runs: [{scheme, seed}], losses: {"scheme|seed": [loss per step]},
//   results: [{scheme, seed, evaluation, seconds}], live: {"scheme|seed": the latest evaluation during training},
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
  const onProgress = (p) => {
    if (isExtend) {
      s.progress = { ...p, stepsDone: p.seedIndex * p.steps + p.step, stepsTotal: p.seeds * p.steps };
      notify();
      return;
    }
    const key = `${p.scheme}|${p.seed}`;
    (s.losses[key] ??= []).push(...p.loss);
    if (p.evaluation) {
      s.live[key] = p.evaluation;
      s.liveTests++;
    }
    s.progress = { ...p, stepsDone: p.run * options.steps + p.step, stepsTotal: p.runs * options.steps };
    notify();
  };
  const onResult = (r) => {
    s.results.push(r);
    notify();
  };
  const finish = (status, error = null) => {
    if (['done', 'cancelled', 'error'].includes(s.status)) return;
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
    const w = await getWorker();
    if (s.status === 'cancelling') return finish('cancelled');
    if (w) {
      s.mode = 'worker';
      s.chunk = WORKER_CHUNK;
      s.status = 'running';
      w.onmessage = (event) => {
        const m = event.data;
        if (m.id !== s.id) return;
        if (m.type === 'progress') onProgress(m);
        else if (m.type === 'held') hold();
        else if (m.type === 'result') onResult(m);
        else if (m.type === 'done' || m.type === 'cancelled') finish(m.type);
        else if (m.type === 'error') finish('error', new CoreError(m.error));
      };
      w.onerror = (e) => {
        e.preventDefault?.();
        worker = null; // start a fresh one next time
        finish('error', new CoreError({ message: 'the training worker stopped', code: 'worker_failed', params: {} }));
      };
      s.cancel = () => {
        if (s.status !== 'running' && s.status !== 'starting') return;
        s.status = 'cancelling';
        w.postMessage({ type: 'cancel', id: s.id });
        notify();
      };
      controls((type) => w.postMessage({ type, id: s.id }));
      w.postMessage({ type: 'start', id: s.id, options: { ...options, chunk: WORKER_CHUNK } });
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
      const outcome = await (isExtend ? extend : train)(lab, { ...options, chunk: MAIN_CHUNK }, { progress: onProgress, result: onResult }, { isCancelled: () => cancelled, yieldNow: makeYield(), gate: gate.gate });
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
