// The page's side of position tables: one dedicated Worker (table-worker.js,
// from file:// too: core-loader.js) that reads model files and computes the
// figures; when the browser refuses a Worker, the same code on the main thread.
//   openTableFile(file, tensor?, options?, onProgress?) → readTable's result (table-read.js)
//   tableSummary(args)                     → the figures of a table the page has
//   trainedTable(args)                     → a tiny model's trained table (once per page)
// Failures reject with a CoreError (code, params) for errorBox.
import { CoreError, startCoreWorker } from './core-client.js';
import { loadCoreCode } from './core-loader.js';
import { readTable, summarise, trainTable } from './table-read.js';

const START_MS = 15000;
let worker = null; // Promise of { w, pending } or null
let mainLab = null;
let nextId = 1;

async function startWorker(code) {
  const options = { startMs: START_MS, init: (module) => ({ type: 'init', module }), isReady: (m) => m.type === 'ready', errorOf: (m) => m.error };
  const { worker: w } = await startCoreWorker(code, 'table-worker.js', options);
  const pending = new Map();
  w.onmessage = (event) => {
    const m = event.data;
    const job = pending.get(m.id);
    if (!job) return;
    if (m.type === 'progress') {
      job.onProgress?.(m.progress);
      return;
    }
    pending.delete(m.id);
    if (m.type === 'result') job.resolve(m.result);
    else job.reject(new CoreError(m.error));
  };
  return { w, pending };
}

function getWorker() {
  worker ??= loadCoreCode()
    .then(startWorker)
    .catch(() => null);
  return worker;
}

async function run(message, onMain, onProgress = null) {
  const ready = await getWorker();
  if (ready) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      ready.pending.set(id, { resolve, reject, onProgress });
      ready.w.postMessage({ ...message, id });
    });
  }
  mainLab ??= loadCoreCode().then((code) => code.lab());
  try {
    return await onMain(await mainLab);
  } catch (e) {
    throw e instanceof CoreError ? e : new CoreError({ message: e.message, code: e.code || 'error', params: e.params || {} });
  }
}

// onProgress(p): what is being computed once the bytes are read (table-read.js).
export function openTableFile(file, tensor = '', options = {}, onProgress = null) {
  return run({ type: 'read', file, tensor, options }, (lab) => readTable(lab, file, tensor, options, onProgress), onProgress);
}

export function tableSummary(args) {
  return run({ type: 'summary', args }, (lab) => summarise(lab, args));
}

// The tiny trained table (table-read.js trainTable), trained once per page load.
let trained = null;
export function trainedTable(args = {}) {
  trained ??= run({ type: 'train', args }, (lab) => trainTable(lab, args, () => new Promise((ok) => setTimeout(ok, 0)))).catch((e) => {
    trained = null;
    throw e;
  });
  return trained;
}
