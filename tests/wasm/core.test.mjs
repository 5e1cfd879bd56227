// The wasm module against the native CLI (same core, two compilers) and
// against the formulas: same numbers within 1e-5, same error messages, no
// leaked Embind handles.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadLab, cli, flatten, maxAbsDiff } from './helpers.mjs';

let lab;
before(async () => {
  lab = await loadLab();
});

// camelCase options → the CLI's flags.
function cliArgs(o) {
  const a = ['forward'];
  if (o.text !== undefined) a.push('--text', o.text);
  if (o.vectors !== undefined) a.push('--vectors', JSON.stringify(o.vectors));
  const flags = { pe: '--pe', dModel: '--d-model', heads: '--heads', weights: '--weights', seed: '--seed',
    maxPositions: '--max-positions', base: '--base', combine: '--combine', positionOffset: '--position-offset' };
  for (const [k, f] of Object.entries(flags)) if (o[k] !== undefined) a.push(f, String(o[k]));
  if (o.causal) a.push('--causal');
  return a;
}

const cases = [];
for (const text of ['犬が猫を追いかけた', 'The keys on the table are lost.']) {
  for (const pe of ['none', 'sinusoidal', 'learned', 'rope', 'alibi']) {
    for (const causal of [false, true]) {
      cases.push({ text, pe, causal, dModel: 8, heads: 2, seed: 3 });
    }
  }
}
cases.push({ text: '犬が猫を追いかけた', pe: 'sinusoidal', combine: 'concat', dModel: 6, heads: 3 });
cases.push({ text: '犬が猫を追いかけた', pe: 'learned', combine: 'concat', dModel: 4, heads: 1, seed: 9 });
cases.push({ text: '鳥が魚を見た', pe: 'rope', dModel: 16, heads: 4, base: 500, positionOffset: 100 });
cases.push({ text: '犬が猫を追いかけた', pe: 'learned', dModel: 768, heads: 12, positionOffset: 1018 });
cases.push({ text: 'a b c d e', pe: 'alibi', dModel: 12, heads: 12, weights: 'identity' });
cases.push({ vectors: [[1, 0], [0, 1]], weights: 'identity', heads: 1 });
cases.push({ vectors: [[0.5, -1, 2], [3, 0.25, -0.75], [1, 1, 1], [-2, 0, 0.5]], heads: 3, seed: 77, causal: true });

test('forward gives the CLI\'s numbers for a spread of options', () => {
  for (const o of cases) {
    const want = cli(cliArgs(o));
    assert.equal(want.status, 0, `CLI failed for ${JSON.stringify(o)}: ${want.stderr}`);
    const got = lab.forward(o);
    assert.deepEqual(got.tokens, want.json.tokens);
    for (const field of ['input', 'positional', 'hidden', 'attention', 'output', 'outputMean']) {
      const w = flatten(want.json[field]);
      assert.equal(got[field].data.length, w.length, `${field} size for ${JSON.stringify(o)}`);
      const d = maxAbsDiff(got[field].data, w);
      assert.ok(d <= 1e-5, `${field} differs by ${d} for ${JSON.stringify(o)}`);
    }
    assert.equal(got.output.shape.length, 2);
    assert.equal(got.attention.shape.length, 3);
  }
});

test('the hand calculation: (0.670, 0.330) in both orders', () => {
  const w = Math.exp(Math.SQRT1_2) / (Math.exp(Math.SQRT1_2) + 1);
  const a = lab.forward({ vectors: [[1, 0], [0, 1]], weights: 'identity', heads: 1 });
  const b = lab.forward({ vectors: [[0, 1], [1, 0]], weights: 'identity', heads: 1 });
  assert.ok(Math.abs(a.output.data[0] - w) < 1e-6 && Math.abs(a.output.data[1] - (1 - w)) < 1e-6);
  assert.ok(Math.abs(b.output.data[2] - w) < 1e-6 && Math.abs(b.output.data[3] - (1 - w)) < 1e-6);
  assert.deepEqual(a.attention.shape, [1, 2, 2]);
});

