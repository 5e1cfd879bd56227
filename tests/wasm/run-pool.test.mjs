// Runs across Workers (issue 25): run-pool.js hands a training experiment's
// runs to whichever loop is free, in run order, and puts the results back in
// run order. Here several train() / extend() loops share one queue in one
// Node thread (each awaits between chunks, so they interleave as Workers
// would), and every number must equal the one-loop run bit for bit, and each
// run must equal the same run stepped one step at a time by the core alone.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadLab } from './helpers.mjs';
import { train, runList, withKernels } from '../../web/js/core/train-loop.js';
import { extend } from '../../web/js/core/extend-loop.js';
import { MAX_WORKERS, parseKernels, parseWorkerCount, poolSize, timeLeft, makeRunQueue, insertInOrder, makeStepCount } from '../../web/js/core/run-pool.js';

let lab;
before(async () => {
  lab = await loadLab();
});

// A real turn of the event loop, so that the loops interleave.
const turn = () => new Promise((ok) => setImmediate(ok));

test('parseWorkerCount: a whole number from 1 to MAX_WORKERS; anything else says what is allowed', () => {
  assert.equal(MAX_WORKERS, 8);
  assert.deepEqual(parseWorkerCount(undefined), { count: null });
  assert.deepEqual(parseWorkerCount(null), { count: null });
  assert.deepEqual(parseWorkerCount('1'), { count: 1 });
  assert.deepEqual(parseWorkerCount('8'), { count: 8 });
  assert.deepEqual(parseWorkerCount(' 3 '), { count: 3 });
  for (const bad of ['0', '9', '-1', '2.5', '1e1', 'two', '', ' ', '0x2', '99999999999999999999', 'Infinity', 'NaN', '2,3', '<script>']) {
    const r = parseWorkerCount(bad);
    assert.ok(r.error, `"${bad}" is refused`);
    assert.equal(r.error.code, 'bad_workers');
    assert.deepEqual([r.error.params.min, r.error.params.max], ['1', '8']);
    assert.equal(r.error.params.value, bad);
  }
  assert.equal(parseWorkerCount('x'.repeat(500)).error.params.value.length, 40, 'a long value is cut in the message');
});

test('parseKernels: only kernels=reference (the bench\'s "before"); anything else says what is allowed', () => {
  assert.deepEqual(parseKernels(undefined), { kernels: null });
  assert.deepEqual(parseKernels(null), { kernels: null });
  assert.deepEqual(parseKernels('reference'), { kernels: 'reference' });
  assert.deepEqual(parseKernels(' reference '), { kernels: 'reference' });
  for (const bad of ['', 'Reference', 'kernels', 'plain', 'reference,x', '1', '<b>']) {
    const r = parseKernels(bad);
    assert.equal(r.error?.code, 'bad_kernels', `"${bad}" is refused`);
    assert.equal(r.error.params.allowed, 'reference');
    assert.equal(r.error.params.value, bad);
  }
  assert.equal(parseKernels('r'.repeat(500)).error.params.value.length, 40, 'a long value is cut in the message');
});

test('timeLeft: the rest of the steps at the pace so far; nothing before the first step', () => {
  // 3 s for 30 of 120 steps: 0.1 s a step, 90 steps left → 9 s.
  const r = timeLeft({ activeMs: 3000, stepsDone: 30, stepsTotal: 120 });
  assert.equal(r.spent, 3);
  assert.ok(Math.abs(r.left - 9) < 1e-12, String(r.left));
  assert.deepEqual(timeLeft({ activeMs: 5000, stepsDone: 50, stepsTotal: 50 }), { spent: 5, left: 0 });
  for (const bad of [{ activeMs: 1000, stepsDone: 0, stepsTotal: 10 }, { activeMs: 1000, stepsDone: 20, stepsTotal: 10 }, { activeMs: -1, stepsDone: 1, stepsTotal: 10 }, { activeMs: NaN, stepsDone: 1, stepsTotal: 10 }, { activeMs: 1000, stepsDone: undefined, stepsTotal: 10 }]) assert.equal(timeLeft(bad), null, JSON.stringify(bad));
});

