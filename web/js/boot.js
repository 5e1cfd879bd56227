// Runs before app.js (index.html): over http, starts downloading and
// compiling the wasm at once, and starts the core's Worker (which loads the
// small glue meanwhile), all in parallel with app.js's download;
// core/core-loader.js picks both up. From file:// it does nothing: the page loads
// poslab.js, the wasm inlined, and makes its Workers from blob: URLs.
import { compileServed } from './core/core-instantiate.js';

if (location.protocol !== 'file:' && typeof WebAssembly === 'object') {
  const compiling = compileServed();
  compiling.catch(() => {}); // core/core-loader.js reports a failure, in the page's language
  globalThis.__poslabWasm = compiling;
  try {
    const worker = new Worker('worker.js');
    worker.addEventListener('error', () => {
      worker.failedEarly = true;
    });
    globalThis.__poslabWorker = worker;
  } catch {
    // core/core-loader.js tries again, then falls back to the main thread
  }
}
