// Reading a position table out of a model file the student picked, with only
// the bytes needed: the first bytes (format, header length; an .npy header),
// the safetensors JSON header, then the chosen tensor's bytes (File.slice) —
// a 550 MB model.safetensors is never read whole. The core checks every part
// (table_bindings.cpp). Runs in the table Worker (table-worker.js), or on the
// main thread when no Worker can start.
//   listTable(lab, file, tensor?) → { format, tensors, suggested, picked }
//   readTable(lab, file, tensor?) → the same + { summary } (summary null when
//   nothing could be picked: the page lists the 2-D tensors to choose from).
async function bytesOf(blob) {
  return new Uint8Array(await blob.arrayBuffer());
}

async function header(lab, file) {
  const size = file.size;
  const first = await bytesOf(file.slice(0, Math.min(size, lab.limits.npyPrefixBytes)));
  const format = lab.tableFormat(first);
  if (format === 'npy') return { format, header: first, size };
  const n = lab.safetensorsHeaderLength({ bytes: first.subarray(0, 8), fileSize: size });
  return { format, header: await bytesOf(file.slice(8, 8 + n)), size };
}

// onProgress({ stage: 'analyze', rows, cols, heatmapRows, distances, pcaRows, eigenSteps }):
// said once the bytes are read, before the figures (a 4096 × 4096 table takes
// seconds): what will be computed, and on how many rows.
export async function readTable(lab, file, tensor = '', options = {}, onProgress = null) {
  const started = performance.now();
  const h = await header(lab, file);
  const args = { format: h.format, header: h.header, fileSize: h.size };
  if (tensor) args.tensor = tensor;
  const listing = lab.tableTensors(args);
  const out = { format: h.format, tensors: listing.tensors, suggested: listing.suggested, picked: listing.picked, summary: null };
  if (!listing.picked) return out;
  const t = listing.picked;
  const bytes = await bytesOf(file.slice(t.begin, t.end));
  const read = performance.now();
  if (h.format === 'safetensors') args.tensor = t.name;
  if (onProgress && t.shape.length === 2) {
    try {
      const plan = lab.tablePlan({ rows: t.shape[0], cols: t.shape[1], ...planOptions(options) });
      onProgress({ stage: 'analyze', rows: t.shape[0], cols: t.shape[1], ...plan });
    } catch {
      // A shape the analysis refuses: tableAnalyze says why, below.
    }
  }
  try {
    out.summary = lab.tableAnalyze({ ...args, bytes, ...options });
    // How long the bytes took to read, and the decode + figures (bench/tables.mjs).
    out.timing = { readMs: read - started, analyzeMs: performance.now() - read };
  } catch (e) {
    // The listing stays usable (the page offers the other tensors).
    out.error = { message: e.message, code: e.code || 'error', params: e.params || {} };
  }
  return out;
}

function planOptions(options) {
  const out = {};
  for (const k of ['components', 'maxDistance', 'maxHeatmapRows']) if (options[k] !== undefined) out[k] = options[k];
  return out;
}

// A table the page already has, or sinusoidal's at a shape: { rows, cols, data | scheme }.
export function summarise(lab, args) {
  return lab.tableSummary(args);
}

// A table that was actually learned: the learned position table of a tiny
// model trained on "train short, test long"'s counting task (the same core
// code as that exercise), with its figures. steps Adam steps from seed. Sized
// to take a few seconds (about 7 s on a busy 2-core machine): one layer,
// sequences of up to 2·8 + 1 positions, 50 rows (the test lengths' 2·24 + 2),
// so rows 17 … 49 never get a gradient and stay as initialised.
export const TRAIN_TABLE = { steps: 200, trainMax: 8, testMax: 24, batch: 16, layers: 1, dMlp: 64 };
// pause: awaited between chunks of steps (on the main thread, when no Worker
// could start, so that the page keeps answering).
export async function trainTable(lab, { seed = 1, steps = TRAIN_TABLE.steps } = {}, pause = null) {
  const run = new lab.ExtrapolationRun({ ...TRAIN_TABLE, scheme: 'learned', seed, steps });
  try {
    while (!run.done()) {
      run.step(pause ? 5 : 25);
      if (pause) await pause();
    }
    const table = run.positionTable();
    const [rows, cols] = table.shape;
    const summary = lab.tableSummary({ rows, cols, data: table.data });
    return { summary, steps, seed, lastTrained: 2 * TRAIN_TABLE.trainMax };
  } finally {
    run.delete();
  }
}
