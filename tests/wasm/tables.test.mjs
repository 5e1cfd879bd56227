// Position tables through the wasm API, on files built here (table-files.mjs):
// the planted helix's figures against values worked out in this test, the
// same bytes through the native CLI, and every bad-input class as a coded
// error (never a crash).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadLab, cli } from './helpers.mjs';
import { A, C, helix, tableFile, safetensors, npy, f32, f16, reference, concat } from './table-files.mjs';
import { trainTable } from '../../web/js/core/table-read.js';

let lab;
before(async () => {
  lab = await loadLab();
});

// The page's steps (web/js/core/table-read.js) on bytes in memory.
function open(bytes, tensor) {
  const first = bytes.subarray(0, Math.min(bytes.length, lab.limits.npyPrefixBytes));
  const format = lab.tableFormat(first);
  let header = first;
  if (format === 'safetensors') {
    const n = lab.safetensorsHeaderLength({ bytes: first.subarray(0, 8), fileSize: bytes.length });
    header = bytes.subarray(8, 8 + n);
  }
  const args = { format, header, fileSize: bytes.length };
  if (tensor) args.tensor = tensor;
  const listing = lab.tableTensors(args);
  const t = listing.picked;
  if (format === 'safetensors') args.tensor = t.name;
  return { listing, summary: lab.tableAnalyze({ ...args, bytes: bytes.subarray(t.begin, t.end), maxHeatmapRows: 16, maxDistance: 8 }) };
}

function codeOf(f) {
  try {
    f();
  } catch (e) {
    return e.code;
  }
  return '(no error)';
}

function checkHelix(s, N, D, tol) {
  const ref = reference(helix(N, D), N, D);
  assert.deepEqual(s.shape, [N, D]);
  s.norms.forEach((v, p) => assert.ok(Math.abs(v - ref.norms[p]) < tol, `norm ${p}: ${v} vs ${ref.norms[p]}`));
  assert.equal(s.heatmapRows.length, 16);
  s.heatmapRows.forEach((r, i) => assert.equal(r, Math.round((i * (N - 1)) / 15)));
  for (let i = 0; i < 16; i++)
    for (let j = 0; j < 16; j++) assert.ok(Math.abs(s.similarity.data[i * 16 + j] - ref.cos(s.heatmapRows[i], s.heatmapRows[j])) < tol);
  assert.equal(s.neighbour.length, 8);
  s.neighbour.forEach((v, i) => assert.ok(Math.abs(v - ref.neighbour(i + 1)) < tol, `distance ${i + 1}`));
  const total = A * A + (C * C) / 2;
  assert.ok(Math.abs(s.pca.variance[0] - (A * A) / 2) < tol * 10);
  assert.ok(Math.abs(s.pca.variance[1] - (A * A) / 2) < tol * 10);
  assert.ok(Math.abs(s.pca.variance[2] - (C * C) / 2) < tol * 10);
  assert.ok(Math.abs(s.pca.explained[2] - (C * C) / 2 / total) < tol * 10);
  assert.equal(s.pca.converged, true);
  // The first two components trace the circle of radius A, 2π/N per position.
  const P = s.pca.projection.data;
  for (let p = 0; p < N; p++) {
    assert.ok(Math.abs(Math.hypot(P[p * 3], P[p * 3 + 1]) - A) < tol * 10, `radius at ${p}`);
    const q = (p + 1) % N;
    const turn = Math.atan2(P[p * 3] * P[q * 3 + 1] - P[p * 3 + 1] * P[q * 3], P[p * 3] * P[q * 3] + P[p * 3 + 1] * P[q * 3 + 1]);
    assert.ok(Math.abs(Math.abs(turn) - (2 * Math.PI) / N) < tol * 10, `turn at ${p}`);
  }
  // The table itself comes back for the wall: row 5, column 7.
  assert.ok(Math.abs(s.table.data[5 * D + 7] - (0.25 + A * Math.sin((2 * Math.PI * 5) / N))) < tol);
}

