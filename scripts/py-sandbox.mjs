// Runs a student's Python function in Node for the re-grade, with the page's
// very runtime (web/js/python/py-worker.js, bundled by scripts/build-python.mjs),
// each run in a process of its own, isolated by the operating system.
//
// Contract (scripts/grade-code.mjs and web/js/grading/code-rerun.js build on it):
//
//   sandboxStatus() → Promise<{ok: true} | {ok: false, reason: string}>
//     Whether bubblewrap can run here (installed, user namespaces allowed,
//     the whole chain starts); checked once per process by a real sandboxed run.
//
//   runPython({code, fn, cases, timeLimitMs = 2000, sandbox = true})
//     → Promise<{status, results?, message?, output, dropped?, loadMs?, runMs?, feature?, module?}>
//     status: ok | syntax_error | load_error | no_function | import_refused |
//     unsupported | timeout | memory | crashed | sandbox_unavailable.
//     With the sandbox unavailable it never runs the code: it resolves
//     {status: 'sandbox_unavailable', message: <the reason>, output: ''}.
//     {sandbox: false} (the CLI's explicit --no-sandbox, trusted input only)
//     runs the same runner as a plain child process: same protocol, same
//     Node permission model and limits, no bubblewrap.
//
//   runPythonBatch(jobs, {parallel}) → Promise<result[]> (same order), at most
//     `parallel` (default os.availableParallelism()) processes at once.
//
// The sandbox, per run: `bwrap --unshare-all` (user, pid, net, ipc, uts,
// cgroup namespaces: no network), uid/gid 65534, every capability dropped,
// --die-with-parent, --new-session, --clearenv; a root file system that is an
// empty read-only tmpfs with only the node binary, its shared libraries,
// prlimit and its libraries, the runner and the runtime bundle bound read-only
// (not the project tree, not /home, not /root, not /etc); a private /tmp.
// prlimit sets CPU seconds, address space, file size 0, process count, open
// files, no core files. Node runs with --experimental-permission (read: the
// runner and the bundle only; no child processes, no workers, no writes),
// --disallow-code-generation-from-strings, and a JavaScript heap limit. Code
// and cases go on standard input; one JSON comes back on standard output,
// read up to MAX_STDOUT bytes (more: killed, `crashed`). The parent enforces
// the wall clock and kills the whole process group.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPythonWorker } from './build-python.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

let sourcePromise = null;
export function pythonWorkerSource() {
  if (!sourcePromise) sourcePromise = buildPythonWorker();
  return sourcePromise;
}

// Measured on Node 20 (x64), with the MicroPython runtime: one
// WebAssembly.Memory reserves 10 GiB of address space (guard regions), so a
// limit of 10.5 GiB fails to instantiate MicroPython and 11 GiB is enough;
// 11.5 GiB leaves a margin. The real memory is bounded by the JavaScript heap
// limit and the WebAssembly memory limit below; the address-space limit
// stops ArrayBuffers and native allocations past about 1 GiB.
export const LIMITS = {
  addressSpaceBytes: 11.5 * 2 ** 30,
  heapMb: 128,
  // WebAssembly memory, in 64 KiB pages (256 MiB): MicroPython's heap grows
  // inside it (its variant allocates more heap as needed) and raises
  // MemoryError past it.
  wasmPages: 4096,
  processes: 64,
  openFiles: 64,
  // CPU seconds on top of the time limit: the runtime's load (about 0.5 s
  // alone, several seconds on a loaded machine) is not the student's time.
  cpuExtraSeconds: 10,
};
export const MAX_STDOUT = 4 << 20;
const MAX_STDERR = 64 << 10;
const LOAD_LIMIT_MS = 30000;
const SANDBOX_DIR = '/sandbox';

const MEMORY_RE = /heap out of memory|Fatal process out of memory|Allocation failed|Array buffer allocation failed|could not allocate memory|Cannot allocate memory|Invalid array length|MemoryError/i;

function which(name) {
  for (const dir of (process.env.PATH || '/usr/bin:/bin').split(':')) {
    const p = path.join(dir || '.', name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return fs.realpathSync(p);
    } catch { /* next */ }
  }
  return null;
}

