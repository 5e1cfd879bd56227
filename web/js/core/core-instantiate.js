// Starts the core from a factory (createPositionLab) and, when the page has
// already compiled the wasm, from that WebAssembly.Module: instantiating a
// compiled module is quick, so the wasm is downloaded and compiled once per
// page however many Workers use it. Shared by the page and its Workers.
export function createLab(factory, module) {
  if (!module) {
    // The glue finds its wasm itself: served, poslab.wasm beside it; poslab.js has it inlined.
    return factory({ locateFile: (path) => (path.endsWith('.wasm') ? 'poslab.wasm' : path) });
  }
  let fail;
  const failed = new Promise((_, reject) => {
    fail = reject;
  });
  const ready = factory({
    instantiateWasm(imports, receive) {
      WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module), fail);
      return {}; // the exports arrive later, through receive
    },
  });
  return Promise.race([ready, failed]);
}

// In a Worker: the glue is there already (a blob: Worker carries it in its
// source) or is loaded from the server. Workers call this as they start, so
// the glue downloads while the page still compiles the wasm.
export function loadGlue() {
  if (typeof self.createPositionLab !== 'function') importScripts('poslab-web.js');
}

export function workerLab(module) {
  loadGlue();
  return createLab(self.createPositionLab, module);
}

// Served over http: poslab.wasm, compiled while it downloads.
export async function compileServed() {
  if (WebAssembly.compileStreaming) {
    try {
      return await WebAssembly.compileStreaming(fetch('poslab.wasm'));
    } catch {
      // e.g. a server that does not say application/wasm: compile from the bytes instead.
    }
  }
  const response = await fetch('poslab.wasm');
  if (!response.ok) throw new Error(`poslab.wasm: HTTP ${response.status}`);
  return WebAssembly.compile(await response.arrayBuffer());
}
