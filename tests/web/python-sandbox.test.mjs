// The Python sandbox (web/js/python/py-worker.js through scripts/py-sandbox.mjs,
// the same bundle the page runs in a blob: Worker): results, errors, and
// hostile code contained.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runPython } from '../../scripts/py-sandbox.mjs';
import { solutions } from '../fixtures/code/solutions.mjs';

// A generous time limit where the test is not about time: the machine may be busy.
const run = (o) => runPython({ timeLimitMs: 20000, ...o });

test('a correct solution runs and returns nested lists of numbers', async () => {
  const r = await run({ code: solutions.sinusoidal, fn: 'build_sinusoidal_encoding', cases: [[2, 4], [1, 3]] });
  assert.equal(r.status, 'ok');
  // Position 1, D = 4: sin 1, cos 1, sin 0.01, cos 0.01 (worked out by hand).
  const row = r.results[0].value[1];
  for (const [got, want] of row.map((v, i) => [v, [0.8414709848, 0.5403023059, 0.0099998333, 0.9999500004][i]])) assert.ok(Math.abs(got - want) < 1e-9);
  assert.deepEqual(r.results[1], { ok: false, error: 'ValueError', message: 'd_model must be even', trace: r.results[1].trace });
});

test('syntax errors, missing functions, exceptions and odd types are reported', async () => {
  const syntax = await run({ code: 'def f(:\n  pass\n', fn: 'f', cases: [[]] });
  assert.equal(syntax.status, 'syntax_error');
  assert.match(syntax.message, /SyntaxError/);
  assert.equal((await run({ code: 'def g():\n  return 1\n', fn: 'f', cases: [[]] })).status, 'no_function');
  const load = await run({ code: 'x = 1 / 0\ndef f():\n  return 1\n', fn: 'f', cases: [[]] });
  assert.equal(load.status, 'load_error');
  assert.match(load.message, /ZeroDivisionError/);
  const odd = await run({ code: 'def f(k):\n  return [[1, "a"], True, None, float("nan"), (1, 2), {}][k]\n', fn: 'f', cases: [[0], [1], [2], [3], [4], [5], [9]] });
  assert.equal(odd.status, 'ok');
  assert.deepEqual(odd.results.slice(0, 6).map((x) => x.value), [[1, { type: 'str' }], { type: 'bool', repr: 'True' }, { type: 'None', repr: 'None' }, { type: 'float', repr: 'nan' }, [1, 2], { type: 'dict' }]);
  assert.equal(odd.results[6].error, 'IndexError');
});

test('the sandbox scope has no network, no messaging, no Node (process, require)', async () => {
  const { scope } = await run({ probe: true });
  for (const name of ['fetch', 'XMLHttpRequest', 'WebSocket', 'EventSource', 'importScripts', 'Worker', 'BroadcastChannel', 'postMessage', 'process', 'require', 'module', 'Buffer']) {
    assert.equal(scope[name], 'undefined', name);
  }
});

test('import js, jsffi, os, sys and builtins are refused (the run is import_refused, naming the module); math works', async () => {
  for (const mod of ['js', 'jsffi', 'os', 'sys', 'builtins', 'io', 'pyscript']) {
    const r = await run({ code: `def f():\n  import ${mod}\n  return 1\n`, fn: 'f', cases: [[]] });
    assert.equal(r.status, 'import_refused', mod);
    assert.equal(r.module, mod);
    assert.match(r.message, /ImportError: only math can be imported here/);
  }
  const viaDunder = await run({ code: 'def f():\n  return __import__("js").fetch\n', fn: 'f', cases: [[]] });
  assert.equal(viaDunder.status, 'import_refused');
  // A refusal the student's code catches is the student's business: the run is ordinary.
  const caught = await run({ code: 'try:\n  import numpy\nexcept ImportError:\n  numpy = None\ndef f():\n  return 2\n', fn: 'f', cases: [[]] });
  assert.equal(caught.status, 'ok');
  assert.equal(caught.results[0].value, 2);
  const math = await run({ code: 'import math\ndef f():\n  return math.sqrt(16)\n', fn: 'f', cases: [[]] });
  assert.equal(math.status, 'ok', JSON.stringify(math).slice(0, 300));
  assert.equal(math.results[0].value, 4);
});

test('an endless loop is stopped at the time limit; print spam is capped', async () => {
  const t0 = Date.now();
  const loop = await run({ code: 'def f():\n  while True:\n    pass\n', fn: 'f', cases: [[]], timeLimitMs: 500 });
  assert.equal(loop.status, 'timeout');
  assert.ok(Date.now() - t0 < 20000);
  const spam = await run({ code: 'def f():\n  for i in range(20000):\n    print("spam", i)\n  return 1\n', fn: 'f', cases: [[]], timeLimitMs: 5000 });
  assert.equal(spam.status, 'ok');
  assert.ok(spam.output.length <= 4000);
  assert.ok(spam.dropped > 0);
});

test('a huge allocation raises MemoryError inside the sandbox: the run ends as memory', async () => {
  const r = await run({ code: 'def f():\n  return [0] * (10 ** 9)\n', fn: 'f', cases: [[]] });
  assert.equal(r.status, 'memory');
  assert.equal(r.results[0].error, 'MemoryError');
  // Growing step by step until the heap is full: MicroPython's collector slows
  // down as the heap fills, so this ends as memory or at the time limit.
  const grow = await run({ code: 'def f():\n  x = []\n  while True:\n    x.append([0] * 1000)\n', fn: 'f', cases: [[]], timeLimitMs: 3000 });
  assert.ok(grow.status === 'timeout' || grow.status === 'memory', JSON.stringify(grow).slice(0, 200));
});

test('a result too large or too deep for the attempt store is refused per case', async () => {
  const r = await run({ code: 'def f(k):\n  return [[[[[[1]]]]]] if k else [0] * 5000\n', fn: 'f', cases: [[0], [1]] });
  assert.deepEqual(r.results.map((x) => x.error), ['ResultTooLarge', 'ResultTooLarge']);
});
