// The wasm build's optimised kernels (blocked SIMD128 matmul, vectorised
// softmax, fused per-head attention) against a straightforward reference
// written here in double precision, through lab.forward as the page calls it:
// awkward shapes (S=1, S=7, widths that are not a multiple of 4, H=1, H=D,
// S past the 64-row query block and the 256-long k slice), causal, RoPE and
// ALiBi, with and without the attention weights returned.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadLab } from './helpers.mjs';

let lab;
before(async () => {
  lab = await loadLab();
});

const RELATIVE = 1e-5;

// Deterministic values in [-1, 1) (mulberry32).
function randomMatrix(rows, cols, seed) {
  let a = seed >>> 0;
  const data = new Float32Array(rows * cols);
  for (let i = 0; i < data.length; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    data[i] = (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1;
  }
  return { shape: [rows, cols], data };
}

// ALiBi slopes by the paper's rule, written out independently of the core:
// 2^(-8h/n) for a power of two n; otherwise those of the nearest lower power
// of two, then every other slope of the next power of two.
function alibiSlopes(heads) {
  const powerOfTwo = (n) => Array.from({ length: n }, (_, i) => 2 ** ((-8 * (i + 1)) / n));
  const n = 2 ** Math.floor(Math.log2(heads));
  if (n === heads) return powerOfTwo(n);
  return powerOfTwo(n).concat(powerOfTwo(2 * n).filter((_, i) => i % 2 === 0).slice(0, heads - n));
}

function matmul(a, b, m, k, n) {
  const c = new Float64Array(m * n);
  for (let i = 0; i < m; i++)
    for (let p = 0; p < k; p++) {
      const aip = a[i * k + p];
      for (let j = 0; j < n; j++) c[i * n + j] += aip * b[p * n + j];
    }
  return c;
}

// softmax(QKᵀ/√d_head + bias)V per head, then the output projection, in double.
function referenceAttention(x, s, d, o, w) {
  const { heads, causal = false, pe = 'none', positionOffset = 0, base = 10000 } = o;
  const dh = d / heads;
  const q = w ? matmul(x, w.wq.data, s, d, d) : Float64Array.from(x);
  const k = w ? matmul(x, w.wk.data, s, d, d) : Float64Array.from(x);
  const v = w ? matmul(x, w.wv.data, s, d, d) : Float64Array.from(x);
  if (pe === 'rope') {
    for (const t of [q, k])
      for (let r = 0; r < s; r++)
        for (let h = 0; h < heads; h++)
          for (let i = 0; i < dh / 2; i++) {
            const angle = (positionOffset + r) * base ** ((-2 * i) / dh);
            const at = r * d + h * dh + 2 * i;
            const [a, b] = [t[at], t[at + 1]];
            t[at] = a * Math.cos(angle) - b * Math.sin(angle);
            t[at + 1] = a * Math.sin(angle) + b * Math.cos(angle);
          }
  }
  const slopes = pe === 'alibi' ? alibiSlopes(heads) : null;
  const weights = new Float64Array(heads * s * s);
  const context = new Float64Array(s * d);
  for (let h = 0; h < heads; h++)
    for (let i = 0; i < s; i++) {
      const last = causal ? i + 1 : s;
      const row = new Float64Array(last);
      let max = -Infinity;
      for (let j = 0; j < last; j++) {
        let dot = 0;
        for (let t = 0; t < dh; t++) dot += q[i * d + h * dh + t] * k[j * d + h * dh + t];
        row[j] = dot / Math.sqrt(dh) - (slopes ? slopes[h] * Math.abs(i - j) : 0);
        max = Math.max(max, row[j]);
      }
      let sum = 0;
      for (let j = 0; j < last; j++) sum += row[j] = Math.exp(row[j] - max);
      for (let j = 0; j < last; j++) {
        const p = row[j] / sum;
        weights[(h * s + i) * s + j] = p;
        for (let t = 0; t < dh; t++) context[i * d + h * dh + t] += p * v[j * d + h * dh + t];
      }
    }
  return { weights, output: w ? matmul(context, w.wo.data, s, d, d) : context };
}

function assertClose(got, want, tolerance, what) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) {
    const tol = tolerance(want[i]);
    if (!(Math.abs(got[i] - want[i]) <= tol))
      assert.fail(`${what}: [${i}] is ${got[i]}, reference ${want[i]} (allowed ±${tol})`);
  }
}

const maxAbs = (xs) => xs.reduce((m, v) => Math.max(m, Math.abs(v)), 0);

const shapes = [
  { s: 1, d: 8, heads: 2 },
  { s: 7, d: 10, heads: 5 }, // width not a multiple of 4, d_head 2
  { s: 7, d: 12, heads: 1 },
  { s: 7, d: 6, heads: 6 }, // H = D: d_head 1
  { s: 33, d: 12, heads: 6 },
  { s: 70, d: 24, heads: 4 }, // past a 64-row query block
  { s: 300, d: 20, heads: 2 }, // weights·V over k = 300 > 256, projections over m = 300 > 128
];

