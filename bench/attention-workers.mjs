// `npm run bench` (after bench/run.mjs): attention at GPT-2 small's shape
// (D = 768, H = 12, random weights, returnAttention false, as the wall runs
// it) in headless Chromium, spread over Web Workers by heads with the page's
// own code (web/js/core/attention-split.js), side by side in one run:
//   S = 2048 (and S = 1024): one Worker vs two (target ≥ 1.7×)
//   S = 1024, one Worker: GFLOP/s and its share of the 128-bit SIMD ceiling
//     (vector FP operations issued per cycle × 4 lanes × clock; the processor
//     and the ceiling assumed are printed; target ≥ 35 GFLOP/s)
// Runs are interleaved (1 Worker, 2 Workers, 1, 2, …) so that a busy
// neighbour slows both columns alike; medians and ratios. Every split
// result is checked against the one-Worker result bit for bit (the bench
// fails only if they differ). A benchmark, never a test.
//
// Environment: POSLAB_BENCH_RUNS (default 5), POSLAB_WORKERS_SIZES (default
// 1024,2048), POSLAB_WASM (default build/wasm/poslab.js), CHROMIUM,
// POSLAB_VECTOR_OPS_PER_CYCLE / POSLAB_CLOCK_GHZ (override the ceiling's
// assumptions). Writes bench/results/attention-workers.json.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { simdCeiling } from './ceiling.mjs';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const wasmPath = process.env.POSLAB_WASM || path.join(root, 'build/wasm/poslab.js');
const RUNS = Number(process.env.POSLAB_BENCH_RUNS || 5);
const SIZES = (process.env.POSLAB_WORKERS_SIZES || '1024,2048').split(',').map(Number);
const D = 768;
const H = 12;
const log = (msg) => process.stderr.write(`bench attention-workers: ${msg}\n`);
const flop = (s, d) => 8 * s * d * d + 4 * s * s * d;
const median = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  const n = v.length;
  return n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
};


// ---- The page: Workers made from the single-file module (its wasm inlined)
// plus a few lines that answer { id, method, args } with lab[method](args).

const WORKER_TAIL = `
const labReady = createPositionLab();
onmessage = async (event) => {
  const { id, method, args, select } = event.data;
  try {
    const lab = await labReady;
    let result = lab[method](args);
    if (select) {
      const m = result[select.path];
      const [rows, cols] = m.shape;
      const data = new Float32Array(rows * select.columns.length);
      for (let r = 0; r < rows; r++) select.columns.forEach((c, j) => { data[r * select.columns.length + j] = m.data[r * cols + c]; });
      result = { ...result, [select.path]: { shape: [rows, select.columns.length], data } };
    }
    postMessage({ id, ok: true, result });
  } catch (e) {
    postMessage({ id, ok: false, message: String(e && e.message), code: e && e.code });
  }
};`;

