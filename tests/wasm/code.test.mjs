// Code questions end to end in Node: the Python solutions written in
// tests/fixtures/code/solutions.mjs run in the page's sandbox (MicroPython
// wasm, scripts/py-sandbox.mjs) on a learner's hidden cases, and the wasm
// core grades them (checkAttempt, codeRun), as the page does. Then the
// instructor's command (scripts/grade-code.mjs + poslab grade) re-runs a
// downloaded submission — with hostile files beside it — to the page's score.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { loadLab, cliPath } from './helpers.mjs';
import { runPython } from '../../scripts/py-sandbox.mjs';
import { solutions, mistakes } from '../fixtures/code/solutions.mjs';

const require = createRequire(import.meta.url);
const yaml = require('js-yaml');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const exercise = yaml.load(fs.readFileSync(path.join(root, 'exercises/12-write-the-code.yaml'), 'utf8'));
const question = (id) => exercise.blocks.find((b) => b.id === id);
const LEARNER = 'code-tester@example.org';

let lab;
let variant;
let seed;
let contentHash;
before(async () => {
  lab = await loadLab();
  ({ variant, seed, contentHash } = lab.variant({ exercise, learner: LEARNER }));
});

async function attempt(id, code) {
  const q = question(id);
  const hidden = variant[`code:${id}`].hidden;
  const r = await runPython({ code, fn: q.function, cases: hidden.map((c) => c.args), timeLimitMs: q.time_limit_ms ?? 2000 });
  const answer = { code, status: r.status, ...(r.status === 'ok' ? { results: r.results } : { message: String(r.message ?? '').slice(0, 1500) }) };
  return { answer, result: lab.checkAttempt({ exercise, question: id, answer, variant }) };
}

test('the six exercises: every correct solution passes every hidden case', async () => {
  const ids = exercise.blocks.filter((b) => b.type === 'code').map((b) => b.id);
  assert.deepEqual(ids, ['sinusoidal', 'add-position', 'attention-row', 'causal-mask', 'masked-softmax', 'rope', 'alibi']);
  for (const id of ids) {
    const { result } = await attempt(id, solutions[id]);
    assert.equal(result.status, 'correct', `${id}: ${JSON.stringify(result.detail)}`);
    assert.equal(result.score, 1);
  }
});

test('hidden cases include a case that must raise (odd d_model, odd length) and differ per learner', () => {
  assert.ok(variant['code:sinusoidal'].hidden.some((c) => c.raises === 'ValueError' && c.args[1] % 2 === 1));
  assert.ok(variant['code:rope'].hidden.some((c) => c.raises === 'ValueError' && c.args[0].length % 2 === 1));
  const other = lab.variant({ exercise, learner: 'someone-else' }).variant;
  assert.notDeepEqual(other['code:sinusoidal'].hidden, variant['code:sinusoidal'].hidden);
});

test('each named mistake is detected by its name, with the file\'s feedback', async () => {
  for (const [id, name, code] of mistakes) {
    const { result } = await attempt(id, code);
    assert.notEqual(result.status, 'correct', `${id}/${name}`);
    assert.equal(result.detail.mistake, name, `${id}/${name}: ${JSON.stringify(result.detail)}`);
    assert.equal(result.feedback.en, question(id).mistakes.find((m) => m.name === name).feedback.en);
  }
});

test('wrong shape, wrong type, an exception, no raise, a timeout and a syntax error are reported', async () => {
  const shape = await attempt('causal-mask', 'def causal_mask(seq_len):\n    return [[1] * seq_len for _ in range(seq_len + 1)]\n');
  assert.equal(shape.result.detail.failed.kind, 'shape');
  assert.deepEqual(shape.result.detail.failed.at, []);
  const type = await attempt('alibi', 'def alibi_slopes(n_heads):\n    return [str(k) for k in range(n_heads)]\n');
  assert.equal(type.result.detail.failed.kind, 'type');
  assert.equal(type.result.detail.failed.got, 'str');
  assert.deepEqual(type.result.detail.failed.at, [0]);
  const exc = await attempt('attention-row', 'def attention_row(q, keys, values):\n    return q[100]\n');
  assert.equal(exc.result.detail.failed.kind, 'exception');
  assert.equal(exc.result.detail.failed.error, 'IndexError');
  const noRaise = await attempt('sinusoidal', solutions.sinusoidal.replace('raise ValueError("d_model must be even")', 'return []'));
  assert.equal(noRaise.result.status, 'partial');
  assert.equal(noRaise.result.detail.failed.kind, 'no_raise');
  const loop = await attempt('rope', 'def rope_rotate(x, pos, base):\n    while True:\n        pass\n');
  assert.equal(loop.answer.status, 'timeout');
  assert.equal(loop.result.status, 'incorrect');
  assert.equal(loop.result.detail.kind, 'timeout');
  // MicroPython's WebAssembly port frees nothing until a run ends. A run that
  // packs the heap full (big blocks, then smaller ones down to 16 bytes) and
  // then raises MemoryError leaves no memory to report it in: the status is
  // still memory (it was crashed, "the harness failed"). A long time limit:
  // the filling takes about 1 s, and the status under test is not timeout.
  const full = await runPython({
    code: 'def rope_rotate(x, pos, base):\n    keep = []\n    n = 1000000\n    while True:\n        try:\n            keep.append("x" * n)\n        except MemoryError:\n            if n < 16:\n                raise\n            n //= 4\n',
    fn: 'rope_rotate', cases: [[[1, 2], 0, 10000]], timeLimitMs: 30000,
  });
  assert.equal(full.status, 'memory', JSON.stringify(full).slice(0, 300));
  assert.match(full.message, /MemoryError/);
  const syntax = await attempt('rope', 'def rope_rotate(x, pos, base)\n    return x\n');
  assert.equal(syntax.result.detail.kind, 'syntax_error');
  // A hidden case's expected values are never in the verdict.
  const wrong = await attempt('sinusoidal', mistakes[0][2]);
  assert.equal(JSON.stringify(wrong.result.detail).includes('expected'), false);
  assert.deepEqual(wrong.result.expected, []);
});

