// `npm run bench` (after load.mjs), or alone: `node bench/python.mjs`. The code
// questions' Python runtime in Node, as the re-grade uses it
// (scripts/py-sandbox.mjs: a fresh process per run, the page's MicroPython
// bundle), with and without the operating-system sandbox (bubblewrap):
//   - load: MicroPython's wasm instantiated and the harness ready (reported
//     by the runtime itself), median of RUNS;
//   - one check: the exercise's sinusoidal question, the solution run on a
//     learner's 5 hidden cases, spawn to result, median of RUNS, sandboxed
//     and not (--no-sandbox: the same runner, Node's permission model and
//     limits, no bwrap), and their ratio;
//   - a batch: BATCH checks through runPythonBatch, os.availableParallelism()
//     processes at once: wall time per check.
// Writes bench/results/python.json. A measurement, never a test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runPython, runPythonBatch, pythonWorkerSource, sandboxStatus } from '../scripts/py-sandbox.mjs';
import { solutions } from '../tests/fixtures/code/solutions.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.env.POSLAB_PY_RUNS || 7);
const BATCH = Number(process.env.POSLAB_PY_BATCH || 8);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const cases = [[5, 8], [3, 12], [8, 16], [1, 2], [3, 5]];
const job = { code: solutions.sinusoidal, fn: 'build_sinusoidal_encoding', cases, timeLimitMs: 10000 };

const t0 = performance.now();
const source = await pythonWorkerSource();
const bundleMs = performance.now() - t0;
const status = await sandboxStatus();
const out = { date: new Date().toISOString(), cpus: os.cpus().length, load: os.loadavg(), runs: RUNS, bundleBytes: source.length, bundleBuildMs: bundleMs, sandbox: status };
for (const sandbox of status.ok ? [true, false] : [false]) {
  const load = [];
  const check = [];
  for (let i = 0; i < RUNS; i++) {
    const s = performance.now();
    const r = await runPython({ ...job, sandbox });
    check.push(performance.now() - s);
    if (r.status !== 'ok') throw new Error(`bench: the check did not run: ${r.status} ${r.message}`);
    load.push(r.loadMs);
  }
  out[sandbox ? 'sandboxed' : 'plain'] = { loadMs: median(load), checkMs: median(check) };
}
if (status.ok) {
  const parallel = os.availableParallelism();
  const s = performance.now();
  const rs = await runPythonBatch(Array.from({ length: BATCH }, () => job), { parallel });
  const wall = performance.now() - s;
  if (rs.some((r) => r.status !== 'ok')) throw new Error('bench: a batch check did not run');
  out.batch = { checks: BATCH, parallel, wallMs: wall, perCheckMs: wall / BATCH };
}
const f = (x) => x.toFixed(0);
console.log(`python: runtime bundle ${(source.length / 1024).toFixed(0)} KiB (wasm inlined); medians of ${RUNS}`);
if (out.sandboxed) {
  console.log(`python: sandboxed (bwrap) load ${f(out.sandboxed.loadMs)} ms, one check (process + 5 hidden cases) ${f(out.sandboxed.checkMs)} ms`);
} else console.log(`python: the sandbox is unavailable here (${status.reason}); only --no-sandbox measured`);
console.log(`python: --no-sandbox load ${f(out.plain.loadMs)} ms, one check ${f(out.plain.checkMs)} ms`);
if (out.sandboxed) console.log(`python: sandbox cost ×${(out.sandboxed.checkMs / out.plain.checkMs).toFixed(2)} per check`);
if (out.batch) console.log(`python: batch of ${BATCH} checks, ${out.batch.parallel} at once: ${f(out.batch.wallMs)} ms (${f(out.batch.perCheckMs)} ms per check)`);
fs.mkdirSync(path.join(root, 'bench/results'), { recursive: true });
fs.writeFileSync(path.join(root, 'bench/results/python.json'), JSON.stringify(out, null, 1));
