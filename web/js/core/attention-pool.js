// The Workers the wall's GPT-2-shape attention is spread over
// (attention-split.js): the page's own core and, started on first use and
// kept for the page's life, count - 1 more copies of the core's Worker
// (worker.js: from http, a new Worker; from file://, the blob: Worker that
// core-loader.js makes), each given the page's compiled wasm. A Worker that
// will not start is left out (fewer shares, same numbers); with none, the
// page's core alone does the whole forward.
import { CoreError, startCoreWorker } from './core-client.js';
import { loadCoreCode } from './core-loader.js';

const extra = []; // started helpers, in order: Promise<core | null>

function startHelper() {
  return (async () => {
    const code = await loadCoreCode();
    const { worker } = await startCoreWorker(code, 'worker.js', {
      init: (module) => ({ id: 0, request: { method: 'init', module } }),
      isReady: (d) => d.ok,
      errorOf: (d) => d.error,
    });
    let next = 1;
    const pending = new Map();
    worker.onmessage = (event) => {
      const { id, ok, result, error } = event.data;
      const p = pending.get(id);
      if (!p) return;
      pending.delete(id);
      ok ? p.resolve(result) : p.reject(new CoreError(error));
    };
    worker.onerror = (e) => {
      e.preventDefault?.();
      for (const p of pending.values()) p.reject(new Error('an attention Worker failed'));
      pending.clear();
    };
    return {
      call: (method, args, select) =>
        new Promise((resolve, reject) => {
          const id = next++;
          pending.set(id, { resolve, reject });
          worker.postMessage({ id, request: { method, args, select } });
        }),
    };
  })().catch(() => null);
}

// [core, …helpers]: up to count cores, the page's own first. Only a page
// whose core runs in a Worker gets helpers (on the main thread, the forward
// stays one call: the page would wait for it either way).
export async function attentionCores(core, count) {
  if (count < 2 || core.mode !== 'worker') return [core];
  while (extra.length < count - 1) extra.push(startHelper());
  const helpers = (await Promise.all(extra.slice(0, count - 1))).filter(Boolean);
  return [core, ...helpers];
}
