// Compiled with tsc --noEmit by npm test: the hand-written poslab.d.ts must
// type the API as the tests and the page use it. A wrong member, option or
// result type here is a compile error.
import type { PositionLab, ForwardResult, PositionLabError, AttemptResult } from '../../cpp/bindings/wasm/poslab';

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
  const run = new lab.ExtrapolationRun({ scheme: 'rope', steps: 10 });
  const progress = run.step(5);
  run.delete();
  const ext = new lab.ExtensionRun({ methods: ['pi', 'yarn'], finetuneSteps: 10, trainMax: 4, testMax: 8 });
  const extCurves = ext.curves();
  const firstMethod: string = extCurves[0]?.method ?? ext.options().rope[0]!.method;
  ext.delete();
  const angles = lab.ropeAngleMap({ d: 8, trainedLength: 16, s: 2, method: 'ntk' });
  const leaving: boolean = angles.leaves[0] ?? false;
  try {
    lab.forward({ text: '' });
  } catch (e) {
    const err = e as PositionLabError;
    if (err.code === 'empty_text') return err.params['limit'] === undefined ? 0 : 1;
  }
  return first + heads + steps.weights.data[0] + check.maxAbsDiff + enc.encoding.shape[1] + rope.diff +
    grade.score + left + shown.length + mean + progress.loss.length + firstMethod.length + (leaving ? 1 : 0) + lab.limits.maxTokens + lab.wasmMemoryBytes();
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