// The shared libraries a binary loads (ldd), each as the path it is asked
// for and the file it resolves to: both are bound, read-only.
function libraries(binary) {
  const out = execFileSync('ldd', [binary], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
  const paths = new Set();
  for (const m of out.matchAll(/(\/[^\s:]+)\s+\(0x/g)) paths.add(m[1]);
  return [...paths];
}

let setup = null;
// Writes the runner and the bundle to a private directory (mode 0700, files
// read-only), finds the binaries, and works out the bind list once.
function prepare() {
  setup ??= (async () => {
    const bwrap = which('bwrap');
    const prlimit = which('prlimit');
    const node = fs.realpathSync(process.execPath);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'poslab-py-'));
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    const runner = path.join(dir, 'runner.cjs');
    const bundle = path.join(dir, 'runtime.js');
    fs.writeFileSync(runner, fs.readFileSync(path.join(here, 'py-runner.cjs')), { mode: 0o444 });
    fs.writeFileSync(bundle, await pythonWorkerSource(), { mode: 0o444 });
    fs.chmodSync(dir, 0o755);
    return { bwrap, prlimit, node, dir, runner, bundle };
  })();
  return setup;
}

let bindCache = null;
function binds(s) {
  if (bindCache) return bindCache;
  const args = [];
  const seen = new Set();
  const bind = (src, dest) => {
    if (seen.has(dest)) return;
    seen.add(dest);
    args.push('--ro-bind', src, dest);
  };
  for (const bin of [s.node, s.prlimit]) {
    bind(bin, bin);
    for (const lib of libraries(bin)) {
      const real = fs.realpathSync(lib);
      bind(real, real);
      bind(real, lib);
    }
  }
  bindCache = args;
  return args;
}

// The command line of one run: [file, args]. `files` are the scripts Node
// may read, bound at /sandbox/<basename>; the first one is run.
function command(s, { sandbox, files, args = [], cpuSeconds, limits = LIMITS, permission = true }) {
  const inside = (f) => (sandbox ? `${SANDBOX_DIR}/${path.basename(f)}` : f);
  const nodeArgs = [
    ...(permission ? ['--experimental-permission', ...files.map((f) => `--allow-fs-read=${inside(f)}`)] : []),
    '--disallow-code-generation-from-strings',
    `--max-old-space-size=${limits.heapMb}`,
    `--wasm-max-mem-pages=${limits.wasmPages}`,
    '--no-warnings',
    inside(files[0]),
    ...args.map((a) => (files.includes(a) ? inside(a) : a)),
  ];
  const rlimits = [
    `--cpu=${cpuSeconds}:${cpuSeconds + 1}`,
    `--as=${limits.addressSpaceBytes}`,
    '--fsize=0',
    `--nproc=${limits.processes}`,
    `--nofile=${limits.openFiles}`,
    '--core=0',
  ];
  if (!sandbox) return [s.prlimit, [...rlimits, '--', s.node, ...nodeArgs]];
  const bw = [
    '--unshare-all', '--die-with-parent', '--new-session', '--clearenv',
    '--uid', '65534', '--gid', '65534', '--cap-drop', 'ALL',
    '--tmpfs', '/', '--dir', '/tmp', '--dev', '/dev',
    ...binds(s),
    ...files.flatMap((f) => ['--ro-bind', f, inside(f)]),
    '--remount-ro', '/', '--tmpfs', '/tmp', '--chdir', SANDBOX_DIR,
    '--', s.prlimit, ...rlimits, '--', s.node, ...nodeArgs,
  ];
  return [s.bwrap, bw];
}

