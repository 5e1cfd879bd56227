'use strict';
// The process that runs one student's Python, inside the sandbox of
// scripts/py-sandbox.mjs (bubblewrap, resource limits, Node's permission
// model: it may read this file and the runtime bundle, nothing else; no
// child processes, no workers, no writes, no eval).
//
// Protocol: standard input carries one JSON request, {type: 'run', code, fn,
// cases} or {type: 'probe'}; standard output carries one JSON answer and
// nothing else. One line "started" goes to standard error once MicroPython
// is loaded (the parent's clock for the student's time limit starts there).
//
// It gives the bundle (web/js/python/py-worker.js, built by
// scripts/build-python.mjs) the worker-like scope it expects, then the
// bundle removes everything of Node's (process, require, Buffer, …) from
// the scope before MicroPython loads. What this file needs afterwards it
// keeps here, in its own function scope.
const fs = require('node:fs');
const vm = require('node:vm');

const writeSync = fs.writeSync;
const exit = process.reallyExit.bind(process);
const bundlePath = process.argv[2];

let answered = false;
function reply(obj) {
  if (answered) return;
  answered = true;
  let text;
  try {
    text = JSON.stringify(obj);
  } catch (e) {
    text = JSON.stringify({ status: 'crashed', message: `the answer could not be written: ${e && e.message}` });
  }
  const buf = new TextEncoder().encode(text);
  let off = 0;
  while (off < buf.length) off += writeSync(1, buf, off, buf.length - off);
  exit(0);
}

let request;
try {
  request = JSON.parse(fs.readFileSync(0, 'utf8'));
} catch (e) {
  reply({ status: 'crashed', message: `the request on standard input is not JSON: ${e && e.message}` });
}

// Standard output is the answer channel: anything the runtime logs goes to
// standard error instead (the parent keeps a bounded part of it).
for (const name of ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir']) {
  console[name] = (...parts) => {
    try {
      writeSync(2, `${parts.map(String).join(' ').slice(0, 2000)}\n`);
    } catch { /* standard error closed: nothing to tell */ }
  };
}

globalThis.WorkerGlobalScope = function WorkerGlobalScope() {};
globalThis.self = globalThis;
globalThis.postMessage = (m) => {
  if (!m || typeof m !== 'object') return;
  if (m.type === 'started') writeSync(2, 'started\n');
  else if (m.type === 'result' || m.type === 'probe') {
    const { type, ...rest } = m;
    reply(rest);
  }
};

try {
  const source = fs.readFileSync(bundlePath, 'utf8');
  vm.runInThisContext(source, { filename: 'py-runtime.js' });
} catch (e) {
  reply({ status: 'crashed', message: `the Python runtime did not load: ${String((e && e.message) || e).slice(0, 500)}` });
}
const handler = globalThis.onmessage;
if (typeof handler !== 'function') reply({ status: 'crashed', message: 'the Python runtime did not start' });
else handler({ data: request });