for (const { s, d, heads } of shapes) {
  for (const pe of ['none', 'rope', 'alibi', 'sinusoidal']) {
    for (const causal of [false, true]) {
      if (pe === 'rope' && (d / heads) % 2 !== 0) continue; // RoPE needs an even d_head
      if ((pe === 'sinusoidal') && d % 2 !== 0) continue;
      const name = `S=${s} D=${d} H=${heads} pe=${pe}${causal ? ' causal' : ''}`;
      test(`forward matches the reference: ${name}`, () => {
        const seed = s * 1000 + d * 10 + heads;
        const options = { vectors: randomMatrix(s, d, seed), weights: 'random', seed, heads, pe, causal,
          positionOffset: pe === 'rope' ? 5 : 0 };
        const r = lab.forward(options);
        // Position vectors (sinusoidal) are added before attention: the reference starts from hidden.
        const ref = referenceAttention(r.hidden.data, s, d, options, lab.attentionWeights({ dModel: d, seed }));
        const scale = maxAbs(ref.output);
        assertClose(r.output.data, ref.output, () => RELATIVE * scale, `${name} output`);
        assert.deepEqual(r.attention.shape, [heads, s, s]);
        assertClose(r.attention.data, ref.weights, (want) => RELATIVE * want + 1e-9, `${name} weights`);
        for (let h = 0; h < heads; h++)
          for (let i = 0; i < s; i++) {
            let sum = 0;
            for (let j = 0; j < s; j++) {
              const wij = r.attention.data[(h * s + i) * s + j];
              if (causal && j > i) assert.equal(wij, 0, `${name}: weight (${h},${i},${j}) above the diagonal`);
              sum += wij;
            }
            assert.ok(Math.abs(sum - 1) <= 1e-5, `${name}: row (${h},${i}) sums to ${sum}`);
          }
        // The fused path (no [S,S] weights kept) gives the same output.
        const fused = lab.forward({ ...options, returnAttention: false });
        assert.equal(fused.attention, null);
        assertClose(fused.output.data, ref.output, () => RELATIVE * scale, `${name} output without weights`);
      });
    }
  }
}

test('identity weights: softmax(XXᵀ/√d_head)X per head, no projections', () => {
  for (const { s, d, heads } of [{ s: 7, d: 10, heads: 1 }, { s: 65, d: 12, heads: 3 }]) {
    for (const causal of [false, true]) {
      const options = { vectors: randomMatrix(s, d, s + d), weights: 'identity', heads, causal };
      const r = lab.forward(options);
      const ref = referenceAttention(options.vectors.data, s, d, options, null);
      const scale = maxAbs(ref.output);
      assertClose(r.output.data, ref.output, () => RELATIVE * scale, `S=${s} identity output`);
      assertClose(r.attention.data, ref.weights, (want) => RELATIVE * want + 1e-9, `S=${s} identity weights`);
    }
  }
});

test('one row: its only weight is 1 and the output is x·W^V·W^O', () => {
  const d = 9;
  const options = { vectors: randomMatrix(1, d, 5), weights: 'random', seed: 11, heads: 3 };
  const r = lab.forward(options);
  assert.deepEqual(Array.from(r.attention.data), [1, 1, 1]);
  const w = lab.attentionWeights({ dModel: d, seed: 11 });
  const want = matmul(matmul(options.vectors.data, w.wv.data, 1, d, d), w.wo.data, 1, d, d);
  const scale = maxAbs(want);
  assertClose(r.output.data, want, () => RELATIVE * scale, 'S=1 output');
});

test('GPT-2-small width at S=130: fused output equals the reference', () => {
  const s = 130, d = 768, heads = 12, seed = 21;
  const options = { vectors: randomMatrix(s, d, 3), weights: 'random', seed, heads, returnAttention: false };
  const r = lab.forward(options);
  const ref = referenceAttention(options.vectors.data, s, d, { heads }, lab.attentionWeights({ dModel: d, seed }));
  const scale = maxAbs(ref.output);
  assertClose(r.output.data, ref.output, () => RELATIVE * scale, 'S=130 D=768 output');
});

test('attentionWeights: the draw forward uses, and its errors', () => {
  const w = lab.attentionWeights({ dModel: 4, seed: 2 });
  for (const key of ['wq', 'wk', 'wv', 'wo']) assert.deepEqual(w[key].shape, [4, 4]);
  assert.notDeepEqual(Array.from(w.wq.data), Array.from(w.wk.data));
  assert.throws(() => lab.attentionWeights({ dModel: 0 }), /dModel must be from 1 to 4096, got 0/);
  assert.throws(() => lab.attentionWeights({}), /attentionWeights needs dModel/);
  assert.throws(() => lab.attentionWeights({ dModel: 4, size: 3 }), /unknown option 'size'/);
  assert.ok(lab.wasmMemoryBytes() >= 16 * 2 ** 20 && lab.wasmMemoryBytes() % 65536 === 0);
});
