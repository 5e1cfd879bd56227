// Attention spread over Workers by heads (web/js/core/attention-split.js):
// the plan and the join worked out by hand, and splitForward over 1…12
// stand-in Workers (each the same wasm module behind core-dispatch.js, as
// worker.js runs it) against one lab.forward call, bit for bit.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadLab } from './helpers.mjs';
import { dispatch } from '../../web/js/core/core-dispatch.js';
import { MAX_ATTENTION_WORKERS, attentionWorkerCount, joinContexts, parseWorkerCount, planHeads, splitForward } from '../../web/js/core/attention-split.js';

let lab;
before(async () => {
  lab = await loadLab();
});

// n stand-in Workers: each call goes through dispatch (as worker.js does) and is logged.
function fakeCores(n, log = []) {
  return Array.from({ length: n }, (_, i) => ({
    call: async (method, args, select) => {
      log.push({ core: i, method, from: args.headFrom, to: args.headTo });
      return dispatch(lab, { method, args, select });
    },
  }));
}

const bits = (f32) => Array.from(new Uint32Array(f32.buffer, f32.byteOffset, f32.length));

test('planHeads: contiguous, in order, sizes differing by at most one', () => {
  assert.deepEqual(planHeads(12, 1), [[0, 12]]);
  assert.deepEqual(planHeads(12, 2), [[0, 6], [6, 12]]);
  assert.deepEqual(planHeads(12, 5), [[0, 3], [3, 6], [6, 8], [8, 10], [10, 12]]);
  assert.deepEqual(planHeads(12, 12), Array.from({ length: 12 }, (_, i) => [i, i + 1]));
  assert.deepEqual(planHeads(3, 8), [[0, 1], [1, 2], [2, 3]]); // never an empty share
  assert.deepEqual(planHeads(1, 2), [[0, 1]]);
  for (const bad of [[0, 2], [12, 0], [2.5, 2], [12, -1], [12, NaN]]) assert.throws(() => planHeads(...bad), RangeError);
});

test('joinContexts puts the shares side by side', () => {
  const a = { shape: [2, 1], data: Float32Array.from([1, 2]) };
  const b = { shape: [2, 3], data: Float32Array.from([3, 4, 5, 6, 7, 8]) };
  assert.deepEqual(joinContexts([a, b]), { shape: [2, 4], data: Float32Array.from([1, 3, 4, 5, 2, 6, 7, 8]) });
  assert.throws(() => joinContexts([a, { shape: [3, 1], data: new Float32Array(3) }]), RangeError);
  assert.throws(() => joinContexts([{ shape: [2, 2], data: new Float32Array(3) }]), RangeError);
  assert.throws(() => joinContexts([]), RangeError);
});

test('the Worker count: workers=N read as hostile input, capped by the heads and the maximum', () => {
  assert.deepEqual(parseWorkerCount(undefined), { count: null });
  assert.equal(parseWorkerCount('').error?.code, 'bad_workers', 'an empty workers= is refused, as the training widgets refuse it');
  assert.deepEqual(parseWorkerCount('1'), { count: 1 });
  assert.deepEqual(parseWorkerCount(' 2 '), { count: 2 });
  assert.deepEqual(parseWorkerCount(String(MAX_ATTENTION_WORKERS)), { count: MAX_ATTENTION_WORKERS });
  for (const bad of ['0', String(MAX_ATTENTION_WORKERS + 1), '2.5', '-1', 'two', '1e1', '0x2', 'x'.repeat(100)]) {
    const r = parseWorkerCount(bad);
    assert.equal(r.error.code, 'bad_workers', bad);
    assert.equal(r.error.params.min, '1');
    assert.equal(r.error.params.max, String(MAX_ATTENTION_WORKERS));
    assert.ok(r.error.params.value.length <= 40);
  }
  assert.equal(attentionWorkerCount({ hardware: 2, heads: 12 }), 2);
  assert.equal(attentionWorkerCount({ hardware: 64, heads: 12 }), MAX_ATTENTION_WORKERS);
  assert.equal(attentionWorkerCount({ hardware: 64, heads: 3 }), 3);
  assert.equal(attentionWorkerCount({ requested: 1, hardware: 8, heads: 12 }), 1);
  assert.equal(attentionWorkerCount({ requested: 5, hardware: 1, heads: 12 }), 5);
  assert.equal(attentionWorkerCount({ hardware: undefined, heads: 12 }), 1);
  assert.equal(attentionWorkerCount({ hardware: 0, heads: 12 }), 1);
});

