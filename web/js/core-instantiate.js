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
// source) or is loaded from the server.
export function workerLab(module) {
  if (typeof self.createPositionLab !== 'function') importScripts('poslab-web.js');
  return createLab(self.createPositionLab, module);
}