test('Run shows the visible cases with the core\'s expected values', async () => {
  const q = question('sinusoidal');
  const r = await runPython({ code: solutions.sinusoidal, fn: q.function, cases: q.cases.map((c) => c.args) });
  const v = lab.codeRun({ exercise, question: 'sinusoidal', results: r.results });
  assert.equal(v.passed, 3);
  assert.ok(Math.abs(v.cases[0].expected[1][0] - 0.8414709848) < 1e-9);  // sin 1
});

test('grade-code.mjs: one CSV; the re-grade equals the page\'s score; hostile code gets a status and other files are graded', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'code-grade-'));
  // Page-like attempts: one mistake then the solution for sinusoidal; a partial rope.
  const attempts = [];
  for (const [id, code] of [['sinusoidal', mistakes[0][2]], ['sinusoidal', solutions.sinusoidal], ['rope', mistakes[9][2]], ['alibi', solutions.alibi]]) {
    const { answer } = await attempt(id, code);
    attempts.push({ question: id, answer, lab: {}, lang: 'ja', time: new Date().toISOString() });
  }
  const page = lab.gradeExercise({ exercise, seed, attempts });
  const good = { format: 'position-lab-submission', version: 1, labVersion: '0.1.0', learner: LEARNER, exercises: [{ id: exercise.id, contentHash, seed, claimed: { points: page.points, max: page.max }, attempts }] };
  fs.writeFileSync(path.join(dir, 'good.json'), JSON.stringify(good));
  // Hostile: stored results claim success, but the code loops, prints, allocates, imports os and js.
  const fake = attempts[1].answer.results;
  const hostile = { ...good, learner: 'mallory', exercises: [{ id: exercise.id, contentHash: lab.contentHash({ exercise }), attempts: [
    { question: 'sinusoidal', answer: { code: 'def build_sinusoidal_encoding(s, d):\n    while True:\n        pass\n', status: 'ok', results: fake } },
    // One string printed forever: nothing is allocated per round, so the time limit stops it
    // (a new string per round would fill the memory first on a fast machine: see above).
    { question: 'causal-mask', answer: { code: 'LINE = "x" * 1000\ndef causal_mask(s):\n    while True:\n        print(LINE)\n', status: 'ok', results: [] } },
    { question: 'alibi', answer: { code: 'def alibi_slopes(n):\n    return [0] * (10 ** 9)\n', status: 'ok', results: [] } },
    { question: 'rope', answer: { code: 'import os\ndef rope_rotate(x, p, b):\n    return os.listdir("/")\n', status: 'ok', results: [] } },
    { question: 'attention-row', answer: { code: 'import js\ndef attention_row(q, k, v):\n    return js.fetch("http://example.com")\n', status: 'ok', results: [] } },
  ] }] };
  fs.writeFileSync(path.join(dir, 'hostile.json'), JSON.stringify(hostile));
  fs.writeFileSync(path.join(dir, 'broken.json'), '{ not json');
  const r = spawnSync(process.execPath, [path.join(root, 'scripts/grade-code.mjs'), '--exercises', path.join(root, 'exercises'), '--poslab', cliPath,
    path.join(dir, 'good.json'), path.join(dir, 'hostile.json'), path.join(dir, 'broken.json')], { encoding: 'utf8', timeout: 300000 });
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines[0], 'file,learner,exercise,points,max,claimed_points,claimed_differs,status,message,flags,code_runs', r.stderr);
  const row = (name) => lines.find((l) => l.includes(name)).split(',');
  const goodRow = row('good.json');
  assert.equal(goodRow[7], 'graded');
  assert.equal(Number(goodRow[3]), Math.round(page.points * 1e6) / 1e6);
  assert.equal(goodRow[6], 'no');
  const hostileRow = lines.find((l) => l.includes('hostile.json')) + `\n(grade-code's stderr: ${r.stderr.slice(0, 2000)})`;
  assert.match(hostileRow, /sinusoidal:timeout=1/);
  assert.match(hostileRow, /causal-mask:timeout=1/);
  assert.match(hostileRow, /attention-row:load_error=1/);
  assert.match(hostileRow, /rope:load_error=1/);
  assert.match(hostileRow, /alibi:memory=1/);  // ran; the case raised MemoryError: the run's status is memory
  assert.equal(Number(hostileRow.split(',')[3]), 0);  // the forged results earned nothing
  assert.match(row('broken.json').join(','), /invalid_file/);
  fs.rmSync(dir, { recursive: true, force: true });
});