let statusPromise = null;
// {ok: true} when a sandboxed process starts and answers here; {ok: false,
// reason} (what is missing and what to do) otherwise. Checked once.
export function sandboxStatus() {
  statusPromise ??= (async () => {
    if (process.platform !== 'linux') return { ok: false, reason: `the sandbox needs Linux with bubblewrap (this is ${process.platform})` };
    const s = await prepare();
    if (!s.bwrap) return { ok: false, reason: 'bubblewrap (bwrap) is not installed: run scripts/install-deps.sh (Debian package bubblewrap)' };
    if (!s.prlimit) return { ok: false, reason: 'prlimit is not installed (Debian package util-linux)' };
    try {
      binds(s);
    } catch (e) {
      return { ok: false, reason: `could not list the node binary's libraries with ldd: ${e.message}` };
    }
    const r = await spawnRun({ s, sandbox: true, files: [s.runner, s.bundle], args: [s.bundle], input: JSON.stringify({ type: 'probe' }), timeLimitMs: 10000 });
    if (r.scope && typeof r.scope === 'object') return { ok: true };
    const why = String(r.message || r.status).slice(0, 400);
    if (/namespace|Operation not permitted|setting up uid map|No permissions/i.test(why)) {
      return { ok: false, reason: `bubblewrap cannot create user namespaces here (${why}); enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 or user.max_user_namespaces > 0)` };
    }
    return { ok: false, reason: `a sandboxed test run failed: ${why}` };
  })();
  return statusPromise;
}

function signalOf(code, signal) {
  if (signal) return signal;
  // bwrap reports a child killed by a signal as 128 + the signal's number.
  if (code > 128 && code < 160) return Object.keys(os.constants.signals).find((k) => os.constants.signals[k] === code - 128) ?? null;
  return null;
}

// Spawns one run and reads its answer. Resolves the runner's JSON, or
// {status: timeout | memory | crashed, message}.
function spawnRun({ s, sandbox, files, args, input, timeLimitMs, cpuSeconds, limits = LIMITS, permission = true }) {
  const cpu = cpuSeconds ?? Math.ceil(timeLimitMs / 1000) + limits.cpuExtraSeconds;
  const [file, argv] = command(s, { sandbox, files, args, cpuSeconds: cpu, limits, permission });
  return new Promise((resolve) => {
    const child = spawn(file, argv, { stdio: ['pipe', 'pipe', 'pipe'], detached: true, env: sandbox ? {} : { PATH: '/usr/bin:/bin' } });
    const out = [];
    let outBytes = 0;
    let err = '';
    let done = false;
    let verdict = null;
    let loadTimer = null;
    let timer = null;
    const started = performance.now();
    const kill = () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch { /* already gone */ }
    };
    const stop = (v) => {
      verdict ??= v;
      kill();
    };
    const finish = (r) => {
      if (done) return;
      done = true;
      clearTimeout(loadTimer);
      clearTimeout(timer);
      kill();
      resolve(r);
    };
    loadTimer = setTimeout(() => stop({ status: 'crashed', message: `the Python runtime did not start in ${LOAD_LIMIT_MS / 1000} s` }), LOAD_LIMIT_MS);
    const arm = () => {
      clearTimeout(loadTimer);
      timer = setTimeout(() => stop({ status: 'timeout', message: `stopped after ${timeLimitMs} ms` }), timeLimitMs);
    };
    child.stdout.on('data', (b) => {
      outBytes += b.length;
      if (outBytes > MAX_STDOUT) return stop({ status: 'crashed', message: `the run printed more than ${MAX_STDOUT} bytes on its answer channel` });
      out.push(b);
    });
    child.stderr.on('data', (b) => {
      if (err.length < MAX_STDERR) err += b.toString('utf8').slice(0, MAX_STDERR - err.length);
      if (!timer && /(^|\n)started\n/.test(err)) arm();
    });
    child.on('error', (e) => finish({ status: 'crashed', message: `the sandbox could not start: ${e.message}`, output: '' }));
    child.stdin.on('error', () => {});
    child.stdin.end(input);
    child.on('close', (code, sig) => {
      const wallMs = performance.now() - started;
      const signal = signalOf(code, sig);
      const errText = err.replace(/(^|\n)started\n/, '$1').trim();
      if (verdict) return finish({ ...verdict, output: '', wallMs });
      if (signal === 'SIGXCPU' || (signal === 'SIGKILL' && !verdict)) {
        return finish({ status: MEMORY_RE.test(errText) ? 'memory' : 'timeout', message: `stopped at the CPU time limit (${cpu} s)`, output: '', wallMs, signal });
      }
      const text = Buffer.concat(out).toString('utf8');
      if (code === 0 && text) {
        try {
          const r = JSON.parse(text);
          if (r && typeof r === 'object' && !Array.isArray(r)) {
            if (r.status === 'crashed' && MEMORY_RE.test(String(r.message))) r.status = 'memory';
            return finish({ output: '', ...r, wallMs });
          }
        } catch { /* below */ }
        return finish({ status: 'crashed', message: 'the run answered something that is not one JSON object', output: '', wallMs });
      }
      if (MEMORY_RE.test(errText)) return finish({ status: 'memory', message: 'the memory limit was reached', output: '', wallMs, signal });
      const why = errText.split('\n').filter((l) => l.trim()).slice(-3).join(' / ').slice(0, 500);
      return finish({ status: 'crashed', message: `the sandbox exited (${signal ?? code})${why ? `: ${why}` : ''}`, output: '', wallMs, signal, code });
    });
  });
}

