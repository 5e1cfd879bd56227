// "Train short, test long" through the wasm module as the page's Web Worker
// drives it (new ExtrapolationRun, step in chunks, evaluate, delete), checked
// against the native CLI running the same options.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadLab, cli, maxAbsDiff } from './helpers.mjs';

let lab;
before(async () => {
  lab = await loadLab();
});

// Runs a whole ExtrapolationRun in chunks of `chunk` steps; returns its losses and evaluation.
function train(options, chunk = 5) {
  const run = new lab.ExtrapolationRun(options);
  try {
    const losses = [];
    while (!run.done()) losses.push(...run.step(chunk).loss);
    return { losses, evaluation: run.evaluate(), options: run.options() };
  } finally {
    run.delete();
  }
}

test('native and wasm agree on the loss curve', () => {
  for (const scheme of ['learned', 'rope', 'alibi']) {
    const native = cli(['extrapolate', '--schemes', scheme, '--seeds', '2', '--steps', '8', '--test-max', '20']);
    assert.equal(native.status, 0, native.stderr);
    const nativeLoss = native.json.runs[0].loss;
    const wasm = train({ scheme, seed: 2, steps: 8, testMax: 20 }, 3);
    assert.equal(wasm.losses.length, 8);
    // Same code, same seeds; only exp/log of the two C libraries may differ in the last bits.
    assert.ok(maxAbsDiff(wasm.losses, nativeLoss) < 1e-4,
      `${scheme}: wasm ${wasm.losses} vs native ${nativeLoss}`);
    assert.ok(Math.abs(wasm.losses[0] - Math.log(5)) < 0.3, 'untrained: near ln 5');
  }
});

test('native and wasm agree on exact match after a short run', () => {
  const options = { scheme: 'none', seed: 3, steps: 150, trainMax: 6, testMax: 10, batch: 16, dModel: 16, dMlp: 32 };
  const native = cli(['extrapolate', '--schemes', 'none', '--seeds', '3', '--steps', '150', '--train-max', '6',
    '--test-max', '10', '--batch', '16', '--d-model', '16', '--d-mlp', '32']);
  assert.equal(native.status, 0, native.stderr);
  const wasm = train(options, 50);
  assert.ok(maxAbsDiff(wasm.losses, native.json.runs[0].loss) < 1e-3);
  assert.deepEqual(Array.from(wasm.evaluation.exactMatch), native.json.runs[0].exactMatch);
  assert.equal(wasm.evaluation.solvedUpTo, native.json.runs[0].solvedUpTo);
  assert.ok(wasm.evaluation.solvedUpTo >= 6, 'the trained lengths are solved');
});

test('training in chunks is the same as in one go, and deterministic', () => {
  const a = train({ scheme: 'sinusoidal', seed: 5, steps: 9 }, 2);
  const b = train({ scheme: 'sinusoidal', seed: 5, steps: 9 }, 9);
  assert.deepEqual(a.losses, b.losses);
  const c = train({ scheme: 'sinusoidal', seed: 6, steps: 9 }, 9);
  assert.notDeepEqual(a.losses, c.losses);
});

test('step reports progress and stops at the end', () => {
  const run = new lab.ExtrapolationRun({ steps: 5, testMax: 17 });
  try {
    assert.equal(run.done(), false);
    let p = run.step(3);
    assert.equal(p.step, 3);
    assert.equal(p.steps, 5);
    assert.equal(p.done, false);
    assert.ok(p.loss instanceof Float32Array);
    assert.equal(p.loss.length, 3);
    p = run.step(10);
    assert.deepEqual([p.step, p.done, p.loss.length], [5, true, 2]);
    assert.equal(run.done(), true);
    assert.equal(run.step(1).loss.length, 0);
    assert.equal(run.losses().length, 5);
    const ev = run.evaluate();
    assert.ok(ev.exactMatch instanceof Float32Array);
    assert.equal(ev.exactMatch.length, 17);
    assert.ok(Array.from(ev.exactMatch).every((x) => x === 0 || x === 1));
    let k = 0;
    while (k < 17 && ev.exactMatch[k] === 1) k++;
    assert.equal(ev.solvedUpTo, k);
    assert.equal(ev.meanExtrapolated, ev.exactMatch[16]);  // n = 17 only
    assert.deepEqual([ev.trainMax, ev.testMax, ev.step], [16, 17, 5]);
  } finally {
    run.delete();
  }
});

