// The live side of "train short, test long" (issue 24): train-loop.js's
// progress carries the core's test of the run every evalEvery steps, and its
// gate pauses between chunks, lets one chunk through per step, and resumes.
// Checked against a run stepped one step at a time and tested at the same
// steps, independently of the loop's chunking.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadLab } from './helpers.mjs';
import { train, evalEvery, makeGate } from '../../web/js/core/train-loop.js';

let lab;
before(async () => {
  lab = await loadLab();
});

const noYield = () => Promise.resolve();

test('evalEvery: ten tests a run, on chunk boundaries, never under one chunk', () => {
  assert.equal(evalEvery(400, 10), 40);
  assert.equal(evalEvery(40, 10), 10);
  assert.equal(evalEvery(20, 5), 5);
  assert.equal(evalEvery(7, 10), 10);
  assert.equal(evalEvery(1000, 7), 105); // ceil(100 / 7) = 15 chunks of 7
});

test('progress carries the core’s test at every multiple of evalEvery (not at the last step: the result is that test)', async () => {
  const steps = 20;
  const chunk = 5;
  const seen = [];
  const results = [];
  await train(lab, { schemes: ['rope'], seeds: [3], steps, chunk }, { progress: (p) => seen.push(p), result: (r) => results.push(r) }, { isCancelled: () => false, yieldNow: noYield });
  const tested = seen.filter((p) => p.evaluation).map((p) => p.step);
  assert.deepEqual(tested, [5, 10, 15]);
  // The same run stepped one step at a time, tested after 5, 10 and 15 steps.
  const run = new lab.ExtrapolationRun({ scheme: 'rope', seed: 3, steps });
  try {
    for (const at of [5, 10, 15]) {
      while (run.step(1).step < at);
      const want = Array.from(run.evaluate().exactMatch);
      assert.deepEqual(seen.find((p) => p.step === at).evaluation.exactMatch, want, `step ${at}`);
    }
  } finally {
    run.delete();
  }
  assert.equal(results.length, 1);
  // live: false leaves the tests out.
  const quiet = [];
  await train(lab, { schemes: ['rope'], seeds: [3], steps: 10, chunk, live: false }, { progress: (p) => quiet.push(p), result: () => {} }, { isCancelled: () => false, yieldNow: noYield });
  assert.equal(quiet.filter((p) => p.evaluation).length, 0);
});

test('the gate: paused, no chunk runs; step lets exactly one through; resume lets the rest through; cancel ends a wait', async () => {
  let cancelled = false;
  let holds = 0;
  const g = makeGate(() => cancelled, () => holds++);
  const passed = [];
  const loop = (async () => {
    for (let i = 0; i < 6; i++) {
      await g.gate();
      if (cancelled) return 'cancelled';
      passed.push(i);
      await noYield();
    }
    return 'done';
  })();
  const turn = () => new Promise((ok) => setTimeout(ok, 0)); // a task later: every waiting microtask has run
  await turn();
  assert.equal(passed.length, 6, 'not paused: every chunk runs');
  assert.equal(await loop, 'done');
  // Paused from the start.
  const passed2 = [];
  const g2 = makeGate(() => cancelled, () => holds++);
  g2.pause();
  const loop2 = (async () => {
    for (let i = 0; i < 6; i++) {
      await g2.gate();
      if (cancelled) return 'cancelled';
      passed2.push(i);
    }
    return 'done';
  })();
  await turn();
  assert.deepEqual(passed2, []);
  assert.equal(holds, 1, 'one hold reported');
  g2.step();
  await turn();
  assert.deepEqual(passed2, [0]);
  g2.step();
  g2.step();
  await turn();
  assert.deepEqual(passed2, [0, 1, 2], 'two steps: two chunks');
  assert.ok(g2.paused);
  g2.resume();
  await turn();
  assert.deepEqual(passed2, [0, 1, 2, 3, 4, 5]);
  assert.equal(await loop2, 'done');
  // A cancel while paused ends the wait.
  const g3 = makeGate(() => cancelled);
  g3.pause();
  const loop3 = (async () => {
    await g3.gate();
    return cancelled ? 'cancelled' : 'ran';
  })();
  await turn();
  cancelled = true;
  g3.wake();
  assert.equal(await loop3, 'cancelled');
});
