// The page's handle on the core. Runs it in a Web Worker, over http and from
// file:// alike (core-loader.js says how); when the browser refuses a Worker
// or it fails to start, runs the same calls on the main thread. Every call
// returns a Promise; a core error arrives as an Error with .code and .params
// (the page translates known codes).
import { dispatch, errorRecord } from './core-dispatch.js';
import { loadCoreCode } from './core-loader.js';

export class CoreError extends Error {
  constructor(record) {
    super(record.message);
    this.name = 'CoreError';
    this.code = record.code;
    this.params = record.params || {};
  }
}

function startWorker(code, timeoutMs) {
  return new Promise((resolve, reject) => {
    let worker;
    try {
      if (typeof Worker === 'undefined') throw new Error('no worker here');
      worker = code.worker('worker.js');
    } catch (e) {
      reject(e);
      return;
    }
    const timer = setTimeout(() => {
      worker.terminate();
      reject(new Error('worker did not start'));
    }, timeoutMs);
    worker.onerror = (e) => {
      clearTimeout(timer);
      e.preventDefault?.();
      worker.terminate();
      reject(new Error('worker failed'));
    };
    worker.onmessage = (event) => {
      clearTimeout(timer);
      if (event.data.ok) resolve({ worker, info: event.data.result });
      else {
        worker.terminate();
        reject(new CoreError(event.data.error));
      }
    };
    code.module.then(
      (module) => worker.postMessage({ id: 0, request: { method: 'init', module } }),
      (e) => {
        clearTimeout(timer);
        worker.terminate();
        reject(e);
      },
    );
  });
}

export async function createCore() {
  const code = await loadCoreCode();
  try {
    const { worker, info } = await startWorker(code, 15000);
    let next = 1;
    const pending = new Map();
    worker.onmessage = (event) => {
      const { id, ok, result, error } = event.data;
      const p = pending.get(id);
      if (!p) return;
      pending.delete(id);
      ok ? p.resolve(result) : p.reject(new CoreError(error));
    };
    worker.onerror = null;
    const request = (req) =>
      new Promise((resolve, reject) => {
        const id = next++;
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, request: req });
      });
    return makeCore('worker', info, request);
  } catch {
    // Fall through to the main thread.
  }
  const lab = await code.lab();
  const request = async (req) => {
    try {
      return dispatch(lab, req);
    } catch (e) {
      throw new CoreError(errorRecord(e));
    }
  };
  return makeCore('main', { version: lab.version, limits: lab.limits }, request, lab);
}

// lab: the module itself when it runs on the main thread (the training
// fallback in trainer.js reuses it rather than loading a second copy).
function makeCore(mode, info, request, lab = null) {
  return {
    mode,
    lab,
    version: info.version,
    limits: info.limits,
    call: (method, args, select) => request({ method, args, select }),
    // Each entry: { ok, result } or { ok: false, error: CoreError }.
    batch: async (calls) => (await request({ method: 'batch', args: calls })).map((r) => (r.ok ? r : { ok: false, error: new CoreError(r.error) })),
  };
}
