// Correct Python earns its points (issue #22 item 16) and odd results fail
// one case, never the whole run (issue #21): through the re-grade's
// sandboxed runner (scripts/py-sandbox.mjs), the page's very runtime.
// Expected values are worked out by hand in the comments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runPython, asCoreStatus } from '../../scripts/py-sandbox.mjs';

const close = (a, b, tol = 1e-12) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(b));

// A generous time limit where the test is not about time: the machine may be busy.
const run = (o) => runPython({ timeLimitMs: 20000, ...o });

test('float.is_integer(), which MicroPython lacks: the run is unsupported, naming the method; the usual rewrite passes', async () => {
  const code = 'def f(x):\n  return 1 if x.is_integer() else 0\n';
  const r = await run({ code, fn: 'f', cases: [[2.0], [2.5]] });
  assert.equal(r.status, 'unsupported');
  assert.equal(r.feature, 'float.is_integer');
  assert.equal(r.results[0].error, 'AttributeError');
  const fixed = await run({ code: 'def f(x):\n  return 1 if x == int(x) else 0\n', fn: 'f', cases: [[2.0], [2.5]] });
  assert.equal(fixed.status, 'ok');
  assert.deepEqual(fixed.results.map((x) => x.value), [1, 0]);
  // At load too (outside the function).
  const atLoad = await run({ code: 'k = (3).bit_length()\ndef f():\n  return k\n', fn: 'f', cases: [[]] });
  assert.equal(atLoad.status, 'unsupported');
  assert.equal(atLoad.feature, 'int.bit_length');
  // An AttributeError of the student's own making is an ordinary failure.
  const own = await run({ code: 'class A:\n  pass\ndef f():\n  return A().is_integer()\n', fn: 'f', cases: [[]] });
  assert.equal(own.status, 'ok');
  assert.equal(own.results[0].error, 'AttributeError');
});

test('a refused import is import_refused (at load or in the function), naming the module; the core grades it as a load error', async () => {
  const top = await run({ code: 'import os\ndef f():\n  return 1\n', fn: 'f', cases: [[]] });
  assert.equal(top.status, 'import_refused');
  assert.equal(top.module, 'os');
  const inner = await run({ code: 'def f():\n  from numpy import zeros\n  return 1\n', fn: 'f', cases: [[]] });
  assert.equal(inner.status, 'import_refused');
  assert.equal(inner.module, 'numpy');
  assert.equal(asCoreStatus(top).status, 'load_error');
  assert.equal(asCoreStatus({ status: 'unsupported', results: [] }).status, 'ok');
  assert.equal(asCoreStatus({ status: 'unsupported', message: 'x' }).status, 'load_error');
  assert.throws(() => asCoreStatus({ status: 'sandbox_unavailable', message: 'no bwrap' }), /sandbox is unavailable: no bwrap/);
});

test('10**400, an exception whose str() recurses, and an enormous message each fail their own case, the others run', async () => {
  const code = [
    'class Loop(Exception):',
    '  def __str__(self):',
    '    return str(self)',
    'def f(k):',
    '  if k == 0:',
    '    return 10 ** 400',
    '  if k == 1:',
    '    return [1.5, -(10 ** 400)]',
    '  if k == 2:',
    '    raise Loop()',
    '  if k == 3:',
    '    raise ValueError("x" * 200000)',
    '  return 2 ** 60',
    '',
  ].join('\n');
  const r = await run({ code, fn: 'f', cases: [[0], [1], [2], [3], [4]] });
  assert.equal(r.status, 'ok', JSON.stringify(r).slice(0, 300));
  assert.deepEqual(r.results[0], { ok: false, error: 'OverflowError', message: 'the result holds an int too large for a float (beyond 1.8e308)' });
  assert.equal(r.results[1].error, 'OverflowError');
  assert.equal(r.results[2].ok, false);
  assert.equal(r.results[2].error, 'Loop');
  assert.match(r.results[2].message, /could not be made/);
  assert.equal(r.results[3].error, 'ValueError');
  assert.ok(r.results[3].message.length <= 300);
  assert.ok(r.results[3].trace.length <= 600);
  // 2**60 = 1152921504606846976, past 2**53: reported as the nearest double.
  assert.deepEqual(r.results[4], { ok: true, value: 1152921504606846976 });
});

