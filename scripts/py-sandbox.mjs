// Runs a student's Python function in Node, as the page does in the browser:
// the same MicroPython wasm bundle (scripts/build-python.mjs), in a
// worker_threads Worker with resource limits, a time limit, no environment
// variables, no file system (process, require and module are removed before
// the bundle runs, and it is given no fs), and no network (the bundle
// deletes fetch, WebSocket, … from its scope before MicroPython loads).
import { Worker } from 'node:worker_threads';
import { buildPythonWorker } from './build-python.mjs';

let sourcePromise = null;
export function pythonWorkerSource() {
  if (!sourcePromise) sourcePromise = buildPythonWorker();
  return sourcePromise;
}

// Runs in the Worker before the bundle: a worker-like scope, then nothing of Node's.
const BOOTSTRAP = `
const { parentPort, workerData } = require('node:worker_threads');
const port = parentPort;
globalThis.postMessage = (m) => port.postMessage(m);
globalThis.WorkerGlobalScope = function WorkerGlobalScope() {};
globalThis.self = globalThis;
port.on('message', (m) => { const h = globalThis.onmessage; if (typeof h === 'function') h({ data: m }); });
const source = workerData.source;
(0, eval)(source);
`;

export const DEFAULT_LIMITS = { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16, codeRangeSizeMb: 16, stackSizeMb: 4 };

// One run in a fresh Worker: resolves {status, results?, message?, output, …};
// status 'timeout' when the limit passed (the Worker is terminated), 'memory'
// when the Worker hit its heap limit, 'crashed' for any other failure.
export async function runPython({ code, fn, cases, timeLimitMs = 2000, probe = false, limits = DEFAULT_LIMITS }) {
  const source = await pythonWorkerSource();
  return new Promise((resolve) => {
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      workerData: { source },
      resourceLimits: limits,
      env: {},
      argv: [],
      execArgv: [],
      stdout: true,
      stderr: true,
    });
    let timer = null;
    let done = false;
    const finish = (r) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      worker.terminate();
      resolve(r);
    };
    // The clock starts once MicroPython has loaded (as in the page): the limit is the student's code's.
    const arm = () => {
      timer = setTimeout(() => finish({ status: 'timeout', message: `stopped after ${timeLimitMs} ms`, output: '' }), timeLimitMs);
    };
    const loadTimer = setTimeout(() => finish({ status: 'crashed', message: 'the Python runtime did not start in 30 s', output: '' }), 30000);
    worker.on('message', (m) => {
      if (m.type === 'started') {
        clearTimeout(loadTimer);
        arm();
      } else if (m.type === 'probe' || m.type === 'result') {
        clearTimeout(loadTimer);
        const { type, ...rest } = m;
        finish(type === 'probe' ? rest : rest);
      }
    });
    worker.on('error', (e) => {
      clearTimeout(loadTimer);
      const memory = e && (e.code === 'ERR_WORKER_OUT_OF_MEMORY' || /memory/i.test(String(e.message)));
      finish({ status: memory ? 'memory' : 'crashed', message: String((e && e.message) || e).slice(0, 500), output: '' });
    });
    worker.on('exit', (c) => {
      clearTimeout(loadTimer);
      finish({ status: 'crashed', message: `the sandbox exited (${c})`, output: '' });
    });
    worker.postMessage(probe ? { type: 'probe' } : { type: 'run', code, fn, cases });
  });
}