test('poolSize: the link’s count, else the cores; at most MAX_WORKERS and the runs; at least 1', () => {
  assert.equal(poolSize({ requested: null, hardware: 2, runs: 15 }), 2);
  assert.equal(poolSize({ requested: null, hardware: 16, runs: 15 }), 8);
  assert.equal(poolSize({ requested: null, hardware: 16, runs: 2 }), 2);
  assert.equal(poolSize({ requested: 3, hardware: 2, runs: 15 }), 3);
  assert.equal(poolSize({ requested: 1, hardware: 8, runs: 15 }), 1);
  for (const hardware of [undefined, 0, -4, 2.5, NaN, '4']) assert.equal(poolSize({ requested: null, hardware, runs: 15 }), 1, `hardware ${hardware}`);
  assert.equal(poolSize({ requested: null, hardware: 4, runs: 0 }), 1);
  assert.equal(poolSize(), 1);
});

test('the queue hands out every run once, in order; stop() ends it; results go back in run order', () => {
  const q = makeRunQueue(4);
  assert.deepEqual([q.next(), q.next(), q.next()], [0, 1, 2]);
  q.stop();
  assert.equal(q.next(), null);
  assert.equal(q.given, 3);
  const q2 = makeRunQueue(2);
  assert.deepEqual([q2.next(), q2.next(), q2.next(), q2.next()], [0, 1, null, null]);
  const list = [];
  for (const run of [3, 0, 4, 1, 2]) insertInOrder(list, { run });
  assert.deepEqual(list.map((r) => r.run), [0, 1, 2, 3, 4]);
  const steps = makeStepCount();
  steps.set(0, 10);
  steps.set(1, 20);
  steps.set(0, 30); // a later report of the same run replaces the earlier one
  assert.equal(steps.total, 50);
});

// One experiment trained by `loops` loops sharing a queue, as trainer.js does with Workers.
async function pooled(options, loops) {
  const queue = makeRunQueue(runList(options).length);
  const results = [];
  const losses = {};
  const taken = Array.from({ length: loops }, () => []);
  const outcomes = await Promise.all(
    taken.map((mine) =>
      train(
        lab,
        options,
        {
          progress: (p) => (losses[p.run] ??= []).push(...p.loss),
          result: (r) => insertInOrder(results, r),
        },
        {
          isCancelled: () => false,
          yieldNow: turn,
          nextRun: async () => {
            await turn();
            const i = queue.next();
            if (i !== null) mine.push(i);
            return i;
          },
        },
      ),
    ),
  );
  return { outcomes, results, losses, taken };
}

const strip = (r) => ({ run: r.run, scheme: r.scheme, seed: r.seed, evaluation: r.evaluation });

test('train(): 1, 2 and 3 loops sharing a queue give the one-loop numbers bit for bit, in run order', async () => {
  const options = { schemes: ['learned', 'rope', 'alibi'], seeds: [1, 2], steps: 10, chunk: 5 };
  const one = await pooled(options, 1);
  assert.deepEqual(one.outcomes, ['done']);
  assert.deepEqual(one.taken[0], [0, 1, 2, 3, 4, 5]);
  // Each run, independently of the loop: the core alone, one step at a time.
  runList(options).forEach(({ scheme, seed }, i) => {
    const run = new lab.ExtrapolationRun({ scheme, seed, steps: options.steps });
    try {
      const losses = [];
      while (!run.done()) losses.push(...run.step(1).loss);
      assert.deepEqual(one.losses[i], losses, `run ${i} losses`);
      assert.deepEqual(one.results[i].evaluation.exactMatch, Array.from(run.evaluate().exactMatch), `run ${i} exact match`);
    } finally {
      run.delete();
    }
  });
  for (const loops of [2, 3]) {
    const many = await pooled(options, loops);
    assert.deepEqual(many.outcomes, Array(loops).fill('done'));
    // Every loop trained something, and every run was trained exactly once.
    assert.ok(many.taken.every((t) => t.length > 0), `${loops} loops: ${JSON.stringify(many.taken)}`);
    assert.deepEqual(many.taken.flat().sort((a, b) => a - b), [0, 1, 2, 3, 4, 5]);
    assert.deepEqual(many.results.map(strip), one.results.map(strip), `${loops} loops: results`);
    assert.deepEqual(many.losses, one.losses, `${loops} loops: losses`);
  }
});