test('encoding, tokenize and the experiments agree with the CLI and the formulas', () => {
  const enc = lab.encoding({ scheme: 'sinusoidal', length: 5, dModel: 6, positionOffset: 1021 });
  const encCli = cli(['encoding', '--length', '5', '--d-model', '6', '--position-offset', '1021']);
  assert.ok(maxAbsDiff(enc.encoding.data, flatten(encCli.json.encoding)) < 1e-6);
  assert.ok(Math.abs(enc.encoding.data[0] - Math.sin(1021)) < 1e-5);
  const learned = lab.encoding({ scheme: 'learned', length: 3, dModel: 4, seed: 5 });
  assert.ok(maxAbsDiff(learned.encoding.data,
    flatten(cli(['encoding', '--scheme', 'learned', '--length', '3', '--d-model', '4', '--seed', '5']).json.encoding)) < 1e-7);

  assert.deepEqual(lab.tokenize('犬が猫を追いかけた'), ['犬', 'が', '猫', 'を', '追いかけ', 'た']);
  assert.deepEqual(lab.tokenize('The keys on the table are lost.'),
    ['the', 'keys', 'on', 'the', 'table', 'are', 'lost', '.']);

  const perm = lab.permutationCheck({ text: '犬が猫を追いかけた', permutation: [2, 1, 0, 3, 4, 5] });
  assert.ok(perm.maxAbsDiff < 1e-5);
  assert.deepEqual(perm.permuted.tokens, ['猫', 'が', '犬', 'を', '追いかけ', 'た']);
  const permPe = lab.permutationCheck({ text: '犬が猫を追いかけた', pe: 'sinusoidal', permutation: [2, 1, 0, 3, 4, 5] });
  const permCli = cli(['permutation-check', '--text', '犬が猫を追いかけた', '--pe', 'sinusoidal', '--permutation', '2,1,0,3,4,5']);
  assert.ok(Math.abs(permPe.maxAbsDiff - permCli.json.maxAbsDiff) < 1e-5);
  assert.ok(permPe.maxAbsDiff > 1e-3);

  const rope = lab.ropeCheck({ m: 7, n: 3, shift: 100, dHead: 8, seed: 2 });
  const ropeCli = cli(['rope-check', '--m', '7', '--n', '3', '--shift', '100', '--d-head', '8', '--seed', '2']);
  assert.ok(Math.abs(rope.score - ropeCli.json.score) < 1e-5);
  assert.ok(rope.diff < 1e-4);
  assert.ok(maxAbsDiff(rope.q, ropeCli.json.q) < 1e-7);

  const m = lab.shiftMatrix({ shift: 1, dModel: 2 }).matrix;
  assert.deepEqual(m.shape, [2, 2]);
  assert.ok(maxAbsDiff(m.data, [Math.cos(1), Math.sin(1), -Math.sin(1), Math.cos(1)]) < 1e-7);

  const sim = lab.similarity({ scheme: 'sinusoidal', length: 4, dModel: 8 }).similarity;
  assert.ok(Math.abs(sim.data[0] - 4) < 1e-5);

  assert.deepEqual(lab.alibiSlopes(8), [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256]);
  const bias = lab.alibiBias({ length: 3, heads: 2 });
  assert.deepEqual(bias.bias.shape, [2, 3, 3]);
  assert.ok(maxAbsDiff(bias.bias.data.slice(0, 3), [0, -1 / 16, -2 / 16]) === 0);
  assert.deepEqual(bias.slopes, [1 / 16, 1 / 256]);
  const wl = lab.encoding({ length: 1, dModel: 4 }).wavelengths;
  assert.ok(maxAbsDiff(wl.data, [2 * Math.PI, 200 * Math.PI]) < 1e-3);
  const rotated = lab.ropeRotate({ vector: [1, 0], position: 2 });
  assert.ok(maxAbsDiff(rotated, [Math.cos(2), Math.sin(2)]) < 1e-6);
});

