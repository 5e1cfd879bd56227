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

// Starts one of the page's Workers (worker.js, train-worker.js,
// table-worker.js) from the loaded code: posts init(module) with the compiled
// wasm and resolves with { worker, data } when its first message isReady;
// otherwise (an error first, a failure, or no word within startMs) it
// terminates the Worker and rejects, and the caller runs on the main thread.
export function startCoreWorker(code, file, { startMs = 15000, init, isReady, errorOf }) {
  return new Promise((resolve, reject) => {
    let worker;
    try {
      if (typeof Worker === 'undefined') throw new Error('no worker here');
      worker = code.worker(file);
    } catch (e) {
      reject(e);
      return;
    }
    const fail = (e) => {
      clearTimeout(timer);
      worker.terminate();
      reject(e);
    };
    const timer = setTimeout(() => fail(new Error(`${file} did not start`)), startMs);
    worker.onerror = (e) => {
      e.preventDefault?.();
      fail(new Error(`${file} failed`));
    };
    worker.onmessage = (event) => {
      clearTimeout(timer);
      worker.onerror = null;
      worker.onmessage = null;
      if (isReady(event.data)) resolve({ worker, data: event.data });
      else fail(new CoreError(errorOf(event.data)));
    };
    code.module.then((module) => worker.postMessage(init(module)), fail);
  });
}

export async function createCore() {
  const code = await loadCoreCode();
  try {
    const { worker, data } = await startCoreWorker(code, 'worker.js', {
      init: (module) => ({ id: 0, request: { method: 'init', module } }),
      isReady: (d) => d.ok,
      errorOf: (d) => d.error,
    });
    const info = data.result;
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