test('safetensors F32, F16, BF16 and npy v1/v2/v3: the planted helix\'s figures', () => {
  const N = 64;
  const D = 16;
  const v = helix(N, D);
  const r = open(tableFile(v, N, D));
  assert.equal(r.listing.picked.name, 'wpe.weight');
  assert.deepEqual(r.listing.tensors.map((t) => t.name).sort(), ['h.0.attn.bias', 'wpe.weight']);
  checkHelix(r.summary, N, D, 1e-5);
  checkHelix(open(tableFile(v, N, D, { dtype: 'F16', name: 'transformer.wpe.weight' })).summary, N, D, 2e-3);
  checkHelix(open(tableFile(v, N, D, { dtype: 'BF16', name: 'embeddings.position_embeddings.weight' })).summary, N, D, 2e-2);
  for (const version of [1, 2, 3]) checkHelix(open(npy('<f4', `(${N}, ${D})`, f32(v), { version })).summary, N, D, 1e-5);
  checkHelix(open(npy('<f2', `(${N}, ${D})`, f16(v))).summary, N, D, 2e-3);
});

test('the same file through the native CLI: same norms and variance explained', () => {
  const N = 64;
  const D = 16;
  const dir = mkdtempSync(path.join(tmpdir(), 'poslab-table-'));
  try {
    const bytes = tableFile(helix(N, D), N, D);
    const file = path.join(dir, 'm.safetensors');
    writeFileSync(file, bytes);
    const c = cli(['table', '--file', file, '--max-distance', '8']);
    assert.equal(c.status, 0, c.stderr);
    const w = open(bytes).summary;
    c.json.norms.forEach((v, i) => assert.ok(Math.abs(v - w.norms[i]) < 1e-6));
    c.json.pca.explained.forEach((v, i) => assert.ok(Math.abs(v - w.pca.explained[i]) < 1e-6));
    c.json.neighbour.forEach((n, i) => assert.ok(Math.abs(n.similarity - w.neighbour[i]) < 1e-6));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('sinusoidal at a shape and a table given as data: same figures as a file', () => {
  const N = 32;
  const D = 16;
  const v = helix(N, D);
  const s = lab.tableSummary({ rows: N, cols: D, data: new Float32Array(v), maxHeatmapRows: 16, maxDistance: 8 });
  const f = open(tableFile(v, N, D)).summary;
  assert.deepEqual(Array.from(s.norms), Array.from(f.norms));
  // Sinusoidal: every row has norm √(D/2) (sin² + cos² = 1 per pair).
  const sin = lab.tableSummary({ rows: 50, cols: 8, scheme: 'sinusoidal' });
  sin.norms.forEach((n) => assert.ok(Math.abs(n - 2) < 1e-5));
  // Neighbour similarity of sinusoidal at distance d: mean over pairs of cos(d·ω_i) (independent of p).
  const w = [0, 1, 2, 3].map((i) => Math.pow(10000, (-2 * i) / 8));
  sin.neighbour.slice(0, 5).forEach((v2, k) => {
    const d = k + 1;
    const expect = w.reduce((a, om) => a + Math.cos(d * om), 0) / 4;
    assert.ok(Math.abs(v2 - expect) < 1e-5, `distance ${d}`);
  });
});

test('the page\'s trained table: rows of trained positions grew, the rest kept their N(0, 0.02²) start', async () => {
  const r = await trainTable(lab);
  // The main thread's way (small chunks, pausing between them) trains the very same table.
  let pauses = 0;
  const paused = await trainTable(lab, {}, async () => {
    pauses++;
  });
  assert.equal(pauses, 40); // 200 steps in chunks of 5
  assert.deepEqual(Array.from(paused.summary.table.data), Array.from(r.summary.table.data));
  assert.deepEqual(r.summary.shape, [50, 32]);
  assert.equal(r.lastTrained, 16);
  const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;
  const trained = mean(r.summary.norms.slice(0, 17));
  const untouched = mean(r.summary.norms.slice(17));
  // An untouched row is 32 draws of N(0, 0.02²) scaled by the init: its norm is about 0.02·√32 ≈ 0.11.
  assert.ok(untouched < 0.2, `untouched rows: mean norm ${untouched}`);
  assert.ok(trained > 3 * untouched, `trained ${trained} vs untouched ${untouched}`);
});

test('positionTable: the learned table\'s shape; other schemes have none', () => {
  const run = new lab.ExtrapolationRun({ scheme: 'learned', seed: 1, steps: 30, trainMax: 4, testMax: 8 });
  run.step(30);
  const t = run.positionTable();
  run.delete();
  assert.deepEqual(t.shape, [18, 32]); // 2·testMax + 2 rows, dModel 32
  const s = lab.tableSummary({ rows: 18, cols: 32, data: t.data });
  assert.equal(s.norms.length, 18);
  const other = new lab.ExtrapolationRun({ scheme: 'rope', seed: 1, steps: 1 });
  assert.throws(() => other.positionTable(), (e) => e.code === 'no_position_table');
  other.delete();
});

test('every bad input is a coded error', () => {
  const good = tableFile(helix(8, 16), 8, 16);
  const hdr = (bytes) => lab.safetensorsHeaderLength({ bytes: bytes.subarray(0, 8), fileSize: bytes.length });
  assert.equal(codeOf(() => hdr(good.subarray(0, 5))), 'table_truncated');
  assert.equal(codeOf(() => open(good.subarray(0, good.length - 4))), 'table_offsets_out_of_range');
  const past = good.slice();
  past[3] = 0x7f;
  assert.equal(codeOf(() => open(past)), 'table_header_past_end');
  const huge = new Uint8Array(8);
  new DataView(huge.buffer).setBigUint64(0, BigInt(17 << 20), true);
  assert.equal(codeOf(() => lab.safetensorsHeaderLength({ bytes: huge, fileSize: 4 * 2 ** 30 })), 'table_header_too_large');
  assert.equal(codeOf(() => open(safetensors('{nope'))), 'table_header_not_json');
  assert.equal(codeOf(() => open(safetensors('['.repeat(100000) + ']'.repeat(100000)))), 'table_header_not_json');
  assert.equal(codeOf(() => open(safetensors({ w: { dtype: 'F32', shape: [1, 2], data_offsets: [0, 80] } }, new Uint8Array(8)))), 'table_offsets_out_of_range');
  assert.equal(codeOf(() => open(safetensors({ w: { dtype: 'F32', shape: [2], data_offsets: [0, 8] } }, new Uint8Array(8)), 'w')), 'table_not_2d');
  assert.equal(codeOf(() => open(safetensors({ w: { dtype: 'I32', shape: [1, 2], data_offsets: [0, 8] } }, new Uint8Array(8)))), 'table_unsupported_dtype');
  assert.equal(codeOf(() => open(good, 'nope')), 'table_no_tensor');
  const bad = Array.from(helix(8, 16));
  bad[3 * 16 + 1] = NaN;
  try {
    open(tableFile(bad, 8, 16));
    assert.fail('NaN accepted');
  } catch (e) {
    assert.equal(e.code, 'table_not_finite');
    assert.equal(e.params.row, '3');
    assert.equal(e.params.col, '1');
  }
  bad[3 * 16 + 1] = Infinity;
  assert.equal(codeOf(() => open(tableFile(bad, 8, 16))), 'table_not_finite');
  // An .npy header handed over as safetensors: said to be an .npy file.
  const asNpy = npy('<f4', '(8, 16)', f32(helix(8, 16)));
  assert.equal(codeOf(() => lab.safetensorsHeaderLength({ bytes: asNpy.subarray(0, 8), fileSize: asNpy.length })), 'table_npy_as_safetensors');
  assert.equal(codeOf(() => lab.tableTensors({ format: 'safetensors', header: asNpy.subarray(0, 80), fileSize: asNpy.length + 8 })), 'table_npy_as_safetensors');
  // Shape and offsets that disagree: a size mismatch, not a cut-off file.
  assert.equal(codeOf(() => open(safetensors({ w: { dtype: 'F32', shape: [1, 3], data_offsets: [0, 8] } }, new Uint8Array(8)))), 'table_size_mismatch');
  // A duplicated key in an .npy header.
  const head = new TextEncoder().encode("{'descr': '<f4', 'fortran_order': False, 'shape': (8, 16), 'shape': (4, 32)}".padEnd(117, ' ') + '\n');
  const dupe = concat(new Uint8Array([0x93, 78, 85, 77, 80, 89, 1, 0, head.length, 0]), head, f32(helix(8, 16)));
  assert.equal(codeOf(() => open(dupe)), 'table_npy_bad');
  // A 4 GB file: only the header is given; offsets beyond 2³² stay exact (wasm is 32-bit).
  const gap = 2 ** 32;
  const h = new TextEncoder().encode(JSON.stringify({ 'wpe.weight': { dtype: 'F32', shape: [1024, 768], data_offsets: [gap, gap + 1024 * 768 * 4] } }));
  const size = 8 + h.length + gap + 1024 * 768 * 4;
  const l = lab.tableTensors({ format: 'safetensors', header: h, fileSize: size });
  assert.equal(l.picked.begin, 8 + h.length + gap);
  assert.equal(l.picked.end, size);
  assert.equal(codeOf(() => lab.tableTensors({ format: 'safetensors', header: h, fileSize: size - 1 })), 'table_offsets_out_of_range');
  // Hostile options: wrong types, too-large tables.
  assert.equal(codeOf(() => lab.tableAnalyze({ format: 'safetensors', header: 'x', fileSize: 10, bytes: new Uint8Array(0) })), 'bad_option_type');
  assert.notEqual(codeOf(() => lab.tableSummary({ rows: 70000, cols: 768, scheme: 'sinusoidal' })), '(no error)');
  assert.equal(codeOf(() => lab.tableSummary({ rows: 65536, cols: 4096, scheme: 'sinusoidal' })), 'table_too_large');
  assert.equal(codeOf(() => lab.tableSummary({ rows: 8, cols: 4, data: new Float32Array(3) })), 'bad_option_type');
});

test('fortran order and big-endian .npy files are read as numpy reads them', () => {
  const N = 8;
  const D = 16;
  const v = helix(N, D);
  const plain = open(npy('<f4', `(${N}, ${D})`, f32(v))).summary;
  const cols = new Float32Array(N * D);
  for (let p = 0; p < N; p++) for (let c = 0; c < D; c++) cols[c * N + p] = v[p * D + c];
  const fortran = open(npy('<f4', `(${N}, ${D})`, new Uint8Array(cols.buffer), { fortran: true })).summary;
  assert.deepEqual(Array.from(fortran.table.data), Array.from(plain.table.data));
  const be = f32(v).slice();
  for (let i = 0; i < be.length; i += 4) be.subarray(i, i + 4).reverse();
  const big = open(npy('>f4', `(${N}, ${D})`, be)).summary;
  assert.deepEqual(Array.from(big.table.data), Array.from(plain.table.data));
});

test('values near ±3.4e38: every figure finite, the projection a Float64Array past float range', () => {
  const rows = 6;
  const cols = 3;
  const data = new Float32Array(rows * cols);
  for (let p = 0; p < rows; p++) for (let c = 0; c < cols; c++) data[p * cols + c] = (p + c) % 2 ? 3.4e38 : -3.4e38 * (c === 2 ? 0.5 : 1);
  const s = lab.tableSummary({ rows, cols, data });
  assert.ok(s.pca.projection.data instanceof Float64Array);
  assert.ok(Array.from(s.pca.projection.data).every(Number.isFinite));
  assert.ok(Array.from(s.pca.projection.data).some((x) => Math.abs(x) > 3.4028234663852886e38));
  assert.ok(s.norms.every(Number.isFinite) && s.neighbour.every(Number.isFinite) && s.pca.explained.every(Number.isFinite));
});

// The core's half of the page's 200,000-tensor test (tests/e2e/tables-limits,
// which runs under POSLAB_FULL_RUN=1 only): a header listing 200,000 tiny
// tensors and one position table is listed whole, the table is picked by its
// name, and its rows are read.
test('a safetensors header listing 200,001 tensors: every one listed, wpe.weight picked and read', () => {
  const rows = 64;
  const cols = 16;
  const entries = {};
  for (let i = 0; i < 200000; i++) entries[`layer.${i}.w`] = { dtype: 'F32', shape: [1, 1], data_offsets: [0, 4] };
  entries['wpe.weight'] = { dtype: 'F32', shape: [rows, cols], data_offsets: [4, 4 + rows * cols * 4] };
  const data = new Uint8Array(4 + rows * cols * 4);
  data.set(new Uint8Array(new Float32Array(rows * cols).map((_, i) => Math.sin(i / 7)).buffer), 4);
  const r = open(safetensors(entries, data));
  assert.equal(r.listing.tensors.length, 200001);
  const names = new Set(r.listing.tensors.map((t) => t.name));
  assert.ok(names.has('layer.0.w') && names.has('layer.199999.w') && names.has('wpe.weight'));
  assert.equal(r.listing.picked.name, 'wpe.weight');
  assert.deepEqual(r.summary.shape, [rows, cols]);
  // Row 0's norm, from the values written above (as float32).
  const row0 = Float32Array.from({ length: cols }, (_, i) => Math.sin(i / 7));
  assert.ok(Math.abs(r.summary.norms[0] - Math.hypot(...row0)) < 1e-4, `${r.summary.norms[0]}`);
});
