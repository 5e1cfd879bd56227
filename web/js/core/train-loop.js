// "Train short, test long": the chunked training loop, shared by the training
// Web Worker (train-worker.js) and the main-thread fallback (trainer.js), so
// both behave the same. It only drives the core's ExtrapolationRun (every
// number — losses, exact match, largest n solved, mean over n > trainMax — is
// the core's) and yields between chunks so that a cancel can arrive and, on
// the main thread, the page stays responsive.
import { errorRecord } from './core-dispatch.js';

// The runs in the order they are trained: seed by seed, every scheme per seed,
// so that the first seed's curves of all schemes appear early.
export function runList({ schemes, seeds }) {
  const list = [];
  for (const seed of seeds) for (const scheme of schemes) list.push({ scheme, seed });
  return list;
}

// Resolves after the event loop had a turn. A MessageChannel message is not
// clamped to 4 ms the way nested setTimeouts are.
export function makeYield() {
  if (typeof MessageChannel === 'undefined') return () => new Promise((ok) => setTimeout(ok, 0));
  const channel = new MessageChannel();
  const waiting = [];
  channel.port1.onmessage = () => waiting.shift()?.();
  return () =>
    new Promise((ok) => {
      waiting.push(ok);
      channel.port2.postMessage(0);
    });
}

// How often (in steps) a run in progress is tested on every n, so that the
// page can draw the exact-match curves growing while it trains (issue 24): ten
// times a run, on a chunk boundary. Each test is the core's own evaluate()
// (testMax forward passes, no training), the same as at the end of the run.
export function evalEvery(steps, chunk) {
  const c = Math.max(1, chunk ?? 10);
  return Math.max(c, Math.ceil(steps / 10 / c) * c);
}

// Runs fn() with the core's training loops chosen by options.kernels:
// 'reference' for the plain loops (the bench's "before": kernels=reference in
// the link), else the kernels; both give the same numbers, bit for bit. The
// choice is the core instance's own, so it is set back to the kernels after.
export async function withKernels(lab, options, fn) {
  const reference = options?.kernels === 'reference';
  if (reference) lab.trainKernelsReference(true);
  try {
    return await fn();
  } finally {
    if (reference) lab.trainKernelsReference(false);
  }
}

const evaluationOf = (ev) => ({ exactMatch: Array.from(ev.exactMatch), solvedUpTo: ev.solvedUpTo, meanExtrapolated: ev.meanExtrapolated, trainMax: ev.trainMax, testMax: ev.testMax, step: ev.step });

// options: { schemes, seeds, steps, chunk, live? } (live: false leaves the tests during training out).
// on: { progress({run, runs, scheme, seed, step, steps, loss, evaluation?}), result({run, scheme, seed, evaluation, seconds}) }
// control.gate(): awaited before every chunk (pause and step: it resolves
// when the next chunk may run; absent, chunks run back to back).
// control.nextRun(): (awaited) the index in runList(options) of the next run
// to train, or null when there is none left for this loop: several Workers
// share one experiment this way (trainer.js, run-pool.js). Absent, every run
// in order. A run's numbers depend only on its scheme and seed, never on
// which loop trains it or what it trained before.
// Returns 'done' or 'cancelled'; a core error is thrown as the core's Error.
export async function train(lab, options, on, { isCancelled, yieldNow, gate, nextRun = null }) {
  const every = evalEvery(options.steps, options.chunk);
  const runs = runList(options);
  // Every run's options are checked by the core before any training, so a bad
  // seed at the end of the list is reported at once, not after minutes.
  for (const { scheme, seed } of runs) new lab.ExtrapolationRun({ scheme, seed, steps: options.steps }).delete();
  let order = 0;
  const next = nextRun ?? (() => (order < runs.length ? order++ : null));
  for (let i = await next(); i !== null && i !== undefined; i = await next()) {
    if (!Number.isInteger(i) || i < 0 || i >= runs.length) throw new Error(`no run ${i} in this experiment`);
    const { scheme, seed } = runs[i];
    const started = Date.now();
    const run = new lab.ExtrapolationRun({ scheme, seed, steps: options.steps });
    let lastStep = 0;
    try {
      while (!run.done()) {
        await yieldNow();
        if (gate) await gate();
        if (isCancelled()) return 'cancelled';
        const p = run.step(options.chunk);
        const message = { run: i, runs: runs.length, scheme, seed, step: p.step, steps: p.steps, loss: Array.from(p.loss) };
        // Crossed a multiple of `every` (the last step is the result's own test).
        if (options.live !== false && p.step < p.steps && Math.floor(p.step / every) > Math.floor(lastStep / every)) message.evaluation = evaluationOf(run.evaluate());
        lastStep = p.step;
        on.progress(message);
      }
      await yieldNow();
      if (isCancelled()) return 'cancelled';
      const ev = run.evaluate();
      on.result({
        run: i,
        scheme,
        seed,
        seconds: (Date.now() - started) / 1000,
        evaluation: evaluationOf(ev),
      });
    } finally {
      run.delete();
    }
  }
  return 'done';
}

export { errorRecord };

// Pause and step for train(): gate() is awaited before every chunk. Paused,
// it waits; step() lets exactly one more chunk through, then it waits again;
// resume() lets every chunk through. wake() ends a wait (a cancel: the loop
// then sees isCancelled() and stops). onHold() is called each time the loop
// stops and waits (the page then knows no chunk is in flight).
export function makeGate(isCancelled, onHold = () => {}) {
  let paused = false;
  let credits = 0;
  let waiting = null;
  const wake = () => {
    const w = waiting;
    waiting = null;
    w?.();
  };
  return {
    async gate() {
      while (paused && credits === 0 && !isCancelled()) {
        onHold();
        await new Promise((ok) => (waiting = ok));
      }
      if (paused && credits > 0) credits--;
    },
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      credits = 0;
      wake();
    },
    step() {
      if (!paused) return;
      credits++;
      wake();
    },
    wake,
    get paused() {
      return paused;
    },
  };
}