test('withKernels: kernels=reference trains with the plain loops (switched on during the run, off after, even after an error) and gives the same numbers', async () => {
  assert.equal(lab.trainKernelsReference(), false, 'the kernels are the default');
  assert.throws(() => lab.trainKernelsReference('yes'), /true or false/);
  assert.throws(() => lab.trainKernelsReference(1), /true or false/);
  assert.equal(lab.trainKernelsReference(), false, 'a refused value changes nothing');
  const options = { schemes: ['learned', 'rope'], seeds: [3], steps: 10, chunk: 5 };
  const run = async (o) => {
    const seen = [];
    const losses = [];
    const results = [];
    const outcome = await withKernels(lab, o, () =>
      train(lab, o, { progress: (p) => { seen.push(lab.trainKernelsReference()); losses.push(...p.loss); }, result: (r) => results.push(r.evaluation) }, { isCancelled: () => false, yieldNow: turn }),
    );
    return { outcome, seen, losses, results };
  };
  const kernels = await run(options);
  const reference = await run({ ...options, kernels: 'reference' });
  assert.deepEqual([kernels.outcome, reference.outcome], ['done', 'done']);
  assert.ok(kernels.seen.length > 0 && kernels.seen.every((x) => x === false), 'no kernels option: the kernels train');
  assert.ok(reference.seen.length > 0 && reference.seen.every((x) => x === true), 'kernels=reference: the plain loops train');
  assert.equal(lab.trainKernelsReference(), false, 'the kernels again after the run');
  assert.deepEqual(reference.losses, kernels.losses, 'the same losses, bit for bit');
  assert.deepEqual(reference.results, kernels.results, 'the same evaluations');
  await assert.rejects(withKernels(lab, { kernels: 'reference' }, async () => { throw new Error('boom'); }), /boom/);
  assert.equal(lab.trainKernelsReference(), false, 'set back after an error too');
});

test('train(): a run index outside the experiment is refused', async () => {
  await assert.rejects(
    train(lab, { schemes: ['rope'], seeds: [1], steps: 5, chunk: 5 }, { progress: () => {}, result: () => {} }, { isCancelled: () => false, yieldNow: turn, nextRun: () => 7 }),
    /no run 7/,
  );
});

test('extend(): two loops, one seed each, give the one-loop curves bit for bit, in seed order', async () => {
  const small = { steps: 20, trainMax: 4, testMax: 8, finetuneSteps: 4, batch: 8, dModel: 16, heads: 2, layers: 1, dMlp: 32, methods: ['none', 'pi'], seeds: [1, 2], chunk: 5 };
  const runAll = async (loops) => {
    const queue = makeRunQueue(small.seeds.length);
    const results = [];
    const outcomes = await Promise.all(
      Array.from({ length: loops }, () =>
        extend(lab, small, { progress: () => {}, result: (r) => insertInOrder(results, r, (x) => x.seedIndex) }, { isCancelled: () => false, yieldNow: turn, nextRun: async () => (await turn(), queue.next()) }),
      ),
    );
    return { outcomes, results: results.map(({ seconds, ...rest }) => rest) };
  };
  const one = await runAll(1);
  const two = await runAll(2);
  assert.deepEqual(two.outcomes, ['done', 'done']);
  assert.deepEqual(one.results.map((r) => r.seed), [1, 2]);
  assert.deepEqual(two.results, one.results);
  assert.notDeepEqual(one.results[0].losses, one.results[1].losses, 'the two seeds differ');
});
