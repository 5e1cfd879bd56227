// `npm run bench`: one attention forward at GPT-2-small shape (D=768, H=12,
// random Q/K/V/output projections, no mask, no position information) for
// S = 128, 512, 1024, 2048, side by side in one run:
//   ours, wasm in headless Chromium   (build/wasm/poslab.js, lab.forward)
//   tfjs-backend-wasm in Chromium     (same weights and input; output checked against ours)
//   ours, wasm in Node                (the same module and call)
//   tfjs-backend-wasm in Node         (likewise)
//   plain JS in Node                  (the triple loops a course author would write)
//   ours, native                      (build/native/attention_bench: poslab::forward)
//   OpenBLAS sgemm, native            (same computation, our softmax; when libopenblas is installed)
// Medians of several runs, one run of each implementation in turn so that a
// noisy neighbour hurts every column alike, after a warm-up that lets V8 tier
// the hot wasm up; GFLOP/s by FLOP = 8·S·D² + 4·S²·D. Also the lab-size
// forward in µs, the wasm memory at S=2048, and what forward's cache of random
// weights saves (S=128 D=768: a first call, whose seed is new, against a
// repeated one). Prints the table and writes it,
// with every run, to bench/results/bench.json. A benchmark, never a test: it
// fails only if an implementation's numbers disagree with ours.
//
// Environment: POSLAB_BENCH_RUNS (default 5), POSLAB_BENCH_SIZES (e.g. 128,512),
// POSLAB_BENCH_PLAIN_MAX (largest S for plain JS, default 1024, run once there),
// POSLAB_BENCH_WARM_UP_MS (default 2000), POSLAB_NATIVE_BUILD / POSLAB_WASM
// (default build/native, build/wasm/poslab.js), CHROMIUM (default /usr/bin/chromium).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const nativeDir = process.env.POSLAB_NATIVE_BUILD || path.join(root, 'build/native');
const wasmPath = process.env.POSLAB_WASM || path.join(root, 'build/wasm/poslab.js');
const SIZES = (process.env.POSLAB_BENCH_SIZES || '128,512,1024,2048').split(',').map(Number);
const RUNS = Number(process.env.POSLAB_BENCH_RUNS || 5);
const PLAIN_MAX = Number(process.env.POSLAB_BENCH_PLAIN_MAX || 1024);
const D = 768;
const H = 12;
const SEED = 7;
const TOLERANCE = 1e-4; // max |ours − theirs| / max |ours|
const WARM_UP_MS = Number(process.env.POSLAB_BENCH_WARM_UP_MS || 2000);

const flop = (s, d) => 8 * s * d * d + 4 * s * s * d;
const median = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  const n = v.length;
  return n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
};
const log = (msg) => process.stderr.write(`bench: ${msg}\n`);

// ---- Shared by Node and the browser page (serialised with toString: no closures).

