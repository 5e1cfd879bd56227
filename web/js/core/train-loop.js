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

// options: { schemes, seeds, steps, chunk }.
// on: { progress({run, runs, scheme, seed, step, steps, loss}), result({run, scheme, seed, evaluation, seconds}) }
// Returns 'done' or 'cancelled'; a core error is thrown as the core's Error.
export async function train(lab, options, on, { isCancelled, yieldNow }) {
  const runs = runList(options);
  // Every run's options are checked by the core before any training, so a bad
  // seed at the end of the list is reported at once, not after minutes.
  for (const { scheme, seed } of runs) new lab.ExtrapolationRun({ scheme, seed, steps: options.steps }).delete();
  for (let i = 0; i < runs.length; i++) {
    const { scheme, seed } = runs[i];
    const started = Date.now();
    const run = new lab.ExtrapolationRun({ scheme, seed, steps: options.steps });
    try {
      while (!run.done()) {
        await yieldNow();
        if (isCancelled()) return 'cancelled';
        const p = run.step(options.chunk);
        on.progress({ run: i, runs: runs.length, scheme, seed, step: p.step, steps: p.steps, loss: Array.from(p.loss) });
      }
      await yieldNow();
      if (isCancelled()) return 'cancelled';
      const ev = run.evaluate();
      on.result({
        run: i,
        scheme,
        seed,
        seconds: (Date.now() - started) / 1000,
        evaluation: { exactMatch: Array.from(ev.exactMatch), solvedUpTo: ev.solvedUpTo, meanExtrapolated: ev.meanExtrapolated, trainMax: ev.trainMax, testMax: ev.testMax, step: ev.step },
      });
    } finally {
      run.delete();
    }
  }
  return 'done';
}

export { errorRecord };
