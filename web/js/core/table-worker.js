// The position-table Web Worker: reads a model file the student opened
// (table-read.js: only the header and the chosen tensor, with File.slice) and
// computes the table's figures in the core, so a large file or a slow PCA
// never freezes the page. Messages in: {type: 'init', module}, {type: 'read',
// id, file, tensor}, {type: 'summary', id, args}, {type: 'train', id, args}. Out: {type: 'ready'}, then
// per job {id, type: 'progress', progress} (reads: what is being computed), then {id, type: 'result', result} or {id, type: 'error', error: {message, code, params}}.
import { readTable, summarise, trainTable } from './table-read.js';
import { errorRecord } from './core-dispatch.js';
import { loadGlue, workerLab } from './core-instantiate.js';

loadGlue();

let labPromise = null;
function core(module = null) {
  labPromise ??= workerLab(module);
  return labPromise;
}

let queue = Promise.resolve();
self.onmessage = (event) => {
  const m = event.data;
  if (m.type === 'init') {
    core(m.module).then(
      () => self.postMessage({ type: 'ready' }),
      (e) => self.postMessage({ type: 'error', error: errorRecord(e) }),
    );
    return;
  }
  queue = queue.then(async () => {
    try {
      const lab = await core();
      const progress = (p) => self.postMessage({ id: m.id, type: 'progress', progress: p });
      const result = m.type === 'read' ? await readTable(lab, m.file, m.tensor, m.options, progress) : m.type === 'train' ? await trainTable(lab, m.args) : summarise(lab, m.args);
      self.postMessage({ id: m.id, type: 'result', result });
    } catch (e) {
      self.postMessage({ id: m.id, type: 'error', error: errorRecord(e) });
    }
  });
};
