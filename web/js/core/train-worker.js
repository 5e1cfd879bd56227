// The training Web Worker: starts its own instance of the core (from the
// page's compiled WebAssembly.Module, sent with init) and runs the
// "train short, test long" experiment (train-loop.js), posting progress after
// every chunk of steps. Messages in: {type: 'init', module}, {type: 'start', id,
// options}, {type: 'cancel', id}, {type: 'pause' | 'resume' | 'step', id} (a
// training job waits between chunks while paused; a step lets one chunk
// through). Out: {type: 'ready'}, then per job {id, type: 'progress', …},
// {id, type: 'held'} (paused: stopped between chunks), {id, type: 'result', …}, and last
// {id, type: 'done' | 'cancelled'} or {id, type: 'error', error: {message, code, params}}.
// Jobs run one after another, so a start that arrives while a cancelled job
// is still finishing its chunk waits for it.
// Several Workers can share one experiment (issue 25; trainer.js): a start
// with options.pooled trains only the runs the page hands it, asking for
// each in turn: out {id, type: 'next'}, in {type: 'run', id, index} (index
// null: no run left for this Worker, the job ends with 'done').
import { train, makeYield, makeGate, errorRecord, withKernels } from './train-loop.js';
import { extend } from './extend-loop.js';
import { loadGlue, workerLab } from './core-instantiate.js';

loadGlue(); // now, while the page compiles the wasm

let labPromise = null;
const cancelled = new Set();
const gates = new Map(); // job id → its pause/step gate (train-loop.js)
const asks = new Map(); // job id → the pending request for its next run (pooled jobs)
let queue = Promise.resolve();
const yieldNow = makeYield();

function core(module = null) {
  labPromise ??= workerLab(module);
  return labPromise;
}

self.onmessage = async (event) => {
  const message = event.data;
  if (message.type === 'cancel') {
    cancelled.add(message.id);
    gates.get(message.id)?.wake();
    answer(message.id, null);
    return;
  }
  if (message.type === 'run') {
    answer(message.id, message.index);
    return;
  }
  if (message.type === 'pause' || message.type === 'resume' || message.type === 'step') {
    gates.get(message.id)?.[message.type]();
    return;
  }
  if (message.type === 'init') {
    try {
      await core(message.module);
      self.postMessage({ type: 'ready' });
    } catch (e) {
      self.postMessage({ type: 'error', error: errorRecord(e) });
    }
    return;
  }
  if (message.type === 'start') queue = queue.then(() => job(message.id, message.options));
};

function answer(id, index) {
  const ok = asks.get(id);
  asks.delete(id);
  ok?.(index);
}

async function job(id, options) {
  const post = (m) => self.postMessage({ ...m, id });
  const control = makeGate(() => cancelled.has(id), () => post({ type: 'held' }));
  gates.set(id, control);
  try {
    const lab = await core();
    // options.kind 'extend': RoPE context extension (extend-loop.js); else train short, test long.
    const loop = options && options.kind === 'extend' ? extend : train;
    const nextRun = options && options.pooled
      ? () =>
          cancelled.has(id)
            ? null
            : new Promise((ok) => {
                asks.set(id, ok);
                post({ type: 'next' });
              })
      : null;
    const outcome = await withKernels(lab, options, () =>
      loop(
        lab,
        options,
        { progress: (p) => post({ type: 'progress', ...p }), result: (r) => post({ type: 'result', ...r }) },
        { isCancelled: () => cancelled.has(id), yieldNow, gate: control.gate, nextRun },
      ),
    );
    post({ type: outcome });
  } catch (e) {
    post({ type: 'error', error: errorRecord(e) });
  } finally {
    cancelled.delete(id);
    gates.delete(id);
    asks.delete(id);
  }
}