test('attentionSteps: the hand calculation and its usual mistakes, as the CLI computes them', () => {
  const o = { vectors: [[1, 0], [0, 1]], weights: 'identity', heads: 1 };
  const s = lab.attentionSteps(o);
  assert.deepEqual(Array.from(s.dots.data), [1, 0, 0, 1]);
  assert.ok(Math.abs(s.scores.data[0] - Math.SQRT1_2) < 1e-7);
  assert.ok(maxAbsDiff(s.weights.data, s.attention.data) < 1e-7);
  const none = lab.attentionSteps({ ...o, scale: 'none' }).weights.data[0];
  const dk = lab.attentionSteps({ ...o, scale: 'dk' }).weights.data[0];
  assert.ok(Math.abs(none - Math.E / (Math.E + 1)) < 1e-6);         // 0.731
  assert.ok(Math.abs(dk - Math.exp(0.5) / (Math.exp(0.5) + 1)) < 1e-6);  // 0.622
  const viaCli = cli(['attention-steps', '--text', '犬が猫を追いかけた', '--pe', 'rope', '--heads', '2', '--causal', '--scale', 'dk']);
  const viaWasm = lab.attentionSteps({ text: '犬が猫を追いかけた', pe: 'rope', heads: 2, causal: true, scale: 'dk' });
  assert.ok(maxAbsDiff(viaWasm.weights.data, flatten(viaCli.json.weights)) < 1e-5);
  assert.ok(maxAbsDiff(viaWasm.stepOutput.data, flatten(viaCli.json.stepOutput)) < 1e-5);
  assert.equal(viaWasm.scores.data[1], -Infinity);
  assert.throws(() => lab.attentionSteps({ ...o, scale: 'sqrt' }), /allowed: sqrt_dk, none, dk/);
});

test('a Matrix input gives the same result as nested arrays', () => {
  const rows = [[0.5, -1, 2, 0], [3, 0.25, -0.75, 1], [1, 1, 1, -1]];
  const a = lab.forward({ vectors: rows, heads: 2, pe: 'rope' });
  const b = lab.forward({ vectors: { shape: [3, 4], data: new Float32Array(rows.flat()) }, heads: 2, pe: 'rope' });
  assert.deepEqual(Array.from(a.output.data), Array.from(b.output.data));
  assert.throws(() => lab.forward({ vectors: { shape: [3, 5], data: new Float32Array(12) } }), /shape asks for 15/);
});

test('errors arrive as Error with the CLI\'s message, code and params', () => {
  const bad = [
    [{ text: '犬が猫を追いかけた', pe: 'learned', positionOffset: 1020 }, 'position_past_table'],
    [{ text: '' }, 'empty_text'],
    [{ text: '犬', pe: 'sinusoidal', dModel: 7 }, 'odd_width'],
    [{ text: '犬', heads: 3 }, 'heads_not_dividing'],
    [{ text: '犬', pe: 'absolute' }, 'unknown_scheme'],
    [{ text: '犬', weights: 'xavier' }, 'unknown_weights'],
    [{ vectors: [[1, 0], [1]] }, 'ragged_vectors'],
    [{ vectors: [] }, 'empty_vectors'],
    [{ text: 'a '.repeat(4097) }, 'too_many_tokens'],
    [{ text: '犬', dModel: 0 }, 'out_of_range_option'],
  ];
  for (const [o, code] of bad) {
    const want = cli(cliArgs(o));
    assert.equal(want.status, 2, JSON.stringify(o));
    let caught;
    try {
      lab.forward(o);
    } catch (e) {
      caught = e;
    }
    assert.ok(caught instanceof Error, `no Error for ${JSON.stringify(o).slice(0, 80)}`);
    assert.equal(caught.code, code);
    assert.equal('poslab: ' + caught.message, want.stderr);
  }
  // The wall's params name the position and the table size, for the page's own words.
  try {
    lab.forward({ text: '犬が猫を追いかけた', pe: 'learned', positionOffset: 1020 });
  } catch (e) {
    assert.deepEqual({ position: e.params.position, max: e.params.max_positions }, { position: '1024', max: '1024' });
  }
});