// Deterministic input rows, uniform in [-1, 1) (mulberry32).
function makeInput(s, d, seed) {
  let a = seed >>> 0;
  const data = new Float32Array(s * d);
  for (let i = 0; i < data.length; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    data[i] = (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1;
  }
  return data;
}

// Our module, driven the same way in Node and in the page: prepare(job) sets
// up one S and warms up, once() times one lab.forward, labSizes() gives µs
// per call of the lab-size cases (from batches: browser clocks are coarse).
function makeWasmBench(lab, makeInputFn) {
  let options = null;
  let result = null;
  return {
    prepare(job) {
      options = {
        vectors: { shape: [job.s, job.d], data: makeInputFn(job.s, job.d, job.s) },
        weights: 'random',
        heads: job.heads,
        seed: job.seed,
        returnAttention: false,
      };
      result = lab.forward(options);
      return true;
    },
    once() {
      const t0 = performance.now();
      result = lab.forward(options);
      return performance.now() - t0;
    },
    // V8 first runs wasm through its baseline compiler and swaps in optimised
    // code from a background thread once a function is hot; keep calling
    // (the same kernels serve every S) until that has surely happened.
    warmUp(job, ms) {
      this.prepare(job);
      const t0 = performance.now();
      let calls = 0;
      while (performance.now() - t0 < ms || calls < 3) {
        this.once();
        calls++;
      }
      return calls;
    },
    check() {
      let sumAbs = 0;
      for (const v of result.output.data) sumAbs += Math.abs(v);
      return { sumAbs, memoryBytes: lab.wasmMemoryBytes() };
    },
    output() {
      return result.output.data;
    },
    labSizes() {
      const cases = [
        { name: 'text 犬が猫を追いかけた (S=6) D=8 H=1 sinusoidal',
          options: { text: '犬が猫を追いかけた', dModel: 8, heads: 1, pe: 'sinusoidal' } },
        { name: 'vectors S=32 D=64 H=4 sinusoidal',
          options: { vectors: { shape: [32, 64], data: makeInputFn(32, 64, 32) }, heads: 4, pe: 'sinusoidal' } },
      ];
      return cases.map(({ name, options: o }) => {
        for (let i = 0; i < 1000; i++) lab.forward(o);
        const perCall = [];
        for (let b = 0; b < 9; b++) {
          const calls = 200;
          const t0 = performance.now();
          for (let i = 0; i < calls; i++) lab.forward(o);
          perCall.push(((performance.now() - t0) * 1000) / calls);
        }
        perCall.sort((x, y) => x - y);
        return { name, us: perCall[4] };
      });
    },
  };
}

// forward's weights cache: a call with a seed it has not seen makes four
// D×D projections first; a repeated call reuses them. Text input, as the page
// sends it. Medians of n alternating pairs.
function weightsCacheBench(lab, n) {
  const tokens = Array.from({ length: 128 }, (_, i) => ['犬', 'が', '猫', 'を', '追いかけ', 'た'][i % 6]);
  const options = (seed) => ({ tokens, pe: 'sinusoidal', dModel: 768, heads: 12, weights: 'random', seed, returnAttention: false });
  const first = [];
  const repeated = [];
  for (let i = 0; i < n; i++) {
    const o = options(100000 + i); // a seed no earlier call used: the weights are made
    let t0 = performance.now();
    lab.forward(o);
    first.push(performance.now() - t0);
    t0 = performance.now();
    lab.forward(o);
    repeated.push(performance.now() - t0);
  }
  return { n, first_ms: median(first), repeated_ms: median(repeated), ratio: median(first) / median(repeated) };
}

// ---- tfjs-backend-wasm: the same computation with the same weights.

async function loadTfjs() {
  const tf = require('@tensorflow/tfjs-core');
  const tfwasm = require('@tensorflow/tfjs-backend-wasm');
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false); // one thread, as ours
  tfwasm.setWasmPaths(path.join(root, 'node_modules/@tensorflow/tfjs-backend-wasm/dist') + path.sep);
  if (!(await tf.setBackend('wasm'))) throw new Error('tfjs-backend-wasm did not initialise');
  await tf.ready();
  const version = require('@tensorflow/tfjs-backend-wasm/package.json').version;
  const simd = tf.env().get('WASM_HAS_SIMD_SUPPORT');
  return { tf, label: `tfjs-wasm ${version}${simd ? ' SIMD' : ''} 1 thread (Node)` };
}

function tfjsAttention(tf, x, w, s, d, heads) {
  const dh = d / heads;
  return tf.tidy(() => {
    const split = (t) => tf.transpose(tf.reshape(t, [s, heads, dh]), [1, 0, 2]); // [H, S, dh]
    const q = split(tf.matMul(x, w.wq));
    const k = split(tf.matMul(x, w.wk));
    const v = split(tf.matMul(x, w.wv));
    const weights = tf.softmax(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(dh)));
    const context = tf.reshape(tf.transpose(tf.matMul(weights, v), [1, 0, 2]), [s, d]);
    return tf.matMul(context, w.wo);
  });
}

// Input and weights uploaded once; once() times the computation and the
// download of its result (dataSync waits for it).
function makeTfjsBench(tf, input, w, s, d, heads) {
  const x = tf.tensor2d(input, [s, d]);
  const tw = Object.fromEntries(Object.entries(w).map(([k, m]) => [k, tf.tensor2d(m.data, m.shape)]));
  let output = null;
  const once = () => {
    const t0 = performance.now();
    const y = tfjsAttention(tf, x, tw, s, d, heads);
    output = y.dataSync();
    y.dispose();
    return performance.now() - t0;
  };
  once(); // warm-up
  return {
    once,
    output: () => output,
    dispose: () => [x, ...Object.values(tw)].forEach((t) => t.dispose()),
  };
}

// ---- Plain JS: arrays of rows and the textbook loops.