test('options are filled in with the issue\'s defaults', () => {
  const run = new lab.ExtrapolationRun({ scheme: 'alibi' });
  try {
    assert.deepEqual(run.options(), {
      scheme: 'alibi', seed: 1, steps: 400, trainMax: 16, testMax: 48, batch: 32, lr: 0.003, warmup: 40,
      clip: 1, dModel: 32, heads: 4, layers: 2, dMlp: 128, base: 10000, task: 'count', learnedTableRows: 98,
    });
  } finally {
    run.delete();
  }
});

function rejects(options, code, fragment) {
  assert.throws(() => new lab.ExtrapolationRun(options), (e) => {
    assert.ok(e instanceof Error, 'an Error');
    assert.equal(e.code, code, e.message);
    assert.ok(e.message.includes(fragment), `"${e.message}" should contain "${fragment}"`);
    return true;
  });
}

test('task lookback and k reach the core: options() reports them, and both Run kinds take them', () => {
  const run = new lab.ExtrapolationRun({ scheme: 'rope', task: 'lookback', k: 3 });
  try {
    assert.equal(run.options().task, 'lookback');
    assert.equal(run.options().k, 3);
  } finally {
    run.delete();
  }
  const ext = new lab.ExtensionRun({ task: 'lookback', k: 4, base: 100, trainMax: 8, testMax: 16 });
  try {
    const o = ext.options();
    assert.deepEqual([o.task, o.k, o.base], ['lookback', 4, 100]);
    // θᵢ = 100^(−2i/8) for d_head 8: 1, 0.316…, 0.1, 0.0316… (plain RoPE, the first method).
    const theta = Array.from(o.rope.find((r) => r.method === 'none').theta);
    [1, 100 ** -0.25, 0.1, 100 ** -0.75].forEach((want, i) => assert.ok(Math.abs(theta[i] - want) < 1e-6, `θ${i} = ${theta[i]}`));
  } finally {
    ext.delete();
  }
  const plain = new lab.ExtensionRun({});
  try {
    assert.equal(plain.options().task, 'count');
    assert.equal(plain.options().k, undefined, 'no k without lookback');
  } finally {
    plain.delete();
  }
});

test('bad options arrive as an Error naming the option and what is allowed', () => {
  rejects({ stepz: 3 }, 'unknown_option', "unknown option 'stepz'");
  rejects({ steps: '3' }, 'bad_option_type', 'steps must be a whole number');
  rejects({ steps: 2.5 }, 'bad_option_type', 'got the number 2.5');
  rejects({ steps: -1 }, 'out_of_range_option', 'steps must be an integer from 1 to 20000, got -1');
  rejects({ steps: 0 }, 'out_of_range_option', 'steps must be an integer from 1 to 20000, got 0');
  rejects({ scheme: 'fourier' }, 'unknown_scheme', "'fourier'");
  rejects({ scheme: 3 }, 'bad_option_type', 'scheme must be a string');
  rejects({ lr: 2 }, 'out_of_range_option', 'lr must be a number in (0, 1], got 2');
  rejects({ lr: NaN }, 'bad_option_type', 'lr must be a finite number');
  rejects({ testMax: 16 }, 'out_of_range_option', 'testMax must be an integer from 17 to 96, got 16');
  rejects({ heads: 5 }, 'heads_not_dividing', 'heads must divide dModel: dModel 32, heads 5');
  rejects({ warmup: 500 }, 'out_of_range_option', 'warmup must be an integer from 0 to 400, got 500');
  rejects({ seed: 2 ** 32 }, 'out_of_range_option', 'seed must be an integer from 0 to 4294967295, got 4294967296');
  rejects({ dModel: 2 ** 32 + 32 }, 'out_of_range_option', 'dModel must be an integer from 2 to 64, got 4294967328');
  rejects(null, 'bad_options', 'takes an options object');
  // The task: count (default) or lookback; k only with lookback, 1 … trainMax.
  rejects({ task: 'copy' }, 'unknown_task', "task must be count or lookback, got 'copy'");
  rejects({ k: 2 }, 'k_without_lookback', "k applies only to task 'lookback'");
  rejects({ task: 'lookback', k: 0 }, 'out_of_range_option', 'k must be an integer from 1 to 16, got 0');
  rejects({ task: 'lookback', k: 17 }, 'out_of_range_option', 'k must be an integer from 1 to 16, got 17');
  const run = new lab.ExtrapolationRun({ steps: 2 });
  try {
    assert.throws(() => run.step(-1), (e) => e instanceof Error && e.message.includes('count must be a whole number'));
    assert.throws(() => run.step('1'), (e) => e instanceof Error && e.message.includes('got the string "1"'));
    assert.equal(run.step(1).step, 1, 'the run still works after an error');
  } finally {
    run.delete();
  }
});