test('JS-side mistakes get clear errors too', () => {
  assert.throws(() => lab.forward(), /takes an options object, got nothing/);
  assert.throws(() => lab.forward('犬'), /takes an options object/);
  assert.throws(() => lab.forward({ text: '犬', dmodel: 8 }), /unknown option 'dmodel' for forward; allowed: .*dModel/);
  assert.throws(() => lab.forward({ text: '犬', dModel: '8' }), /dModel must be a whole number .*got the string "8"/);
  assert.throws(() => lab.forward({ text: '犬', dModel: 2.5 }), /dModel must be a whole number .*got the number 2.5/);
  assert.throws(() => lab.forward({ text: '犬', seed: -1 }), /seed must be a whole number from 0 to 4294967295/);
  // size_t is 32 bits in wasm: 2^32 + 8 must be refused, not wrapped to 8.
  assert.throws(() => lab.forward({ text: '犬', dModel: 2 ** 32 + 8 }), /dModel must be a whole number .*got the number 4294967304/);
  assert.throws(() => lab.forward({ text: '犬', causal: 1 }), /causal must be true or false/);
  assert.throws(() => lab.forward({ text: 42 }), /text must be a string, got the number 42/);
  assert.throws(() => lab.forward({ vectors: [[1, '2']] }), /vectors\[0\]\[1\] must be a number, got the string "2"/);
  assert.throws(() => lab.forward({ vectors: [[1, NaN]] }), /vectors\[0\]\[1\] is NaN/);
  assert.throws(() => lab.forward({ text: '犬', tokens: ['犬'] }), /only one of text, tokens and vectors/);
  assert.throws(() => lab.tokenize(5), /tokenize takes a string/);
  assert.throws(() => lab.permutationCheck({ text: '犬が猫', permutation: [0, 0, 1] }), /give each of 0 to 2 once/);
  assert.throws(() => lab.alibiSlopes(0), /heads must be at least 1/);
});

// Worked out by hand: the words a reader draws, spaces dropped, punctuation a
// token, case folded. The wasm core splits with the JS engine's ICU
// (Intl.Segmenter), the native CLI with libicu; both then run the same post-pass.
const SENTENCES = {
  '犬が猫を追いかけた': ['犬', 'が', '猫', 'を', '追いかけ', 'た'],
  '猫が犬を追いかけた': ['猫', 'が', '犬', 'を', '追いかけ', 'た'],
  '東京で寿司を食べた': ['東京', 'で', '寿司', 'を', '食べ', 'た'],
  'トランスフォーマーは位置を知らない': ['トランスフォーマー', 'は', '位置', 'を', '知ら', 'ない'],
  '位置を知らないトランスフォーマー': ['位置', 'を', '知ら', 'ない', 'トランスフォーマー'],
  'The dog chased the cat.': ['the', 'dog', 'chased', 'the', 'cat', '.'],
  '私はGPT-4で東京の寿司を食べた。': ['私', 'は', 'gpt', '-', '4', 'で', '東京', 'の', '寿司', 'を', '食べ', 'た', '。'],
  '  Hello,\tWORLD!\n': ['hello', ',', 'world', '!'],
  'I live in Tokyo': ['i', 'live', 'in', 'tokyo'],
  '猫は寿司を食べました': ['猫', 'は', '寿司', 'を', '食べ', 'ました'],
  '雨が降っている': ['雨', 'が', '降っ', 'て', 'いる'],
  // 見|ま|した: the hiragana after 見 is the auxiliary whole, so 見 stands alone (not 見まし|た).
  '犬を見ました': ['犬', 'を', '見', 'ました'],
};

test('tokenize: words, not characters, the same in wasm (Intl.Segmenter) and natively (libicu)', () => {
  for (const [text, want] of Object.entries(SENTENCES)) {
    assert.deepEqual(lab.tokenize(text), want, text);
    assert.deepEqual(cli(['tokenize', '--text', text]).json.tokens, want, `CLI: ${text}`);
  }
});

