// The operating-system sandbox of the re-grade (scripts/py-sandbox.mjs),
// tested directly with JavaScript payloads run inside the sandboxed process
// (bypassing Python and its harness): what a payload that escaped MicroPython
// could do there. Each check runs twice where it matters: with Node's
// permission model (as every re-run does) and without it, so that the
// operating system's part (bubblewrap, prlimit) is shown to hold on its own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runSandboxedScript, sandboxStatus, runPython } from '../../scripts/py-sandbox.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let dir;
let script;

// The payload: reads one action from standard input, does it, answers
// {ok, code?, value?} as JSON on standard output.
const PAYLOAD = String.raw`
'use strict';
const fs = require('node:fs');
const out = (o) => { fs.writeSync(1, JSON.stringify(o)); process.reallyExit(0); };
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
fs.writeSync(2, 'started\n');
const attempt = (f) => { try { const v = f(); if (v && typeof v.then === 'function') { v.then((x) => out({ ok: true, value: String(x).slice(0, 200) }), (e) => out({ ok: false, code: e.code || e.name, message: e.message })); return; } out({ ok: true, value: String(v).slice(0, 200) }); } catch (e) { out({ ok: false, code: e.code || e.name, message: e.message }); } };
switch (input.action) {
  case 'read': attempt(() => fs.readFileSync(input.path, 'utf8')); break;
  case 'list': attempt(() => fs.readdirSync(input.path).join(',')); break;
  case 'write': attempt(() => { fs.writeFileSync(input.path, 'x'.repeat(10)); return fs.statSync(input.path).size; }); break;
  case 'spawn': attempt(() => require('node:child_process').execFileSync(input.path, input.args || [], { encoding: 'utf8' })); break;
  case 'worker': attempt(() => { new (require('node:worker_threads').Worker)('1', { eval: true }); return 'worker'; }); break;
  case 'connect': attempt(() => new Promise((resolve, reject) => {
    const s = require('node:net').connect(input.port, input.host, () => { s.end(); resolve('connected'); });
    s.on('error', reject);
    setTimeout(() => reject(Object.assign(new Error('no answer'), { code: 'TIMEOUT' })), 2000);
  })); break;
  case 'env': out({ ok: true, value: JSON.stringify(process.env) + ' uid=' + process.getuid() }); break;
  case 'spin': for (;;) {} // eslint-disable-line no-empty
  case 'sleep': Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000); out({ ok: true }); break;
  case 'heap': { const keep = []; for (;;) keep.push(new Array(1e5).fill(Math.random())); }
  case 'buffer': attempt(() => { const keep = []; for (;;) keep.push(new ArrayBuffer(256 << 20)); }); break;
  case 'flood': { const line = 'y'.repeat(1 << 16); for (;;) fs.writeSync(1, line); }
  default: out({ ok: false, code: 'unknown action' });
}
`;

let available = { ok: false, reason: 'not checked' };
before(async () => {
  available = await sandboxStatus();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'poslab-sbx-test-'));
  script = path.join(dir, 'payload.cjs');
  fs.writeFileSync(script, PAYLOAD);
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const run = (action, extra = {}, opts = {}) => runSandboxedScript({ script, input: JSON.stringify({ action, ...extra }), timeLimitMs: 10000, ...opts });
const answer = (r) => {
  assert.equal(r.status, undefined, `the payload was stopped: ${JSON.stringify(r).slice(0, 300)}`);
  return r;
};

test('bubblewrap runs here (on a machine without it the sandbox says why and refuses)', () => {
  assert.equal(available.ok, true, available.reason);
});

test('without bubblewrap, the sandbox says why and runPython refuses to run the code', async () => {
  const { execFileSync } = await import('node:child_process');
  const probe = `import('${path.join(root, 'scripts/py-sandbox.mjs')}').then(async (m) => {
    const st = await m.sandboxStatus();
    const r = await m.runPython({ code: 'def f():\\n  return 1\\n', fn: 'f', cases: [[]] });
    console.log(JSON.stringify({ st, r }));
  });`;
  // A PATH where neither bwrap nor prlimit can be found.
  const out = execFileSync(process.execPath, ['--no-warnings', '-e', probe], { env: { PATH: dir }, encoding: 'utf8' });
  const { st, r } = JSON.parse(out.trim().split('\n').at(-1));
  assert.deepEqual(st, { ok: false, reason: 'bubblewrap (bwrap) is not installed: run scripts/install-deps.sh (Debian package bubblewrap)' });
  assert.deepEqual(r, { status: 'sandbox_unavailable', message: st.reason, output: '' });
});