test('tracebacks show the student\'s frames only (solution.py), no harness frame or name', async () => {
  const r = await run({ code: 'def g(x):\n  return 1 / x\n\ndef f(x):\n  return g(x)\n', fn: 'f', cases: [[0]] });
  const trace = r.results[0].trace;
  assert.equal(trace, 'Traceback (most recent call last):\n  File "solution.py", line 5, in f\n  File "solution.py", line 2, in g\nZeroDivisionError: divide by zero');
  const load = await run({ code: 'x = [1][3]\ndef f():\n  return 1\n', fn: 'f', cases: [[]] });
  assert.equal(load.status, 'load_error');
  assert.equal(load.message, 'Traceback (most recent call last):\n  File "solution.py", line 1, in <module>\nIndexError: list index out of range');
  const syntax = await run({ code: 'def f(:\n  pass\n', fn: 'f', cases: [[]] });
  assert.doesNotMatch(syntax.message, /<stdin>|_poslab|harness/);
  assert.match(syntax.message, /solution\.py", line 1/);
});

test('the student\'s namespace holds no harness name; the hidden cases are not reachable', async () => {
  const code = 'def f():\n  return len([k for k in globals() if k not in ("__name__", "format", "f")])\n';
  const r = await run({ code, fn: 'f', cases: [[]] });
  assert.deepEqual(r.results, [{ ok: true, value: 0 }]);
  const names = await run({ code: 'def f(n):\n  try:\n    eval(n)\n    return 1\n  except NameError:\n    return 0\n', fn: 'f', cases: [['_poslab_make'], ['answer'], ['run'], ['cases_text'], ['conv'], ['math']] });
  // Only math: a builtin name? No: eval sees globals, and math was not imported here.
  assert.deepEqual(names.results.map((x) => x.value), [0, 0, 0, 0, 0, 0]);
});

test('the math functions MicroPython lacks and format() are supplied, with the values CPython gives', async () => {
  const code = [
    'import math',
    'from math import prod, isqrt',
    'def f(k):',
    '  return [',
    '    prod([1.5, 2, 4]), isqrt(10 ** 12 + 5), isqrt(99), math.comb(10, 3), math.perm(5, 2),',
    '    math.gcd(12, 18), math.lcm(4, 6), math.dist([0, 0], [3, 4]), math.hypot(3, 4),',
    '    math.fsum([0.1] * 10), math.cbrt(-27), math.exp2(3), math.log1p(1e-10),',
    '    1 if format(3.14159, ".2f") == "3.14" else 0, 1 if format(7) == "7" else 0, math.sqrt(16)]',
    '',
  ].join('\n');
  const r = await run({ code, fn: 'f', cases: [[0]] });
  assert.equal(r.status, 'ok', JSON.stringify(r).slice(0, 300));
  const v = r.results[0].value;
  // By hand: 1.5·2·4 = 12; ⌊√(10¹²+5)⌋ = 10⁶; ⌊√99⌋ = 9; C(10,3) = 120; P(5,2) = 20;
  // gcd(12,18) = 6; lcm(4,6) = 12; |(3,4)| = 5 twice; ten 0.1s summed with
  // compensation = 1.0 (plain summation gives 0.9999999999999999); ∛−27 = −3;
  // 2³ = 8; log(1 + 1e-10) ≈ 1e-10 − 5e-21; format twice; √16 = 4.
  const want = [12, 1000000, 9, 120, 20, 6, 12, 5, 5, 1, -3, 8, 1e-10 - 5e-21, 1, 1, 4];
  assert.equal(v.length, want.length);
  want.forEach((w, i) => assert.ok(close(v[i], w, 1e-12), `${i}: ${v[i]} vs ${w}`));
  let plain = 0;
  for (let i = 0; i < 10; i++) plain += 0.1;
  assert.notEqual(plain, 1, 'the fsum case must differ from plain summation to test anything');
  assert.equal(v[9], 1);
});

test('runPython refuses bad arguments with a message saying what is allowed', async () => {
  await assert.rejects(runPython({ code: 1, fn: 'f', cases: [] }), /code must be a string \(got number\)/);
  await assert.rejects(runPython({ code: '', fn: 'f(); import os', cases: [] }), /fn must be a Python function name/);
  await assert.rejects(runPython({ code: '', fn: 'f', cases: [1] }), /cases must be an array of argument arrays/);
  await assert.rejects(runPython({ code: '', fn: 'f', cases: [], timeLimitMs: Infinity }), /timeLimitMs must be a number of milliseconds in \(0, 600000\] \(got Infinity\)/);
});