function toRows(data, rows, cols) {
  const out = [];
  for (let i = 0; i < rows; i++) out.push(Array.from(data.subarray(i * cols, (i + 1) * cols)));
  return out;
}

function plainMatmul(a, b) {
  const n = a.length, k = b.length, m = b[0].length;
  const c = [];
  for (let i = 0; i < n; i++) {
    const row = new Array(m).fill(0);
    for (let j = 0; j < m; j++) {
      let sum = 0;
      for (let p = 0; p < k; p++) sum += a[i][p] * b[p][j];
      row[j] = sum;
    }
    c.push(row);
  }
  return c;
}

function plainAttention(x, w, heads) {
  const s = x.length, d = x[0].length, dh = d / heads;
  const q = plainMatmul(x, w.wq), k = plainMatmul(x, w.wk), v = plainMatmul(x, w.wv);
  const context = [];
  for (let i = 0; i < s; i++) context.push(new Array(d).fill(0));
  for (let h = 0; h < heads; h++) {
    for (let i = 0; i < s; i++) {
      const scores = new Array(s);
      let max = -Infinity;
      for (let j = 0; j < s; j++) {
        let dot = 0;
        for (let t = 0; t < dh; t++) dot += q[i][h * dh + t] * k[j][h * dh + t];
        scores[j] = dot / Math.sqrt(dh);
        if (scores[j] > max) max = scores[j];
      }
      let sum = 0;
      for (let j = 0; j < s; j++) sum += scores[j] = Math.exp(scores[j] - max);
      for (let j = 0; j < s; j++) {
        const p = scores[j] / sum;
        for (let t = 0; t < dh; t++) context[i][h * dh + t] += p * v[j][h * dh + t];
      }
    }
  }
  return plainMatmul(context, w.wo);
}

function relativeDiff(ours, theirs) {
  let diff = 0, scale = 0;
  for (let i = 0; i < ours.length; i++) {
    diff = Math.max(diff, Math.abs(ours[i] - theirs[i]));
    scale = Math.max(scale, Math.abs(ours[i]));
  }
  return diff / scale;
}

// ---- Headless Chromium: a loopback static server and playwright-core.

function startServer() {
  const page = '<!doctype html><meta charset="utf-8"><title>Position Lab bench</title>' +
    '<script src="poslab.js"></script><script src="tfjs/tf-core.min.js"></script>' +
    '<script src="tfjs/tf-backend-wasm.min.js"></script>';
  const tfjsFiles = {
    'tf-core.min.js': 'node_modules/@tensorflow/tfjs-core/dist/tf-core.min.js',
    'tf-backend-wasm.min.js': 'node_modules/@tensorflow/tfjs-backend-wasm/dist/tf-backend-wasm.min.js',
  };
  for (const f of ['tfjs-backend-wasm.wasm', 'tfjs-backend-wasm-simd.wasm', 'tfjs-backend-wasm-threaded-simd.wasm'])
    tfjsFiles[f] = `node_modules/@tensorflow/tfjs-backend-wasm/dist/${f}`;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const tfjsFile = url.pathname.startsWith('/tfjs/') && tfjsFiles[url.pathname.slice(6)];
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page);
    } else if (url.pathname === '/poslab.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      fs.createReadStream(wasmPath).pipe(res);
    } else if (tfjsFile) {
      res.writeHead(200, { 'content-type': tfjsFile.endsWith('.wasm') ? 'application/wasm' : 'text/javascript' });
      fs.createReadStream(path.join(root, tfjsFile)).pipe(res);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function openChromium() {
  const { chromium } = require('playwright-core');
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'poslab-bench-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const server = await startServer();
  const page = context.pages()[0] || (await context.newPage());
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  await page.evaluate(`createPositionLab().then((lab) => {
    window.lab = lab;
    window.makeInput = ${makeInput};
    window.bench = (${makeWasmBench})(lab, makeInput);
  })`);
  // tfjs-backend-wasm in the page too: one thread (no cross-origin isolation, and the flag).
  await page.evaluate(`(async () => {
    window.tfjsAttention = ${tfjsAttention};
    window.makeTfjsBench = ${makeTfjsBench};
    window.relativeDiff = ${relativeDiff};
    tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
    tf.wasm.setWasmPaths('/tfjs/');
    if (!(await tf.setBackend('wasm'))) throw new Error('tfjs-backend-wasm did not initialise in Chromium');
    await tf.ready();
  })()`);
  const agent = await page.evaluate('navigator.userAgent');
  const version = (agent.match(/Chrome\/([\d.]+)/) || [null, agent])[1];
  return {
    version,
    // bench.<method>(arg) in the page
    call: (method, arg) => page.evaluate(`bench.${method}(${arg === undefined ? '' :
      Array.isArray(arg) ? arg.map((a) => JSON.stringify(a)).join(', ') : JSON.stringify(arg)})`),
    tfjsWarmUp: (ms) => page.evaluate(`(() => {
      const t0 = performance.now();
      while (performance.now() - t0 < ${ms}) tfjsBench.once();
      tfjsBench.dispose();
    })()`),
    tfjsPrepare: (job) => page.evaluate(`window.tfjsBench = makeTfjsBench(tf, makeInput(${job.s}, ${job.d}, ${job.s}),
      lab.attentionWeights({ dModel: ${job.d}, seed: ${job.seed} }), ${job.s}, ${job.d}, ${job.heads}); true`),
    tfjsOnce: () => page.evaluate('tfjsBench.once()'),
    // max |ours − tfjs| / max |ours|, both computed in the page; then frees tfjs's tensors.
    tfjsCheck: () => page.evaluate('(() => { const d = relativeDiff(bench.output(), tfjsBench.output()); tfjsBench.dispose(); return d; })()'),
    close: async () => {
      await context.close();
      server.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

// ---- Native: build/native/attention_bench --serve, one JSON line per request.

function startNative() {
  const exe = path.join(nativeDir, 'attention_bench');
  if (!fs.existsSync(exe)) return null;
  const child = spawn(exe, ['--serve', '--d-model', String(D), '--heads', String(H)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let buffered = '';
  const waiting = [];
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      waiting.shift()?.resolve(JSON.parse(line));
    }
  });
  child.on('exit', (code) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`attention_bench exited (${code})`));
  });
  return {
    request: (line) => new Promise((resolve, reject) => {
      waiting.push({ resolve, reject });
      child.stdin.write(line + '\n');
    }),
    close: () => { child.stdin.end('quit\n'); },
  };
}