test('only the bound files are visible: not the project tree, not /etc/passwd, not /home or /root', async () => {
  for (const permission of [true, false]) {
    for (const p of [path.join(root, 'package.json'), '/etc/passwd', '/root', '/home', root]) {
      const r = answer(await run(p.endsWith('.json') || p === '/etc/passwd' ? 'read' : 'list', { path: p }, { permission }));
      assert.equal(r.ok, false, `${p} was readable (permission model ${permission})`);
      assert.ok(permission ? r.code === 'ERR_ACCESS_DENIED' : r.code === 'ENOENT', `${p}: ${r.code}`);
    }
  }
  // What is there: an empty root with the runtime's files only.
  const listing = answer(await run('list', { path: '/' }, { permission: false }));
  assert.equal(listing.ok, true);
  assert.deepEqual(listing.value.split(',').sort(), ['dev', 'lib', 'lib64', 'sandbox', 'tmp', 'usr'].filter((d) => listing.value.split(',').includes(d)).sort());
  assert.ok(!listing.value.split(',').includes('etc') && !listing.value.split(',').includes('home') && !listing.value.split(',').includes('work'), listing.value);
});

test('no environment, an unprivileged uid', async () => {
  const r = answer(await run('env', {}, { permission: false }));
  assert.equal(r.value, '{"PWD":"/sandbox"} uid=65534');
});

test('nothing can be written: the permission model refuses, and without it the file size limit is 0 and the rest is read-only', async () => {
  const r = answer(await run('write', { path: '/tmp/marker' }));
  assert.equal(r.code, 'ERR_ACCESS_DENIED');
  const ro = answer(await run('write', { path: '/sandbox/marker' }, { permission: false }));
  assert.equal(ro.ok, false);
  assert.equal(ro.code, 'EROFS');
  // The private /tmp is writable by the file system but RLIMIT_FSIZE = 0:
  // the first byte kills the process (SIGXFSZ) or fails (EFBIG).
  const tmp = await run('write', { path: '/tmp/marker' }, { permission: false });
  assert.ok(tmp.status === 'crashed' ? /SIGXFSZ/.test(tmp.message) : tmp.code === 'EFBIG', JSON.stringify(tmp));
});

test('no network: a server on this machine\'s loopback is not reachable, nor any other address', async () => {
  let contacted = 0;
  const server = net.createServer((s) => {
    contacted += 1;
    s.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  try {
    for (const permission of [true, false]) {
      const local = answer(await run('connect', { host: '127.0.0.1', port }, { permission }));
      assert.equal(local.ok, false);
      assert.match(local.code, /ECONNREFUSED|ENETUNREACH/);
      const far = answer(await run('connect', { host: '192.0.2.1', port: 80 }, { permission }));
      assert.equal(far.ok, false);
      assert.match(far.code, /ENETUNREACH|EACCES|EPERM/);
    }
  } finally {
    server.close();
  }
  assert.equal(contacted, 0);
});

test('no child processes and no workers', async () => {
  const sh = answer(await run('spawn', { path: '/bin/sh', args: ['-c', 'id'] }));
  assert.equal(sh.code, 'ERR_ACCESS_DENIED');
  const w = answer(await run('worker'));
  assert.equal(w.code, 'ERR_ACCESS_DENIED');
  // Without the permission model: there is no shell or any other program to run.
  const none = answer(await run('spawn', { path: '/bin/sh', args: ['-c', 'id'] }, { permission: false }));
  assert.equal(none.code, 'ENOENT');
});

test('stopped at the wall-clock limit (a sleeping process) and at the CPU limit (a spinning one)', async () => {
  const t0 = performance.now();
  const sleep = await run('sleep', {}, { timeLimitMs: 400 });
  assert.equal(sleep.status, 'timeout');
  assert.match(sleep.message, /stopped after 400 ms/);
  assert.ok(performance.now() - t0 < 30000);
  // A CPU limit of 1 s with a wall limit far away: the kernel stops it.
  const spin = await run('spin', {}, { timeLimitMs: 60000, cpuSeconds: 1 });
  assert.equal(spin.status, 'timeout');
  assert.match(spin.message, /CPU time limit/);
  assert.ok(['SIGXCPU', 'SIGKILL'].includes(spin.signal), spin.signal);
});

test('a memory bomb is reported as memory (JavaScript heap and ArrayBuffers)', async () => {
  const heap = await run('heap', {}, { timeLimitMs: 60000 });
  assert.equal(heap.status, 'memory', JSON.stringify(heap).slice(0, 300));
  const buffers = await run('buffer', {}, { timeLimitMs: 60000 });
  // An allocation the address-space limit refuses: a RangeError the payload sees, or a fatal error.
  assert.ok(buffers.status === 'memory' || (buffers.ok === false && /RangeError|ERR_MEMORY_ALLOCATION_FAILED/.test(buffers.code)), JSON.stringify(buffers).slice(0, 300));
});

test('the answer channel is capped: a flood of output is cut and reported', async () => {
  const r = await run('flood', {}, { timeLimitMs: 20000 });
  assert.equal(r.status, 'crashed');
  assert.match(r.message, /printed more than \d+ bytes/);
});

test('a Python memory bomb ends as memory, not as a timeout', async () => {
  // 10 MiB at a time: past the WebAssembly memory limit (256 MiB) MicroPython raises MemoryError.
  const r = await runPython({ code: 'def f():\n  x = []\n  while True:\n    x.append(bytearray(10 << 20))\n', fn: 'f', cases: [[]], timeLimitMs: 30000 });
  assert.equal(r.status, 'memory', JSON.stringify(r).slice(0, 300));
  assert.equal(r.results[0].error, 'MemoryError');
});
