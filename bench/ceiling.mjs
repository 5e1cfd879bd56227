// The 128-bit SIMD ceiling of one core, one rule for every bench that prints
// a share of it (bench/attention-workers.mjs; bench/train.mjs reads the same
// fields from train_bench's own output): vector FP operations issued per
// cycle × 4 float lanes × clock. wasm SIMD128 has no fused multiply-add, so a
// multiply and an add are two operations of 4 FLOP each. The operations per
// cycle are assumed from the vendor and family (AMD Zen: 2 FP multiply/FMA
// pipes + 2 FP add pipes = 4; Intel: ports 0 and 1 = 2), and the clock is
// measured by build/native/train_bench --ceiling (a chain of dependent adds,
// one a cycle: the clock the core really runs at, boost included, which a
// VM's /proc/cpuinfo does not show). POSLAB_VECTOR_OPS_PER_CYCLE and
// POSLAB_CLOCK_GHZ override either assumption. Without the native bench the
// clock falls back to /proc/cpuinfo, and the result says so.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function simdCeiling({ exe = path.join(root, 'build/native/train_bench') } = {}) {
  let measured = null;
  if (fs.existsSync(exe)) {
    try {
      measured = JSON.parse(execFileSync(exe, ['--ceiling'], { encoding: 'utf8' }));
    } catch {
      measured = null;
    }
  }
  const cpu = measured?.processor ?? os.cpus()[0]?.model ?? 'unknown';
  const amd = measured ? measured.vendor === 'AuthenticAMD' : /AMD|EPYC|Ryzen/i.test(cpu);
  const envOps = Number(process.env.POSLAB_VECTOR_OPS_PER_CYCLE);
  const envGhz = Number(process.env.POSLAB_CLOCK_GHZ);
  const opsPerCycle = envOps > 0 ? envOps : measured?.vector_ops_per_cycle ?? (amd ? 4 : 2);
  let ghz;
  let clockFrom;
  if (envGhz > 0) [ghz, clockFrom] = [envGhz, 'POSLAB_CLOCK_GHZ'];
  else if (measured?.measured_ghz > 0) [ghz, clockFrom] = [measured.measured_ghz, 'measured by train_bench --ceiling'];
  else {
    let mhz = null;
    try {
      mhz = fs.readFileSync('/proc/cpuinfo', 'utf8').match(/cpu MHz\s*:\s*([\d.]+)/);
    } catch {
      mhz = null;
    }
    [ghz, clockFrom] = mhz ? [Number(mhz[1]) / 1000, '/proc/cpuinfo cpu MHz (no native train_bench: base clock, boost not seen)'] : [2, 'a guess (no clock known)'];
  }
  const assumption = envOps > 0 ? 'POSLAB_VECTOR_OPS_PER_CYCLE' : measured?.assumption ?? (amd ? 'AMD: 4 vector FP ops a cycle assumed' : '2 vector FP ops a cycle assumed');
  return { cpu, vendor: amd ? 'AMD' : 'Intel or other', opsPerCycle, lanes: 4, ghz, clockFrom, assumption, gflops: opsPerCycle * 4 * ghz };
}
