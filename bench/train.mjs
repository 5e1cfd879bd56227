// `node bench/train.mjs` (also in `npm run bench`): the tiny Transformer's own
// speed (issue #25). Runs build/native/train_bench and build/wasm/train_bench.js
// (Node) one after the other; each measures the plain loops ("before",
// train_kernels::set_reference) and the kernels ("after") alternately in one
// process, so both see the same load. Prints one training step and exercise
// 7's default run (5 schemes × 3 seeds × 400 steps) side by side, GFLOP/s
// against the 128-bit SIMD ceiling the native bench assumes for this
// processor, and writes bench/results/train.json. A measurement, never a test.
// Environment: POSLAB_TRAIN_REPEATS (default 7), POSLAB_TRAIN_FULL_RUNS
// (default 1; 0 skips exercise 7's run), POSLAB_TRAIN_FULL_STEPS (default 400,
// exercise 7's; fewer shortens each of its 15 runs on a crowded machine).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repeats = String(Number(process.env.POSLAB_TRAIN_REPEATS || 7));
const fullRuns = String(Number(process.env.POSLAB_TRAIN_FULL_RUNS ?? 1));
const fullSteps = String(Number(process.env.POSLAB_TRAIN_FULL_STEPS || 400));
const args = ['--repeats', repeats, '--steps', '20', '--full-runs', fullRuns, '--full-steps', fullSteps];
const log = (msg) => process.stderr.write(`bench/train: ${msg}\n`);

function run(label, cmd, cmdArgs) {
  log(`${label}: ${cmd} ${cmdArgs.join(' ')}`);
  try {
    return JSON.parse(execFileSync(cmd, cmdArgs, { encoding: 'utf8', maxBuffer: 1 << 20 }));
  } catch (e) {
    log(`${label} failed: ${e.message.split('\n')[0]}`);
    return null;
  }
}

const nativeExe = path.join(root, 'build/native/train_bench');
const wasmJs = path.join(root, 'build/wasm/train_bench.js');
const native = fs.existsSync(nativeExe) ? run('native', nativeExe, args) : null;
const wasm = fs.existsSync(wasmJs) ? run('wasm', process.execPath, [wasmJs, ...args]) : null;
if (!native) log(`${nativeExe} missing or failed: no native row`);
if (!wasm) log(`${wasmJs} missing or failed: no wasm row`);

const ceiling = native ? native.ceiling_gflops : 0;
const pct = (g) => (ceiling > 0 ? `${((100 * g) / ceiling).toFixed(1)} %` : '–');
const f = (x, d = 2) => (x === undefined || x === null ? '–' : Number(x).toFixed(d));

const lines = [];
if (native) {
  lines.push(`processor: ${native.processor} (${native.vendor}, family ${native.family}), ` +
    `measured clock ${f(native.measured_ghz)} GHz`);
  lines.push(`ceiling: ${native.vector_ops_per_cycle} vector FP ops/cycle × 4 lanes × ${f(native.measured_ghz)} GHz = ` +
    `${f(native.ceiling_gflops, 1)} GFLOP/s (${native.assumption})`);
  lines.push(`one step: ${(native.flops_per_step / 1e6).toFixed(1)} MFLOP of matrix products (batch 32, count task)`);
}
lines.push('');
lines.push('| row | before | after | ratio (before/after) |');
lines.push('|---|---|---|---|');
for (const [name, r] of [['native', native], ['wasm (Node)', wasm]]) {
  if (!r) continue;
  const cpu = r.step.before_cpu_ms !== undefined;
  lines.push(`| one step, ${name}, wall ms (median of ${r.repeats}) | ${f(r.step.before_ms)} | ${f(r.step.after_ms)} | ${f(r.step.ratio)}× |`);
  if (cpu) lines.push(`| one step, ${name}, CPU ms${name === 'native' ? '' : ' (Node process)'} | ${f(r.step.before_cpu_ms)} | ${f(r.step.after_cpu_ms)} | ${f(r.step.cpu_ratio)}× |`);
  const gb = cpu ? r.step.before_gflops : r.flops_per_step / (r.step.before_ms * 1e6);
  const ga = cpu ? r.step.after_gflops : r.flops_per_step / (r.step.after_ms * 1e6);
  lines.push(`| one step, ${name}, GFLOP/s (share of ceiling) | ${f(gb)} (${pct(gb)}) | ${f(ga)} (${pct(ga)}) | |`);
  if (r.exercise7) {
    const runName = r.exercise7.steps_per_run === 400 || r.exercise7.steps_per_run === undefined
      ? 'exercise 7 default run' : `exercise 7 run at ${r.exercise7.steps_per_run} steps`;
    lines.push(`| ${runName}, ${name}, wall s | ${f(r.exercise7.before_s)} | ${f(r.exercise7.after_s)} | ${f(r.exercise7.ratio)}× |`);
    if (cpu) lines.push(`| ${runName}, ${name}, CPU s | ${f(r.exercise7.before_cpu_s)} | ${f(r.exercise7.after_cpu_s)} | ${f(r.exercise7.cpu_ratio)}× |`);
    lines.push(`| ${runName}: results equal before/after, ${name} | | ${r.exercise7.same_results ? 'yes' : 'NO'} | |`);
  }
}
let load = '';
try {
  load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
} catch { /* not Linux */ }
lines.push('');
lines.push(`load average at the end: ${load || 'unknown'} (wall times grow with the load; the CPU times and ratios less so)`);
console.log(lines.join('\n'));

fs.mkdirSync(path.join(root, 'bench/results'), { recursive: true });
fs.writeFileSync(path.join(root, 'bench/results/train.json'),
  JSON.stringify({ native, wasm, load }, null, 2) + '\n');
log('wrote bench/results/train.json');
