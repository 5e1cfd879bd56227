// Where the page gets the core's code, once per page load, and how its
// Workers are made:
// - served over http(s): the wasm is the separate poslab.wasm, compiled with
//   WebAssembly.compileStreaming (the server sends application/wasm) from
//   the moment boot.js runs, in parallel with app.js, and handed to each
//   Worker as a WebAssembly.Module; the Workers load only the small glue,
//   poslab-web.js (the core's Worker, started by boot.js too, meanwhile).
//   So the wasm is downloaded and compiled once.
// - opened from file://: a Worker cannot load a file, so each is made from a
//   blob: URL whose source is the glue's own source text (poslab.js, loaded
//   here as a classic script, the wasm inlined) followed by the Worker's code
//   (built into app.js as text). The inlined wasm is compiled here once and
//   handed over the same way. Running plain text needs `worker-src blob:` in
//   the CSP, not unsafe-eval.
// A server that does not hand out poslab.wasm gets the file:// way. Every
// part may fail (a browser that refuses blob: Workers, say): the page then
// runs the core on the main thread (core-client.js, trainer.js).
// loadCoreCode() gives { module: Promise<WebAssembly.Module | null>,
// worker(file), lab() }.
/* global __WORKER_SOURCES__ */
import { createLab, compileServed } from './core-instantiate.js';

const WORKER_SOURCES = typeof __WORKER_SOURCES__ !== 'undefined' ? __WORKER_SOURCES__ : {};

let loaded = null;

export function loadCoreCode() {
  loaded ??= location.protocol === 'file:' ? fromFile() : fromServer();
  return loaded;
}

function addScript(src) {
  return new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.src = src;
    s.onload = () => resolve();
    s.onerror = () => reject(new Error(`${src} did not load`));
    document.head.append(s);
  });
}

function factoryOrThrow(file) {
  if (typeof globalThis.createPositionLab !== 'function') throw new Error(`${file} did not load`);
  return globalThis.createPositionLab;
}

async function fromServer() {
  const compiling = globalThis.__poslabWasm ?? compileServed(); // boot.js started it
  try {
    await compiling;
  } catch {
    // A server that will not hand out poslab.wasm (some LMSs refuse unknown
    // file types): poslab.js has the wasm inlined, as from file://.
    globalThis.__poslabWorker?.terminate();
    globalThis.__poslabWorker = null;
    return fromFile();
  }
  const module = compiling;
  let glue = null;
  return {
    module,
    worker: (file) => {
      const early = file === 'worker.js' ? globalThis.__poslabWorker : null; // boot.js started it
      globalThis.__poslabWorker = null;
      if (early && !early.failedEarly) return early;
      return new Worker(file);
    },
    // The main-thread fallback: the glue, loaded only when needed.
    lab: async () => {
      glue ??= addScript('poslab-web.js');
      await glue;
      return createLab(factoryOrThrow('poslab-web.js'), await module);
    },
  };
}

async function fromFile() {
  await addScript('poslab.js');
  const factory = factoryOrThrow('poslab.js');
  let module = null;
  try {
    const bytes = factory.inlinedWasm();
    if (bytes) module = await WebAssembly.compile(bytes);
  } catch {
    module = null; // each Worker then compiles the inlined wasm itself
  }
  module = Promise.resolve(module);
  let glue = null;
  const urls = new Map();
  return {
    module,
    worker: (file) => {
      if (!WORKER_SOURCES[file]) throw new Error(`no built-in source for ${file}`);
      if (!urls.has(file)) {
        glue ??= new Blob([factory.scriptSource()], { type: 'text/javascript' });
        urls.set(file, URL.createObjectURL(new Blob([glue, WORKER_SOURCES[file]], { type: 'text/javascript' })));
      }
      return new Worker(urls.get(file));
    },
    lab: async () => createLab(factory, await module),
  };
}
