// `npm run bench` (after load.mjs), or alone: `node bench/python.mjs`. The code
// questions' Python runtime in Node, as the re-grade uses it (scripts/py-sandbox.mjs:
// a fresh worker_threads Worker per run, the page's MicroPython bundle):
//   - load: MicroPython's wasm instantiated and the harness ready (reported
//     by the Worker itself), median of RUNS;
//   - one check: the exercise's sinusoidal question, the solution run on a
//     learner's 5 hidden cases, start of the Worker to result, median of RUNS.
// Writes bench/results/python.json. A measurement, never a test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runPython, pythonWorkerSource } from '../scripts/py-sandbox.mjs';
import { solutions } from '../tests/fixtures/code/solutions.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.env.POSLAB_PY_RUNS || 7);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const cases = [[5, 8], [3, 12], [8, 16], [1, 2], [3, 5]];

const t0 = performance.now();
const source = await pythonWorkerSource();
const bundleMs = performance.now() - t0;
const load = [];
const check = [];
for (let i = 0; i < RUNS; i++) {
  const s = performance.now();
  const r = await runPython({ code: solutions.sinusoidal, fn: 'build_sinusoidal_encoding', cases, timeLimitMs: 10000 });
  check.push(performance.now() - s);
  if (r.status !== 'ok') throw new Error(`bench: the check did not run: ${r.status} ${r.message}`);
  load.push(r.loadMs);
}
const out = { date: new Date().toISOString(), cpus: os.cpus().length, load: os.loadavg(), runs: RUNS, bundleBytes: source.length, bundleBuildMs: bundleMs, loadMs: median(load), checkMs: median(check) };
console.log(`python: runtime bundle ${(source.length / 1024).toFixed(0)} KiB (wasm inlined); load ${out.loadMs.toFixed(0)} ms; one check (new Worker + 5 hidden cases) ${out.checkMs.toFixed(0)} ms (medians of ${RUNS})`);
fs.mkdirSync(path.join(root, 'bench/results'), { recursive: true });
fs.writeFileSync(path.join(root, 'bench/results/python.json'), JSON.stringify(out, null, 1));