function startServer() {
  const files = {
    '/poslab.js': [wasmPath, 'text/javascript'],
    '/attention-split.js': [path.join(root, 'web/js/core/attention-split.js'), 'text/javascript'],
    // attention-split.js imports the Worker-count rule from its neighbour.
    '/run-pool.js': [path.join(root, 'web/js/core/run-pool.js'), 'text/javascript'],
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><meta charset="utf-8"><title>Position Lab bench: Workers</title>');
    } else if (files[url.pathname]) {
      res.writeHead(200, { 'content-type': files[url.pathname][1] });
      fs.createReadStream(files[url.pathname][0]).pipe(res);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// In the page: two Workers, and run(s, n) timing one splitForward over the
// first n of them (n = 1: one forward call in one Worker).
async function pageSetup(tail) {
  const { splitForward } = await import('/attention-split.js');
  const source = await (await fetch('/poslab.js')).text();
  const url = URL.createObjectURL(new Blob([source, tail], { type: 'text/javascript' }));
  const cores = [0, 1].map(() => {
    const worker = new Worker(url);
    let next = 1;
    const pending = new Map();
    worker.onmessage = (e) => {
      const p = pending.get(e.data.id);
      pending.delete(e.data.id);
      e.data.ok ? p.resolve(e.data.result) : p.reject(Object.assign(new Error(e.data.message), { code: e.data.code }));
    };
    return {
      call: (method, args, select) =>
        new Promise((resolve, reject) => {
          const id = next++;
          pending.set(id, { resolve, reject });
          worker.postMessage({ id, method, args, select });
        }),
    };
  });
  const words = ['犬', 'が', '猫', 'を', '追いかけ', 'た'];
  const argsFor = (s) => ({ tokens: Array.from({ length: s }, (_, i) => words[i % words.length]), pe: 'sinusoidal', dModel: 768, heads: 12, weights: 'random', seed: 7, returnAttention: false });
  const last = {};
  window.benchWorkers = {
    async run(s, n) {
      const t0 = performance.now();
      const r = await splitForward(cores.slice(0, n), argsFor(s));
      const ms = performance.now() - t0;
      last[n] = r.output.data;
      return ms;
    },
    // Do the two results (one Worker, two) have the same bits?
    same() {
      const a = new Uint32Array(last[1].buffer), b = new Uint32Array(last[2].buffer);
      return a.length === b.length && a.every((x, i) => x === b[i]);
    },
  };
  // Both Workers' modules loaded and warm (V8 tiers hot wasm up in the background).
  await Promise.all(cores.map((c) => c.call('forward', argsFor(256))));
  const t0 = performance.now();
  while (performance.now() - t0 < 2000) await Promise.all(cores.map((c) => c.call('forward', argsFor(256))));
  return navigator.userAgent;
}

async function main() {
  const loadBefore = os.loadavg()[0];
  if (!fs.existsSync(wasmPath)) throw new Error(`${wasmPath} not found: run npm run build first`);
  const { chromium } = require('playwright-core');
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'poslab-bench-workers-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const server = await startServer();
  const rows = [];
  let mismatch = false;
  let agent = '';
  try {
    const page = context.pages()[0] || (await context.newPage());
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    log('starting two Workers and warming them up');
    agent = await page.evaluate(`(${pageSetup})(${JSON.stringify(WORKER_TAIL)})`);
    for (const s of SIZES) {
      const one = [], two = [];
      for (let r = 0; r < RUNS; r++) {
        log(`S=${s}: run ${r + 1} of ${RUNS}`);
        one.push(await page.evaluate(`benchWorkers.run(${s}, 1)`));
        two.push(await page.evaluate(`benchWorkers.run(${s}, 2)`));
      }
      const same = await page.evaluate('benchWorkers.same()');
      if (!same) {
        mismatch = true;
        log(`S=${s}: two Workers' output differs from one Worker's`);
      }
      rows.push({ S: s, one_ms: median(one), two_ms: median(two), speedup: median(one) / median(two), same_bits: same, runs_one_ms: one, runs_two_ms: two });
    }
  } finally {
    await context.close();
    server.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }

  const ceiling = simdCeiling();
  const chromiumVersion = (agent.match(/Chrome\/([\d.]+)/) || [null, '?'])[1];
  const lines = [];
  lines.push(`Attention across Web Workers (heads split, web/js/core/attention-split.js), headless Chromium ${chromiumVersion}, D=${D}, H=${H}, sinusoidal, random weights; median of ${RUNS} interleaved runs`);
  lines.push(`${ceiling.cpu}, ${os.cpus().length} CPUs; load average ${loadBefore.toFixed(1)} at the start, ${os.loadavg()[0].toFixed(1)} at the end (figures are indicative on a loaded machine)`);
  lines.push('');
  lines.push('S'.padEnd(8) + '1 Worker ms'.padStart(14) + '2 Workers ms'.padStart(15) + 'speed-up'.padStart(11) + '   target   same bits');
  for (const r of rows) lines.push(String(r.S).padEnd(8) + r.one_ms.toFixed(0).padStart(14) + r.two_ms.toFixed(0).padStart(15) + `${r.speedup.toFixed(2)}×`.padStart(11) + `   ${r.S === 2048 ? '≥ 1.70×' : '       '}   ${r.same_bits ? 'yes' : 'NO'}`);
  const single = rows.find((r) => r.S === 1024);
  if (single) {
    const gflops = flop(1024, D) / (single.one_ms * 1e6);
    lines.push('');
    lines.push(`single thread (one Worker), S=1024: ${single.one_ms.toFixed(0)} ms, ${gflops.toFixed(1)} GFLOP/s (FLOP = 8·S·D² + 4·S²·D = ${(flop(1024, D) / 1e9).toFixed(2)} G); target ≥ 35 GFLOP/s`);
    lines.push(`  = ${((100 * gflops) / ceiling.gflops).toFixed(1)} % of the 128-bit SIMD ceiling assumed: ${ceiling.opsPerCycle} vector FP ops/cycle (${ceiling.vendor}) × ${ceiling.lanes} lanes × ${ceiling.ghz.toFixed(2)} GHz (${ceiling.clockFrom}) = ${ceiling.gflops.toFixed(1)} GFLOP/s`);
    single.gflops = gflops;
    single.share_of_ceiling = gflops / ceiling.gflops;
  }
  const table = lines.join('\n');
  console.log(table);
  const report = { date: new Date().toISOString(), machine: { cpu: ceiling.cpu, cpus: os.cpus().length, chromium: chromiumVersion, load_average_start: loadBefore, load_average_end: os.loadavg()[0] }, ceiling, runs: RUNS, results: rows, table };
  fs.mkdirSync(path.join(root, 'bench/results'), { recursive: true });
  fs.writeFileSync(path.join(root, 'bench/results/attention-workers.json'), JSON.stringify(report, null, 2) + '\n');
  log('wrote bench/results/attention-workers.json');
  if (mismatch) process.exitCode = 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
