// RoPE context extension through the wasm module, driven exactly as the
// page's training Worker drives it (web/js/extend-loop.js), against the
// native `poslab extend` with the same options and seeds.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadLab, cli, maxAbsDiff } from './helpers.mjs';
import { extend } from '../../web/js/extend-loop.js';

let lab;
before(async () => {
  lab = await loadLab();
});

const small = { steps: 60, trainMax: 4, testMax: 8, finetuneSteps: 12, batch: 8, dModel: 16, heads: 2, layers: 1, dMlp: 32 };
const smallFlags = ['--steps', '60', '--train-max', '4', '--test-max', '8', '--finetune-steps', '12', '--batch', '8',
  '--d-model', '16', '--heads', '2', '--layers', '1', '--d-mlp', '32'];

async function pageRun(options) {
  const results = [];
  const progress = [];
  const outcome = await extend(lab, options, { progress: (p) => progress.push(p), result: (r) => results.push(r) },
    { isCancelled: () => false, yieldNow: async () => {} });
  return { outcome, results, progress };
}

test('the page worker path and poslab extend give the same curves for the same seeds', async () => {
  const methods = ['none', 'pi', 'ntk', 'yarn', 'base'];
  const page = await pageRun({ ...small, seeds: [1, 2], methods, chunk: 7 });
  assert.equal(page.outcome, 'done');
  const native = cli(['extend', '--seeds', '1,2', '--methods', methods.join(','), ...smallFlags]);
  assert.equal(native.status, 0, native.stderr);
  assert.equal(native.json.scale, 2);
  assert.equal(page.results.length, 2);
  for (let s = 0; s < 2; s++) {
    const run = native.json.runs[s];
    const mine = page.results[s];
    assert.equal(mine.seed, run.seed);
    assert.equal(mine.scale, 2);
    assert.equal(mine.trainedLength, 8);
    assert.ok(maxAbsDiff(mine.losses, run.loss) < 1e-3, `seed ${run.seed}: base loss`);
    assert.equal(mine.curves.length, run.curves.length);
    assert.equal(mine.curves.length, 10);
    for (let c = 0; c < run.curves.length; c++) {
      assert.equal(mine.curves[c].method, run.curves[c].method);
      assert.equal(mine.curves[c].finetuned, run.curves[c].finetuned);
      assert.deepEqual(mine.curves[c].exactMatch, run.curves[c].exactMatch, `seed ${run.seed} ${run.curves[c].method}`);
      assert.equal(mine.curves[c].solvedUpTo, run.curves[c].solvedUpTo);
    }
  }
  // Progress reached the end of each seed's steps (60 + 5·12).
  const last = page.progress.at(-1);
  assert.equal(last.step, 120);
  assert.equal(last.steps, 120);
});

test('cancel stops between chunks', async () => {
  let calls = 0;
  const outcome = await extend(lab, { ...small, seeds: [3], chunk: 5 }, { progress: () => calls++, result: () => assert.fail('no result after cancel') },
    { isCancelled: () => calls >= 2, yieldNow: async () => {} });
  assert.equal(outcome, 'cancelled');
  assert.equal(calls, 2);
});

test('bad options are refused with the core message before any training', async () => {
  await assert.rejects(pageRun({ ...small, seeds: [1], methods: ['pi', 'pi'] }), /twice/);
  await assert.rejects(pageRun({ ...small, seeds: [1], finetuneSteps: 5000 }), (e) => e.code === 'out_of_range_option');
  await assert.rejects(pageRun({ ...small, seeds: [1], methods: ['rope'] }), (e) => e.code === 'unknown_rope_method');
  await assert.rejects(pageRun({ ...small, seeds: [] }), /seeds/);
  assert.throws(() => new lab.ExtensionRun({ scheme: 'rope' }), /unknown option 'scheme'/);
});

test('ropeAngleMap: which pairs leave, worked out by hand', () => {
  // d 6, base 1000: θ = 1, 0.1, 0.01. L 10, s 2, NTK: base' = 1000·2^(6/4);
  // θ'₁ = 0.1/√2 reaches 20·0.0707 = 1.41 > its trained 10·0.1 = 1; θ'₂ = 0.005
  // reaches 0.1 = its trained 10·0.01; pair 0 turned fully (10 rad ≥ 2π).
  const m = lab.ropeAngleMap({ d: 6, base: 1000, trainedLength: 10, s: 2, method: 'ntk' });
  assert.deepEqual(m.leaves, [false, true, false]);
  assert.equal(m.positions, 21);
  assert.equal(m.unseen[14 * 3 + 1], 0);
  assert.equal(m.unseen[15 * 3 + 1], 1);
  assert.ok(Math.abs(m.theta[1] - 0.1 / Math.SQRT2) < 1e-7);
  // Plain RoPE: pair 1 reaches 2.0 > 1, pair 2 reaches 0.2 > 0.1.
  assert.deepEqual(lab.ropeAngleMap({ d: 6, base: 1000, trainedLength: 10, s: 2 }).leaves, [false, true, true]);
  // PI: nothing leaves.
  assert.deepEqual(lab.ropeAngleMap({ d: 6, base: 1000, trainedLength: 10, s: 2, method: 'pi' }).leaves, [false, false, false]);
  assert.throws(() => lab.ropeAngleMap({ d: 5, trainedLength: 10, s: 2 }), (e) => e.code === 'out_of_range_option');
  assert.throws(() => lab.ropeAngleMap({ d: 8, trainedLength: 1000, s: 8 }), (e) => e.code === 'too_many_positions');
});