test('tokenize: the wasm core segments with the JS engine\'s Intl.Segmenter', () => {
  const real = Intl.Segmenter;
  try {
    // A stand-in that cuts every character: the core must use what it returns.
    Intl.Segmenter = class {
      segment(s) {
        return Array.from(s, (segment) => ({ segment }));
      }
    };
    assert.deepEqual(lab.tokenize('東京 A'), ['東', '京', 'a']);
    delete Intl.Segmenter;
    assert.throws(() => lab.tokenize('東京'), (e) => e.code === 'no_segmenter' && /Intl\.Segmenter/.test(e.message));
  } finally {
    Intl.Segmenter = real;
  }
  assert.deepEqual(lab.tokenize('東京'), ['東京']);
});

test('no Embind handles leak, on success or on error', () => {
  const before = lab.count_emval_handles();
  for (let i = 0; i < 50; i++) {
    lab.forward({ text: '犬が猫を追いかけた', pe: 'rope', heads: 2 });
    lab.permutationCheck({ text: '犬が猫', permutation: [1, 0, 2] });
    try { lab.forward({ text: '犬', pe: 'bogus' }); } catch { /* expected */ }
    try { lab.forward({ vectors: [[1, 'x']] }); } catch { /* expected */ }
    try { lab.forward({ text: '犬', nope: 1 }); } catch { /* expected */ }
  }
  assert.equal(lab.count_emval_handles(), before);
});

test('results stay valid after wasm memory grows', () => {
  const small = lab.forward({ text: '犬が猫を追いかけた', pe: 'sinusoidal' });
  const copy = Array.from(small.output.data);
  const heapBefore = lab.HEAP8.length;
  // S=2048, D=768: forces memory growth, which detaches views into the old heap.
  const big = lab.forward({ vectors: { shape: [2048, 768], data: new Float32Array(2048 * 768).fill(0.01) },
    heads: 12, returnAttention: false });
  assert.deepEqual(big.output.shape, [2048, 768]);
  assert.equal(big.attention, null);
  assert.ok(lab.HEAP8.length > heapBefore, 'memory did not grow; the test would prove nothing');
  assert.deepEqual(Array.from(small.output.data), copy);
});

test('only own option keys are read, never inherited ones', () => {
  // A polluted prototype (or Object.create) must not switch the mask on.
  const inherited = Object.assign(Object.create({ causal: true, pe: 'rope' }), { text: '犬が猫' });
  const r = lab.forward(inherited);
  const plain = lab.forward({ text: '犬が猫' });
  assert.ok(r.attention.data[1] > 0, 'token 1 still sees token 2: causal was not read from the prototype');
  assert.deepEqual(Array.from(r.output.data), Array.from(plain.output.data));
  Object.prototype.causal = true;
  try {
    assert.ok(lab.forward({ text: '犬が猫' }).attention.data[1] > 0);
  } finally {
    delete Object.prototype.causal;
  }
});

test('version and limits', () => {
  assert.match(lab.version, /^\d+\.\d+\.\d+$/);
  assert.equal(lab.limits.maxTokens, 4096);
  assert.ok(lab.limits.maxPosition >= 2048);
});

test('superposition (callCore): the same numbers as the native core asks of them — spread ≈ 1/√D, deterministic per seed, limits refused', () => {
  const args = { dims: [16, 256], vocab: 64, positions: 16, trials: 100, pairs: 4000, bins: 20, seed: 5 };
  const a = lab.callCore({ call: 'superposition', args });
  const b = lab.callCore({ call: 'superposition', args });
  assert.deepEqual(a, b);
  for (const r of a.rows) {
    assert.equal(r.histogram.reduce((x, y) => x + y, 0), 4000);
    assert.ok(Math.abs(r.cosineStd - 1 / Math.sqrt(r.dModel)) < 0.05 / Math.sqrt(r.dModel));
  }
  assert.equal(a.rows[1].tokenRecovery, 1);
  assert.throws(() => lab.callCore({ call: 'superposition', args: { dims: [4096] } }), (e) => e.code === 'out_of_range_option');
});
