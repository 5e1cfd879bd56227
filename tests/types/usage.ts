// Compiled with tsc --noEmit by npm test: the hand-written poslab.d.ts must
// type the API as the tests and the page use it. A wrong member, option or
// result type here is a compile error.
import type { PositionLab, ForwardResult, PositionLabError, AttemptResult, CodeAttempt, CodeResults, SubmissionRow, YarnEdgeRule } from '../../cpp/bindings/wasm/poslab';

export function useLab(lab: PositionLab): number {
  const r: ForwardResult = lab.forward({ text: "犬が猫を追いかけた", pe: "sinusoidal", dModel: 8, heads: 2, causal: true });
  const first: number = r.output.data[0];
  const heads: number = r.attention ? r.attention.shape[0] : 0;
  const steps = lab.attentionSteps({ vectors: [[1, 0], [0, 1]], weights: 'identity', scale: 'none' });
  const check = lab.permutationCheck({ tokens: ['猫', 'が', '犬'], permutation: [2, 1, 0] });
  const enc = lab.encoding({ scheme: 'learned', length: 4, dModel: 768, positionOffset: 1020 });
  const rope = lab.ropeCheck({ m: 3, n: 1, shift: 10 });
  const mean: number = r.outputMean.data[0] + lab.alibiBias({ length: 4, heads: 8 }).slopes[0] + (enc.wavelengths?.data[0] ?? 0);
  const grade: AttemptResult = lab.checkAttempt({ exercise: {}, question: 'q', answer: ['0.670'] });
  const explained: AttemptResult = lab.checkAttempt({ exercise: {}, question: 'why', answer: 'because' });
  const order: string[] = lab.variant({ exercise: {}, learner: 'a' }).optionOrders['q'] ?? [];
  const cost = lab.attemptStatus({ exercise: {}, question: 'q', made: 1 });
  const left: number = (cost.left ?? 0) + cost.nextCredit + (explained.status === 'recorded' ? 1 : 0) + order.length;
  const graded = lab.gradeExercise({ exercise: {}, seed: 1, attempts: [] }).questions[0];
  const shown: string[] = graded?.order ?? [];
  const matched: string | null = graded?.wrong[0]?.mistake?.id ?? null;
  const toCorrect: number | null = graded?.attemptsToCorrect ?? null;
  const rows = lab.gradeSubmission({ exercises: [], file: 'a.json', text: '{}' });
  const list = lab.codeAttempts({ file: 'a.json', bytes: new Uint8Array([123, 125]) });
  const results: CodeResults = Object.fromEntries(list.attempts.map((a: CodeAttempt) => [a.key, { status: 'not_rerun', reason: 'budget' }]));
  const regraded: SubmissionRow[] = lab.gradeSubmissionBytes({ file: 'a.json', bytes: new Uint8Array([123, 125]), codeResults: results });
  const csv: string = lab.gradeCsv({ rows: regraded }) + lab.csvTable({ rows: [['a', 1, null, true]] }) + lab.displayText({ text: 'x' });
  const limit: number = lab.limits.maxCodeChars;
  const status: 'graded' | 'invalid_file' | 'too_large' | 'invalid_exercise' | 'unknown_exercise' | 'hash_mismatch' = rows[0].status;
  const attempt = lab.checkAttempt({ exercise: {}, question: 'q', answer: [] });
  const named: string | undefined = attempt.mistake?.id;
  const run = new lab.ExtrapolationRun({ scheme: 'rope', steps: 10 });
  const progress = run.step(5);
  run.delete();
  const ext = new lab.ExtensionRun({ methods: ['pi', 'yarn'], finetuneSteps: 10, trainMax: 4, testMax: 8 });
  const extCurves = ext.curves();
  const firstMethod: string = extCurves[0]?.method ?? ext.options().rope[0]!.method;
  ext.delete();
  // Exercise 9's run: look back 4 at base 100; options() names the task.
  const look = new lab.ExtensionRun({ task: 'lookback', k: 4, base: 100, finetuneSteps: 50 });
  const task: 'count' | 'lookback' = look.options().task;
  const k: number | undefined = look.options().k;
  look.delete();
  // @ts-expect-error the task is count or lookback
  new lab.ExtensionRun({ task: 'copy' });
  const angles = lab.ropeAngleMap({ d: 8, trainedLength: 16, s: 2, method: 'ntk' });
  const paper = lab.ropeAngleMap({ d: 8, trainedLength: 16, s: 2, method: 'yarn', yarnEdges: 'paper', yarnAlpha: 1, yarnBeta: 32 });
  const edges: YarnEdgeRule = new lab.ExtensionRun({ yarnEdges: 'lab' }).options().yarnEdges;
  // @ts-expect-error the edges are paper or lab
  lab.ropeAngleMap({ d: 8, trainedLength: 16, s: 2, method: 'yarn', yarnEdges: 'llama' });
  const leaving: boolean = angles.leaves[0] ?? false;
  try {
    lab.forward({ text: '' });
  } catch (e) {
    const err = e as PositionLabError;
    if (err.code === 'empty_text') return err.params['limit'] === undefined ? 0 : 1;
  }
  return first + heads + steps.weights.data[0] + check.maxAbsDiff + enc.encoding.shape[1] + rope.diff +
    grade.score + left + shown.length + mean + progress.loss.length + firstMethod.length + (leaving ? 1 : 0) + paper.beta + edges.length + lab.limits.maxTokens + lab.wasmMemoryBytes();
}

// The factory's extras: a Worker from a blob: URL, the wasm compiled once.
import type createPositionLab from '../../cpp/bindings/wasm/poslab';
export async function fromModule(factory: typeof createPositionLab): Promise<number> {
  const bytes = factory.inlinedWasm();
  const source: string = factory.scriptSource();
  const module = await WebAssembly.compile(bytes ?? new Uint8Array(0));
  const lab = await factory({
    instantiateWasm: (imports, receive) => {
      WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module));
      return {};
    },
    locateFile: (path) => (path.endsWith('.wasm') ? 'poslab.wasm' : path),
  });
  return source.length + lab.limits.maxTokens;
}

// Position tables (issue 16): header, listing, analysis, a table given as data.
export function useTables(lab: PositionLab, file: Uint8Array): number {
  const first = file.subarray(0, lab.limits.npyPrefixBytes);
  const format = lab.tableFormat(first);
  const header = format === 'npy' ? first : file.subarray(8, 8 + lab.safetensorsHeaderLength({ bytes: first.subarray(0, 8), fileSize: file.length }));
  const listing = lab.tableTensors({ format, header, fileSize: file.length });
  const t = listing.picked;
  if (!t) return listing.tensors.length;
  const s = lab.tableAnalyze({ format, header, fileSize: file.length, tensor: t.name, bytes: file.subarray(t.begin, t.end), components: 3 });
  const sin = lab.tableSummary({ rows: s.shape[0], cols: s.shape[1], scheme: 'sinusoidal' });
  const run = new lab.ExtrapolationRun({ scheme: 'learned', steps: 1 });
  const table = run.positionTable();
  run.delete();
  const own = lab.tableSummary({ rows: table.shape[0]!, cols: table.shape[1]!, data: table.data });
  const plan = lab.tablePlan({ rows: s.shape[0], cols: s.shape[1], components: 3 });
  const projection: Float64Array = own.pca.projection.data;
  return s.norms[0]! + s.pca.explained[0]! + sin.neighbour[0]! + projection[0]! + s.tensor.begin + plan.pcaRows + plan.heatmapRows + plan.distances + plan.eigenSteps;
}
