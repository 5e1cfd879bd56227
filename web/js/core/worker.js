// The Web Worker: loads the core (a classic script) and answers requests, so
// heavy calls (the 1024-wall tables) do not block the page. Its first message,
// init, brings the page's compiled WebAssembly.Module (core-loader.js).
import { dispatch, errorRecord } from './core-dispatch.js';
import { loadGlue, workerLab } from './core-instantiate.js';

loadGlue(); // now, while the page compiles the wasm

let labPromise = null;

self.onmessage = async (event) => {
  const { id, request } = event.data;
  try {
    labPromise ??= workerLab(request.method === 'init' ? request.module : null);
    const lab = await labPromise;
    if (request.method === 'init') {
      self.postMessage({ id, ok: true, result: { version: lab.version, limits: lab.limits } });
      return;
    }
    self.postMessage({ id, ok: true, result: dispatch(lab, request) });
  } catch (e) {
    self.postMessage({ id, ok: false, error: errorRecord(e) });
  }
};