let warned = false;
// One run of the student's code, in a fresh process. See the contract above.
export async function runPython({ code, fn, cases, timeLimitMs = 2000, probe = false, sandbox = true, limits = LIMITS }) {
  if (!probe) {
    if (typeof code !== 'string') throw new TypeError(`runPython: code must be a string (got ${typeof code})`);
    if (typeof fn !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]{0,99}$/.test(fn)) throw new TypeError('runPython: fn must be a Python function name (letters, digits, _)');
    if (!Array.isArray(cases) || !cases.every(Array.isArray)) throw new TypeError('runPython: cases must be an array of argument arrays');
  }
  if (!Number.isFinite(timeLimitMs) || timeLimitMs <= 0 || timeLimitMs > 600000) throw new RangeError(`runPython: timeLimitMs must be a number of milliseconds in (0, 600000] (got ${timeLimitMs})`);
  const s = await prepare();
  if (sandbox) {
    const st = await sandboxStatus();
    if (!st.ok) return { status: 'sandbox_unavailable', message: st.reason, output: '' };
  } else if (!s.prlimit) {
    return { status: 'sandbox_unavailable', message: 'prlimit is not installed (Debian package util-linux): even without the sandbox, runs need their resource limits', output: '' };
  } else if (!warned) {
    warned = true;
    process.emitWarning('Python runs WITHOUT the operating-system sandbox (sandbox: false): only for trusted code', { code: 'POSLAB_NO_SANDBOX' });
  }
  const input = JSON.stringify(probe ? { type: 'probe' } : { type: 'run', code, fn, cases });
  return spawnRun({ s, sandbox, files: [s.runner, s.bundle], args: [s.bundle], input, timeLimitMs, limits });
}

// Runs any script in the same sandbox (the tests' JavaScript payloads):
// `script` is a file path; `input` goes to its standard input. It prints
// "started" on standard error to start the wall clock (until then the load
// limit, 30 s, applies). {permission: false} leaves Node's permission model
// out, so that a test can check what the operating system alone stops.
export async function runSandboxedScript({ script, input = '', timeLimitMs = 5000, cpuSeconds, sandbox = true, permission = true, limits = LIMITS }) {
  const s = await prepare();
  if (sandbox) {
    const st = await sandboxStatus();
    if (!st.ok) return { status: 'sandbox_unavailable', message: st.reason, output: '' };
  }
  return spawnRun({ s, sandbox, files: [script], args: [], input, timeLimitMs, cpuSeconds, limits, permission });
}

// Many runs, at most `parallel` processes at once; results in the jobs' order.
export async function runPythonBatch(jobs, { parallel = os.availableParallelism() } = {}) {
  const results = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await runPython(jobs[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, jobs.length)) }, worker));
  return results;
}

// How the core grades a run's status (import_refused, unsupported): web/js/python/statuses.js.
export { asCoreStatus, NOT_AN_ATTEMPT } from '../web/js/python/statuses.js';