test('splitForward over 1 to 12 Workers equals one forward call bit for bit (GPT-2 small shape, S = 70)', async () => {
  const tokens = Array.from({ length: 70 }, (_, i) => ['犬', 'が', '猫', 'を', '追いかけ', 'た'][i % 6]);
  for (const pe of ['learned', 'sinusoidal', 'rope', 'alibi']) {
    const args = { tokens, pe, dModel: 768, heads: 12, weights: 'random', seed: 5, returnAttention: false };
    const whole = lab.forward(args);
    for (const n of [1, 2, 3, 5, 12]) {
      const log = [];
      const r = await splitForward(fakeCores(n, log), args);
      assert.deepEqual(bits(r.output.data), bits(whole.output.data), `${pe}, ${n} Workers`);
      assert.deepEqual(bits(r.outputMean.data), bits(whole.outputMean.data));
      assert.equal(r.attention, null);
      if (n > 1) {
        // Every head computed once, each share by its own Worker, then one combine on the first.
        const shares = log.filter((c) => c.method === 'forwardHeads');
        assert.deepEqual(shares.map((c) => [c.core, c.from, c.to]), planHeads(12, n).map(([f, t], i) => [i, f, t]));
        assert.deepEqual(log.filter((c) => c.method !== 'forwardHeads').map((c) => [c.core, c.method]), [[0, 'forwardCombine']]);
      } else {
        assert.deepEqual(log.map((c) => c.method), ['forward']);
      }
    }
  }
});

test('splitForward: causal, identity weights, and the wall\'s select of four columns', async () => {
  const tokens = Array.from({ length: 33 }, (_, i) => ['a', 'b', 'c'][i % 3]);
  for (const weights of ['random', 'identity']) {
    const args = { tokens, pe: 'sinusoidal', causal: true, dModel: 48, heads: 6, weights, seed: 9, returnAttention: false };
    const whole = dispatch(lab, { method: 'forward', args, select: { path: 'output', columns: [0, 1, 2, 3] } });
    const r = await splitForward(fakeCores(4), args, { path: 'output', columns: [0, 1, 2, 3] });
    assert.deepEqual(r.output.shape, [33, 4]);
    assert.deepEqual(bits(r.output.data), bits(whole.output.data), weights);
  }
});

test('splitForward keeps one call when the weights are asked for, or for one head', async () => {
  const log = [];
  const args = { text: '犬が猫を追いかけた', dModel: 8, heads: 2, pe: 'sinusoidal' }; // returnAttention defaults to true
  const r = await splitForward(fakeCores(2, log), args);
  assert.deepEqual(log.map((c) => c.method), ['forward']);
  assert.deepEqual(r.attention.shape, lab.forward(args).attention.shape);
  log.length = 0;
  await splitForward(fakeCores(2, log), { ...args, heads: 1, returnAttention: false });
  assert.deepEqual(log.map((c) => c.method), ['forward']);
});

test('splitForward fails with the error forward gives (the learned table past its rows)', async () => {
  const tokens = Array.from({ length: 20 }, () => '犬');
  const args = { tokens, pe: 'learned', maxPositions: 16, dModel: 24, heads: 6, weights: 'random', seed: 1, returnAttention: false };
  let single;
  try {
    lab.forward(args);
  } catch (e) {
    single = e;
  }
  assert.ok(single, 'forward throws');
  await assert.rejects(splitForward(fakeCores(3), args), (e) => e.code === single.code && e.message === single.message);
});

test('the core refuses bad shares and contexts with errors that say what is allowed', () => {
  const base = { text: '犬が猫を追いかけた', dModel: 8, heads: 4, pe: 'sinusoidal', returnAttention: false };
  for (const [from, to] of [[2, 2], [3, 1], [0, 5]]) {
    assert.throws(() => lab.forwardHeads({ ...base, headFrom: from, headTo: to }), (e) => e.code === 'bad_head_range' && /0\.\.4/.test(e.message));
  }
  assert.throws(() => lab.forwardHeads(base), (e) => e.code === 'bad_head_range' && /headFrom/.test(e.message));
  assert.throws(() => lab.forwardHeads({ ...base, headFrom: 0.5, headTo: 2 }), (e) => /headFrom/.test(e.message));
  assert.throws(() => lab.forwardCombine(base), (e) => e.code === 'bad_context');
  const s = lab.forward(base).output.shape[0];
  assert.throws(() => lab.forwardCombine({ ...base, context: { shape: [s, 7], data: new Float32Array(s * 7) } }), (e) => e.code === 'bad_context' && /× 8/.test(e.message));
  assert.throws(() => lab.forwardCombine({ ...base, context: { shape: [s, 8], data: new Float32Array(s * 8).fill(NaN) } }), (e) => e.code === 'non_finite_value');
  assert.equal(lab.forwardHeads({ ...base, headFrom: 3, headTo: 4 }).context.shape[1], 2);
});
