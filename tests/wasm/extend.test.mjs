// RoPE context extension through the wasm module, driven exactly as the
// page's training Worker drives it (web/js/core/extend-loop.js), against the
// native `poslab extend` with the same options and seeds.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadLab, cli, maxAbsDiff } from './helpers.mjs';
import { extend } from '../../web/js/core/extend-loop.js';

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

test('YaRN edges through the wasm API: the paper\'s by default, the lab\'s by name, α and β settable and checked', () => {
  // d 4, base 100 (θ = 1, 0.1), L 16, s 2: pair 0 turns 16/2π = 2.546 times.
  const r0 = 16 / (2 * Math.PI);
  const paper = lab.ropeAngleMap({ d: 4, base: 100, trainedLength: 16, s: 2, method: 'yarn' });
  assert.equal(paper.alpha, 1);
  assert.equal(paper.beta, 32);
  const g = (r0 - 1) / 31; // the paper's ramp by hand: 0.0499
  assert.ok(Math.abs(paper.ramp[0] - g) < 1e-6);
  assert.ok(Math.abs(paper.theta[0] - ((1 - g) * 0.5 + g)) < 1e-6);
  const labEdges = lab.ropeAngleMap({ d: 4, base: 100, trainedLength: 16, s: 2, method: 'yarn', yarnEdges: 'lab' });
  assert.ok(Math.abs(labEdges.beta - r0) < 1e-9);
  assert.ok(Math.abs(labEdges.theta[0] - 1) < 1e-7); // kept
  const set = lab.ropeAngleMap({ d: 4, base: 100, trainedLength: 16, s: 2, method: 'yarn', yarnAlpha: 2, yarnBeta: 4 });
  assert.ok(Math.abs(set.ramp[0] - (r0 - 2) / 2) < 1e-6);
  assert.throws(() => lab.ropeAngleMap({ d: 4, trainedLength: 16, s: 2, method: 'yarn', yarnAlpha: 4, yarnBeta: 4 }), (e) => e.code === 'yarn_edges_order' && /less than yarnBeta/.test(e.message));
  assert.throws(() => lab.ropeAngleMap({ d: 4, trainedLength: 16, s: 2, method: 'yarn', yarnBeta: 1e5 }), (e) => e.code === 'out_of_range_option' && /0 to 10000/.test(e.message));
  assert.throws(() => lab.ropeAngleMap({ d: 4, trainedLength: 16, s: 2, method: 'yarn', yarnEdges: 'llama' }), (e) => e.code === 'unknown_yarn_edges');
  assert.throws(() => lab.ropeAngleMap({ d: 4, trainedLength: 16, s: 2, method: 'yarn', yarnAlpha: Number.NaN }), /yarnAlpha/);
  assert.throws(() => new lab.ExtensionRun({ yarnAlpha: 40 }), /less than yarnBeta/);
  const run = new lab.ExtensionRun({ yarnEdges: 'lab' });
  try {
    assert.equal(run.options().yarnEdges, 'lab');
    const y = run.options().rope.find((x) => x.method === 'yarn');
    assert.ok(Math.abs(y.beta - r0) < 1e-9); // L = 2·8 = 16
  } finally {
    run.delete();
  }
});

test('ropeAngleMap: an angle that turns past 2π back into the trained arc is not unseen', () => {
  // d 4, base 100, L 10 (pair 1 swept [0, 1]), s 8, plain RoPE: 62·0.1 = 6.2 is unseen;
  // 63·0.1 − 2π = 0.0168 and 72·0.1 − 2π = 0.917 were seen; 73·0.1 − 2π = 1.017 was not.
  const m = lab.ropeAngleMap({ d: 4, base: 100, trainedLength: 10, s: 8 });
  assert.deepEqual([62, 63, 72, 73].map((p) => m.unseen[p * 2 + 1]), [1, 0, 0, 1]);
});
