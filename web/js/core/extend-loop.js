// RoPE context extension, Part 2: the chunked loop over seeds that drives the
// core's ExtensionRun (train with RoPE, then per method evaluate zero-shot and
// after a short fine-tune). Shared by the training Web Worker
// (train-worker.js, job kind 'extend') and the wasm test that compares it
// with `poslab extend`. Every number is the core's.

// options: { seeds, methods, steps, finetuneSteps, trainMax, testMax, task, k, base, yarnEdges, yarnAlpha, yarnBeta, chunk }
// on: { progress({seedIndex, seeds, seed, step, steps, curves}), result({seedIndex, seed, curves, losses, seconds, scale, trainedLength}) }
// Returns 'done' or 'cancelled'; a core error is thrown as the core's Error.
export function runOptions(options, seed) {
  const out = { seed };
  for (const key of ['methods', 'steps', 'finetuneSteps', 'trainMax', 'testMax', 'finetuneLr', 'newBase', 'batch', 'dModel', 'heads', 'layers', 'dMlp', 'base', 'task', 'k', 'yarnEdges', 'yarnAlpha', 'yarnBeta']) {
    if (options[key] !== undefined) out[key] = options[key];
  }
  return out;
}

// control.nextRun(): as in train() (train-loop.js): the index in options.seeds
// of the next seed to run, or null; absent, every seed in order.
export async function extend(lab, options, on, { isCancelled, yieldNow, nextRun = null }) {
  const seeds = options.seeds;
  if (!Array.isArray(seeds) || seeds.length < 1 || seeds.length > 8) {
    throw Object.assign(new Error('seeds must list 1 to 8 seeds'), { code: 'out_of_range_option', params: { field: 'seeds', min: '1', max: '8' } });
  }
  // Every run's options are checked by the core before any training.
  for (const seed of seeds) new lab.ExtensionRun(runOptions(options, seed)).delete();
  let order = 0;
  const next = nextRun ?? (() => (order < seeds.length ? order++ : null));
  for (let i = await next(); i !== null && i !== undefined; i = await next()) {
    if (!Number.isInteger(i) || i < 0 || i >= seeds.length) throw new Error(`no seed ${i} in this experiment`);
    const seed = seeds[i];
    const started = Date.now();
    const run = new lab.ExtensionRun(runOptions(options, seed));
    try {
      while (!run.done()) {
        await yieldNow();
        if (isCancelled()) return 'cancelled';
        const p = run.step(options.chunk ?? 10);
        on.progress({ seedIndex: i, seeds: seeds.length, seed, step: p.step, steps: p.steps, curves: p.curves });
      }
      const o = run.options();
      on.result({
        seedIndex: i,
        seed,
        seconds: (Date.now() - started) / 1000,
        scale: o.scale,
        trainedLength: o.trainedLength,
        trainMax: o.trainMax,
        testMax: o.testMax,
        losses: Array.from(run.losses()),
        curves: run.curves().map((c) => ({
          method: c.method,
          finetuned: c.finetuned,
          exactMatch: Array.from(c.exactMatch),
          solvedUpTo: c.solvedUpTo,
          meanExtrapolated: c.meanExtrapolated,
        })),
      });
    } finally {
      run.delete();
    }
  }
  return 'done';
}