// ---- The run.

function fmtRow(label, cells) {
  return label.padEnd(40) + cells.map((c) => String(c).padStart(17)).join('');
}
const cell = (ms, s) => (ms == null ? '—' : `${ms >= 100 ? ms.toFixed(0) : ms.toFixed(1)} ${(flop(s, D) / (ms * 1e6)).toFixed(1).padStart(5)}`);
const ratio = (x) => (x == null || !Number.isFinite(x) ? '—' : `${x >= 10 ? x.toFixed(0) : x.toFixed(2)}×`);

async function main() {
  const loadBefore = os.loadavg()[0];
  if (!fs.existsSync(wasmPath)) throw new Error(`${wasmPath} not found: run npm run build first`);
  const createPositionLab = require(wasmPath);
  const lab = await createPositionLab();
  const tfjs = await loadTfjs();
  let browser = null;
  try {
    browser = await openChromium();
  } catch (e) {
    log(`headless Chromium unavailable (${e.message.split('\n')[0]}); its row is left empty`);
  }

  const native = startNative();
  if (!native) log(`${nativeDir}/attention_bench not found: the native rows are left empty`);
  const nativeInfo = native ? await native.request('info') : null;
  const nodeBench = makeWasmBench(lab, makeInput);
  const summary = (ms) => ({ median_ms: median(ms), min_ms: Math.min(...ms), runs_ms: ms });

  // Warm up every wasm engine before timing anything (see warmUp).
  const warm = { s: 256, d: D, heads: H, seed: SEED };
  log('warming up (V8 tiers hot wasm up to optimised code in the background)');
  if (browser) {
    await browser.call('warmUp', [warm, WARM_UP_MS]);
    await browser.tfjsPrepare(warm);
    await browser.tfjsWarmUp(WARM_UP_MS);
  }
  nodeBench.warmUp(warm, WARM_UP_MS);
  {
    const w = lab.attentionWeights({ dModel: D, seed: SEED });
    const b = makeTfjsBench(tfjs.tf, makeInput(warm.s, D, warm.s), w, warm.s, D, H);
    const t0 = performance.now();
    while (performance.now() - t0 < WARM_UP_MS) b.once();
    b.dispose();
  }

  const rows = [];
  let mismatch = false;
  const disagree = (what) => { mismatch = true; log(`disagreement: ${what}`); };
  for (const s of SIZES) {
    const row = { S: s, D, H, gflop: flop(s, D) / 1e9 };
    const job = { s, d: D, heads: H, seed: SEED };
    // The weights forward() draws for this seed, for tfjs and plain JS.
    const w = lab.attentionWeights({ dModel: D, seed: SEED });
    const input = makeInput(s, D, s);

    log(`S=${s}: setting up and warming up`);
    if (browser) {
      await browser.call('prepare', job);
      await browser.tfjsPrepare(job);
    }
    nodeBench.prepare(job);
    const tfjsBench = makeTfjsBench(tfjs.tf, input, w, s, D, H);
    if (native) await native.request(`size ${s}`);

    // One run of each implementation in turn, RUNS times: a busy neighbour
    // slows every column alike instead of one.
    const times = { wasm_chromium: [], tfjs_chromium: [], wasm_node: [], tfjs_wasm: [], native: [], native_projections: [],
      openblas: [], openblas_projections: [] };
    for (let r = 0; r < RUNS; r++) {
      log(`S=${s}: run ${r + 1} of ${RUNS}`);
      if (browser) {
        times.wasm_chromium.push(await browser.call('once'));
        times.tfjs_chromium.push(await browser.tfjsOnce());
      }
      times.wasm_node.push(nodeBench.once());
      times.tfjs_wasm.push(tfjsBench.once());
      if (native) {
        const n = await native.request('run');
        times.native.push(n.forward_ms);
        times.native_projections.push(n.projections_ms);
        if (n.openblas_ms !== undefined) {
          times.openblas.push(n.openblas_ms);
          times.openblas_projections.push(n.openblas_projections_ms);
        }
      }
    }
    for (const [key, ms] of Object.entries(times)) if (ms.length) row[key] = summary(ms);

    // Same numbers? tfjs against ours element by element; Chromium and native
    // (same input, same weights) by the sum of |output|.
    const ours = nodeBench.output();
    const node = nodeBench.check();
    row.wasm_node.memory_bytes = node.memoryBytes;
    row.tfjs_wasm.max_rel_diff = relativeDiff(ours, tfjsBench.output());
    if (!(row.tfjs_wasm.max_rel_diff <= TOLERANCE)) disagree(`S=${s} tfjs ${row.tfjs_wasm.max_rel_diff}`);
    tfjsBench.dispose();
    if (browser) {
      const c = await browser.call('check');
      row.wasm_chromium.memory_bytes = c.memoryBytes;
      row.wasm_chromium.checksum_rel_diff = Math.abs(c.sumAbs - node.sumAbs) / node.sumAbs;
      if (!(row.wasm_chromium.checksum_rel_diff <= 1e-6)) disagree(`S=${s} Chromium vs Node ${row.wasm_chromium.checksum_rel_diff}`);
      row.tfjs_chromium.max_rel_diff = await browser.tfjsCheck();
      if (!(row.tfjs_chromium.max_rel_diff <= TOLERANCE)) disagree(`S=${s} tfjs in Chromium ${row.tfjs_chromium.max_rel_diff}`);
    }
    if (native) {
      const c = await native.request('check');
      row.native.checksum_rel_diff = Math.abs(c.sum_abs_output - node.sumAbs) / node.sumAbs;
      if (!(row.native.checksum_rel_diff <= 1e-5)) disagree(`S=${s} native vs wasm ${row.native.checksum_rel_diff}`);
      if (row.openblas) {
        row.openblas.max_rel_diff = c.openblas_max_rel_diff;
        if (!(c.openblas_max_rel_diff <= TOLERANCE)) disagree(`S=${s} OpenBLAS vs ours natively ${c.openblas_max_rel_diff}`);
      }
    }

    if (s <= PLAIN_MAX) {
      const runs = s >= 1024 ? 1 : Math.min(RUNS, 3);
      log(`S=${s}: plain JS, ${runs} run(s)`);
      const x = toRows(input, s, D);
      const pw = Object.fromEntries(Object.entries(w).map(([k, m]) => [k, toRows(m.data, D, D)]));
      const ms = [];
      let out = null;
      for (let r = 0; r < runs; r++) {
        const t0 = performance.now();
        out = plainAttention(x, pw, H);
        ms.push(performance.now() - t0);
      }
      row.plain_js = { ...summary(ms), max_rel_diff: relativeDiff(ours, out.flat()) };
      if (!(row.plain_js.max_rel_diff <= TOLERANCE)) disagree(`S=${s} plain JS ${row.plain_js.max_rel_diff}`);
    }
    rows.push(row);
  }

  log('lab-size forward');
  const labSizes = {
    node: nodeBench.labSizes(),
    chromium: browser ? await browser.call('labSizes') : null,
    native: native ? (await native.request('lab')).map((c) => ({ name: c.case, us: c.median_us })) : null,
  };
  const big = rows.find((r) => r.S === 2048);
  log('weights cache: forward S=128 D=768, a new seed vs the same seed again');
  const weightsCache = weightsCacheBench(lab, Math.max(5, RUNS * 2));
  let memory = null;
  if (big) {
    // Also a fresh module that runs only S=2048, so the figure is S=2048's alone.
    log('S=2048 in a fresh module, for its memory');
    const fresh = await createPositionLab();
    const before = fresh.HEAP8.length;
    const alone = makeWasmBench(fresh, makeInput);
    alone.prepare({ s: 2048, d: D, heads: H, seed: SEED });
    memory = {
      node_bytes: big.wasm_node.memory_bytes,
      chromium_bytes: big.wasm_chromium?.memory_bytes ?? null,
      fresh_node_initial_bytes: before,
      fresh_node_s2048_bytes: fresh.HEAP8.length,
    };
  }
  if (browser) await browser.close();
  if (native) native.close();

  // ---- The table.
  const mb = (b) => (b == null ? '—' : `${(b / 2 ** 20).toFixed(0)} MiB`);
  const lines = [];
  lines.push(`Attention forward (lab.forward / poslab::forward), D=${D}, H=${H}, random Q/K/V/output projections, ` +
    `one thread; median of ${RUNS} runs, interleaved`);
  lines.push(`FLOP = 8·S·D² + 4·S²·D (4 projections + QKᵀ + weights·V; softmax not counted): ` +
    SIZES.map((s) => `S=${s} ${(flop(s, D) / 1e9).toFixed(2)}`).join(', ') + ' GFLOP');
  lines.push(`cells: median ms  GFLOP/s.  ${os.cpus()[0].model}, ${os.cpus().length} CPUs, Node ${process.version}` +
    (browser ? `, Chromium ${browser.version}` : '') +
    `; load average ${loadBefore.toFixed(1)} at the start, ${os.loadavg()[0].toFixed(1)} at the end`);
  lines.push('');
  lines.push(fmtRow('', SIZES.map((s) => `S=${s}`)));
  const impls = [
    ['ours wasm, headless Chromium', 'wasm_chromium'],
    [tfjs.label.replace('(Node)', '(Chromium)'), 'tfjs_chromium'],
    ['ours wasm, Node', 'wasm_node'],
    [tfjs.label, 'tfjs_wasm'],
    ['plain JS, Node', 'plain_js'],
    ['ours native (SSE2 baseline)', 'native'],
    [nativeInfo?.openblas ? 'OpenBLAS sgemm + our softmax, native' : 'OpenBLAS (not installed)', 'openblas'],
  ];
  for (const [label, key] of impls) lines.push(fmtRow(label, rows.map((r) => cell(r[key]?.median_ms, r.S))));
  lines.push('');
  lines.push('projections only (4 × [S,D]·[D,D]), ms  GFLOP/s of 8·S·D²:');
  const projCell = (t, s) => (t == null ? '—' : `${t.median_ms.toFixed(1)} ${(8 * s * D * D / (t.median_ms * 1e6)).toFixed(1).padStart(5)}`);
  lines.push(fmtRow('  ours native kernels::matmul', rows.map((r) => projCell(r.native_projections, r.S))));
  lines.push(fmtRow('  OpenBLAS sgemm', rows.map((r) => projCell(r.openblas_projections, r.S))));
  lines.push('');
  const t = (r, k) => r[k]?.median_ms;
  lines.push('speed-up of ours (time of the other / time of ours):');
  lines.push(fmtRow('  vs tfjs-wasm, both in Chromium', rows.map((r) => ratio(t(r, 'tfjs_chromium') / t(r, 'wasm_chromium')))));
  lines.push(fmtRow('  vs tfjs-wasm, both in Node', rows.map((r) => ratio(t(r, 'tfjs_wasm') / t(r, 'wasm_node')))));
  lines.push(fmtRow('  vs plain JS (Node), ours in Chromium', rows.map((r) => ratio(t(r, 'plain_js') / t(r, 'wasm_chromium')))));
  lines.push(fmtRow('  vs plain JS, both in Node', rows.map((r) => ratio(t(r, 'plain_js') / t(r, 'wasm_node')))));
  lines.push('ours wasm time / ours native time:');
  lines.push(fmtRow('  Chromium', rows.map((r) => ratio(t(r, 'wasm_chromium') / t(r, 'native')))));
  lines.push(fmtRow('  Node', rows.map((r) => ratio(t(r, 'wasm_node') / t(r, 'native')))));
  lines.push(fmtRow('ours native time / OpenBLAS time', rows.map((r) => ratio(t(r, 'native') / t(r, 'openblas')))));
  lines.push('');
  lines.push('agreement with ours (max |diff| / max |ours|): ' + rows.map((r) =>
    `S=${r.S} tfjs ${r.tfjs_wasm.max_rel_diff.toExponential(1)}` +
    (r.tfjs_chromium ? ` (Chromium ${r.tfjs_chromium.max_rel_diff.toExponential(1)})` : '') +
    (r.plain_js ? `, plain ${r.plain_js.max_rel_diff.toExponential(1)}` : '') +
    (r.openblas ? `, OpenBLAS (native) ${r.openblas.max_rel_diff.toExponential(1)}` : '')).join('; '));
  lines.push('same input and weights, sum |output| vs ours in Node: ' + rows.map((r) =>
    `S=${r.S} Chromium ${r.wasm_chromium ? r.wasm_chromium.checksum_rel_diff.toExponential(1) : '—'}` +
    `, native ${r.native ? r.native.checksum_rel_diff.toExponential(1) : '—'}`).join('; '));
  if (PLAIN_MAX < Math.max(...SIZES))
    lines.push(`plain JS: skipped above S=${PLAIN_MAX} (minutes per run); one run at S ≥ 1024, up to 3 below`);
  lines.push('');
  lines.push('lab-size forward (attention weights returned), µs per call:');
  labSizes.node.forEach((c, i) => {
    lines.push(fmtRow(`  ${c.name}`, [
      `Chromium ${labSizes.chromium ? labSizes.chromium[i].us.toFixed(1) : '—'}`,
      `Node ${c.us.toFixed(1)}`,
      `native ${labSizes.native ? labSizes.native[i].us.toFixed(1) : '—'}`,
    ]));
  });
  lines.push(`weights cache, forward S=128 D=768 H=12 (Node, median of ${weightsCache.n}): first call (weights made) ` +
    `${weightsCache.first_ms.toFixed(1)} ms, repeated call (cached) ${weightsCache.repeated_ms.toFixed(1)} ms, ${ratio(weightsCache.ratio)}`);
  if (memory) {
    lines.push(`wasm memory (HEAP8.length; it only grows) after every S up to 2048: Chromium ${mb(memory.chromium_bytes)}, ` +
      `Node ${mb(memory.node_bytes)}; a fresh module after one S=2048 forward: ${mb(memory.fresh_node_s2048_bytes)} ` +
      `(${mb(memory.fresh_node_initial_bytes)} at start)`);
  }
  const table = lines.join('\n');
  console.log(table);

  const report = {
    date: new Date().toISOString(),
    machine: { cpu: os.cpus()[0].model, cpus: os.cpus().length, node: process.version, chromium: browser?.version ?? null,
      load_average_start: loadBefore, load_average_end: os.loadavg()[0] },
    flop_formula: '8·S·D² + 4·S²·D',
    runs: RUNS,
    tfjs: tfjs.label,
    openblas: nativeInfo?.openblas ?? null,
    results: rows,
    lab_sizes_us: labSizes,
    weights_cache: weightsCache,
    wasm_memory: memory,
    table,
  };
  fs.mkdirSync(path.join(root, 'bench/results'), { recursive: true });
  fs.writeFileSync(path.join(root, 'bench/results/bench.json'), JSON.stringify(report, null, 2) + '\n');
  log('wrote bench/results/bench.json');
  if (mismatch) {
    log('an implementation disagrees with ours beyond the tolerance (see above)');
    process.exitCode = 1;
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
