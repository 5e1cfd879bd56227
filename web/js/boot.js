// Runs before app.js (index.html): over http, starts downloading and
// compiling the wasm at once, in parallel with app.js's download
// (core-loader.js picks the promise up). From file:// it does nothing: the
// page loads poslab.js, the wasm inlined, instead.
import { compileServed } from './core-instantiate.js';

if (location.protocol !== 'file:' && typeof WebAssembly === 'object') {
  const compiling = compileServed();
  compiling.catch(() => {}); // core-loader.js reports a failure, in the page's language
  globalThis.__poslabWasm = compiling;
}
