// scripts/grade-code.mjs run as the instructor runs it (a child process),
// with a stand-in poslab (a small script that answers code-attempts and grade
// as each test's submission file tells it, and logs its arguments) and a
// stand-in Python sandbox (tests/web/grade-code-stub.mjs): the options, the
// order of the steps, what reaches the grader, the budget, the sandbox checks,
// the output formats and the exit status. The real core and sandbox are
// tested end to end in tests/wasm/code.test.mjs.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const script = join(root, 'scripts/grade-code.mjs');
const stub = join(root, 'tests/web/grade-code-stub.mjs');
const work = mkdtempSync(join(tmpdir(), 'grade-code-test-'));
after(() => rmSync(work, { recursive: true, force: true }));

// The stand-in poslab. A submission file is JSON: {id, list (code-attempts'
// answer) | listStatus/listStdout/listStderr, gradeStatus, gradeStderr, rows}.
const poslab = join(work, 'poslab');
writeFileSync(
  poslab,
  `#!${process.execPath}
const fs = require('node:fs');
const argv = process.argv.slice(2);
fs.appendFileSync(process.env.FAKE_POSLAB_LOG, JSON.stringify(argv) + '\\n');
const file = argv[argv.indexOf('--') + 1];
const exit = (code, out = '', err = '') => { process.stdout.write(out); process.stderr.write(err); process.exit(code); };
if (argv[0] === 'grade' && file === '/dev/null') {
  if (process.env.FAKE_POSLAB_HEADER === 'fail') exit(2, '', 'poslab: --exercises: no such folder\\n');
  exit(0, 'learner,question,score\\nnot,a,header\\n');
}
const c = JSON.parse(fs.readFileSync(file, 'utf8'));
if (argv[0] === 'code-attempts') {
  if (c.listStatus !== undefined) exit(c.listStatus, c.listStdout ?? '', c.listStderr ?? '');
  exit(0, JSON.stringify(c.list));
}
if (argv[0] === 'grade') {
  const results = JSON.parse(fs.readFileSync(argv[argv.indexOf('--code-results') + 1], 'utf8'));
  const format = argv[argv.indexOf('--format') + 1];
  const rows = Array.from({ length: c.rows ?? 1 }, (_, i) => ({ id: c.id, n: i, results: results[file] }));
  const out = format === 'json' ? JSON.stringify({ rows }) : rows.map((r) => r.id + ',' + r.n + ',' + Buffer.from(JSON.stringify(r.results)).toString('base64') + '\\n').join('');
  exit(c.gradeStatus ?? 0, out, c.gradeStderr ?? '');
}
exit(9, '', 'unexpected ' + argv.join(' '));
`,
);
chmodSync(poslab, 0o755);

let n = 0;
// A submission file for the stand-in poslab.
function submission(config) {
  const f = join(work, `s${++n}.json`);
  writeFileSync(f, JSON.stringify(config));
  return f;
}
// A listed attempt whose "code" says what the stand-in sandbox returns.
const attempt = (key, result, o = {}) => ({ key, runnable: true, code: JSON.stringify(result), function: 'f', timeLimitMs: 1500, cases: [[1]], ...o });
const list = (learner, attempts) => ({ ok: true, learner, attempts });

function gradeCode(args, { sandboxStatus, header, poslabPath = poslab } = {}) {
  const log = join(work, `log${++n}`);
  const runs = join(work, `runs${n}`);
  const r = spawnSync(process.execPath, ['--import', stub, script, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, FAKE_POSLAB_LOG: log, FAKE_SANDBOX_LOG: runs, ...(sandboxStatus ? { FAKE_SANDBOX_STATUS: sandboxStatus } : {}), ...(header ? { FAKE_POSLAB_HEADER: header } : {}) },
  });
  const lines = (f) => (existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, calls: lines(log), runs: lines(runs) };
}
const std = (files, more = []) => ['--exercises', 'EXDIR', '--poslab', poslab, ...more, '--', ...files];
// CSV rows of the stand-in: id,n,base64(results)
const csvRows = (stdout) => stdout.split('\n').filter(Boolean).slice(1).map((l) => {
  const [id, i, b64] = l.split(',');
  return { id, n: Number(i), results: JSON.parse(Buffer.from(b64, 'base64').toString()) };
});
const USAGE = 'usage: node scripts/grade-code.mjs --exercises DIR [--poslab PATH] [--format csv|json] [--budget-s SECONDS] [--no-sandbox] [--] SUBMISSION.json…';

test('usage errors: exit 2 with what was wrong and the usage line', () => {
  const cases = [
    [[], '--exercises DIR is required'],
    [['--exercises', 'D'], 'at least one SUBMISSION.json is required'],
    [['--exercises', 'D', '--format', 'xml', 'a.json'], '--format is csv or json'],
    [['--exercises'], '--exercises needs a value'],
    [['--exercises', 'D', 'a.json', '--format'], '--format needs a value'],
    [['--exercises', 'D', '--budget-s', 'abc', 'a.json'], "--budget-s is a number of seconds above 0 and at most 86400, got 'abc'"],
    [['--exercises', 'D', '--budget-s', '0', 'a.json'], "--budget-s is a number of seconds above 0 and at most 86400, got '0'"],
    [['--exercises', 'D', '--budget-s', '86401', 'a.json'], "--budget-s is a number of seconds above 0 and at most 86400, got '86401'"],
    [['--exercises', 'D', '--budget-s', '1e3', 'a.json'], "--budget-s is a number of seconds above 0 and at most 86400, got '1e3'"],
    [['--exercises', 'D', '--budget-s', '-5', 'a.json'], "--budget-s is a number of seconds above 0 and at most 86400, got '-5'"],
    [['--exercises', 'D', '--budget-s', ' 5', 'a.json'], "--budget-s is a number of seconds above 0 and at most 86400, got ' 5'"],
    [['--exercises', 'D', '--budget-s', '5 ', 'a.json'], "--budget-s is a number of seconds above 0 and at most 86400, got '5 '"],
    [['--exercises', 'D', '-x', 'a.json'], 'unknown option -x (put -- before a file whose name starts with -)'],
  ];
  for (const [args, msg] of cases) {
    const r = gradeCode(args);
    assert.equal(r.status, 2, args.join(' '));
    assert.equal(r.stderr, `grade-code: ${msg}\n${USAGE}\n`, args.join(' '));
    assert.equal(r.stdout, '');
    assert.deepEqual(r.calls, []);
  }
  for (const help of ['--help', '-h']) {
    const r = gradeCode(['--exercises', 'D', help, 'a.json']);
    assert.equal(r.status, 2);
    assert.equal(r.stderr, `${USAGE}\n`);
  }
});

test('the grader refusing the exercises (its header call) is a usage error with its words; a missing poslab too', () => {
  const r = gradeCode(std([submission({})]), { header: 'fail' });
  assert.equal(r.status, 2);
  assert.equal(r.stderr, `grade-code: --exercises: no such folder\n${USAGE}\n`);
  const missing = gradeCode(['--exercises', 'D', '--poslab', join(work, 'nope'), submission({})]);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /^grade-code: Error: spawnSync .*nope ENOENT\n/);
});

test('CSV: the header once, then each file: listed, run, graded with the results out of band; exit 0', () => {
  const a = submission({ id: 'A', rows: 2, list: list('L1', [attempt('k1', { status: 'ok', results: [{ ok: true, value: 2 }], output: '' }), attempt('k2', { status: 'syntax_error', message: 'bad' }, { runnable: false })]) });
  const b = submission({ id: 'B', list: list('L2', [attempt('k3', { status: 'import_refused', module: 'os' }, { function: 'g', timeLimitMs: 700, cases: [[3], [4]] })]) });
  const r = gradeCode(std([a, b]));
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n');
  assert.equal(lines[0], 'learner,question,score');
  // What reaches the grader: the status and results (or message) of each run, nothing else it printed.
  assert.deepEqual(csvRows(r.stdout), [
    { id: 'A', n: 0, results: { k1: { status: 'ok', results: [{ ok: true, value: 2 }] } } },
    { id: 'A', n: 1, results: { k1: { status: 'ok', results: [{ ok: true, value: 2 }] } } },
    // import_refused is graded as the core knows it: a load error.
    { id: 'B', n: 0, results: { k3: { status: 'load_error', message: '' } } },
  ]);
  assert.equal(r.stdout.endsWith('\n'), true);
  // Each run as listed: the code, the function, the cases, the time limit; the sandbox on.
  assert.deepEqual(r.runs.map((x) => [x.fn, x.cases, x.timeLimitMs, x.sandbox]), [['f', [[1]], 1500, undefined], ['g', [[3], [4]], 700, undefined]]);
  assert.deepEqual(r.calls.map((c) => c.slice(0, 3)), [['grade', '--exercises', 'EXDIR'], ['code-attempts', '--exercises', 'EXDIR'], ['grade', '--exercises', 'EXDIR'], ['code-attempts', '--exercises', 'EXDIR'], ['grade', '--exercises', 'EXDIR']]);
  assert.deepEqual(r.calls[0], ['grade', '--exercises', 'EXDIR', '--format', 'csv', '--', '/dev/null']);
  assert.deepEqual(r.calls[1], ['code-attempts', '--exercises', 'EXDIR', '--', a]);
  const g = r.calls[2];
  assert.deepEqual([g[3], g[5], g[6], g[7], g[8], g[9], g[10]], ['--code-results', '--format', 'csv', '--no-header', '--', a, undefined]);
  // The results file is gone once graded.
  assert.equal(existsSync(g[4]), false);
  assert.equal(r.stderr, 'grade-code: 2 file(s), 3 row(s), 2 code run(s)\n');
});

test('JSON: rows from every file in one object with the counts', () => {
  const a = submission({ id: 'A', rows: 2, list: list('L', []) });
  const b = submission({ id: 'B', list: list('L', [attempt('k', { status: 'ok', results: [] })]) });
  const r = gradeCode(std([a, b], ['--format', 'json']));
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.endsWith('\n'), true);
  assert.deepEqual(JSON.parse(r.stdout), {
    rows: [{ id: 'A', n: 0, results: {} }, { id: 'A', n: 1, results: {} }, { id: 'B', n: 0, results: { k: { status: 'ok', results: [] } } }],
    files: 2,
    runs: 1,
  });
  assert.equal(r.calls.filter((c) => c[0] === 'grade').length, 2);
  assert.equal(r.calls.some((c) => c.includes('--no-header')), false);
  assert.deepEqual(r.calls[1].slice(5, 7), ['--format', 'json']);
  const none = gradeCode(std([submission({ id: 'C', rows: 0, list: list('L', []) })], ['--format', 'json']));
  assert.deepEqual(JSON.parse(none.stdout), { rows: [], files: 1, runs: 0 });
});

test('a file the grader flags (exit 1) is written and counted; one it fails on (exit 2) is said and skipped; the others go on', () => {
  const flagged = submission({ id: 'F', gradeStatus: 1, list: list('L', []) });
  const broken = submission({ id: 'X', gradeStatus: 2, gradeStderr: 'poslab: ' + 'e'.repeat(600), list: list('L', []) });
  const fine = submission({ id: 'G', list: list('L', []) });
  const r = gradeCode(std([flagged, broken, fine]));
  assert.equal(r.status, 1);
  assert.deepEqual(csvRows(r.stdout).map((x) => x.id), ['F', 'G']);
  const err = r.stderr.split('\n');
  assert.equal(err[0], `grade-code: ${broken}: poslab grade failed (status 2): ${('poslab: ' + 'e'.repeat(600)).slice(0, 500)}`);
  assert.equal(err[1], `grade-code: 3 file(s), 2 row(s), 0 code run(s); 2 file(s) not graded or flagged: ${flagged}, ${broken}`);
});

test('more than 20 files not graded: the first 20 named, then …', () => {
  const files = Array.from({ length: 21 }, (_, i) => submission({ id: `F${i}`, gradeStatus: 1, list: list('L', []) }));
  const r = gradeCode(std(files, ['--format', 'json']));
  assert.equal(r.status, 1);
  assert.equal(JSON.parse(r.stdout).rows.length, 21);
  assert.equal(r.stderr, `grade-code: 21 file(s), 21 row(s), 0 code run(s); 21 file(s) not graded or flagged: ${files.slice(0, 20).join(', ')}, …\n`);
});

test('code-attempts: a usage error stops with its words; an unreadable or failed list runs nothing and still grades', () => {
  const bad = submission({ listStatus: 2, listStderr: 'poslab: code-attempts: bad flag\n' });
  const r = gradeCode(std([bad]));
  assert.equal(r.status, 2);
  assert.equal(r.stderr, `grade-code: code-attempts: bad flag\n${USAGE}\n`);
  const garbled = submission({ id: 'G', listStatus: 0, listStdout: '{not json' });
  const failed = submission({ id: 'H', listStatus: 1, listStdout: JSON.stringify(list('L', [attempt('k', { status: 'ok' })])) });
  const notOk = submission({ id: 'I', list: { ok: false, learner: 'L', attempts: [attempt('k', { status: 'ok' })] } });
  const g = gradeCode(std([garbled, failed, notOk]));
  assert.equal(g.status, 0, g.stderr);
  assert.deepEqual(csvRows(g.stdout), [{ id: 'G', n: 0, results: {} }, { id: 'H', n: 0, results: {} }, { id: 'I', n: 0, results: {} }]);
  assert.deepEqual(g.runs, []);
});

test('the budget is per learner over all their files: past it, not_rerun(budget)', () => {
  // Each run takes 60 ms; a budget of 0.05 s lets one run per learner.
  const slow = (key) => attempt(key, { status: 'ok', results: [], sleepMs: 60 });
  const a = submission({ id: 'A', list: list('L1', [slow('a1'), slow('a2')]) });
  const b = submission({ id: 'B', list: list('L1', [slow('b1')]) });
  const c = submission({ id: 'C', list: list('L2', [slow('c1')]) });
  const r = gradeCode(std([a, b, c], ['--budget-s', '0.05']));
  assert.equal(r.status, 0, r.stderr);
  const budget = { status: 'not_rerun', reason: 'budget' };
  const ran = { status: 'ok', results: [] };
  assert.deepEqual(csvRows(r.stdout).map((x) => x.results), [{ a1: ran, a2: budget }, { b1: budget }, { c1: ran }]);
  assert.equal(r.runs.length, 2);
  assert.match(r.stderr, /3 file\(s\), 3 row\(s\), 2 code run\(s\)\n$/);
});

test('--budget-s is in seconds: --budget-s 1 lets three 20 ms runs of one learner through (read as milliseconds, only the first would run)', () => {
  const quick = (key) => attempt(key, { status: 'ok', results: [], sleepMs: 20 });
  const a = submission({ id: 'A', list: list('L1', [quick('a1'), quick('a2'), quick('a3')]) });
  const r = gradeCode(std([a], ['--budget-s', '1']));
  assert.equal(r.status, 0, r.stderr);
  const ran = { status: 'ok', results: [] };
  assert.deepEqual(csvRows(r.stdout).map((x) => x.results), [{ a1: ran, a2: ran, a3: ran }]);
  assert.equal(r.runs.length, 3);
});

test('the sandbox unavailable: nothing runs, every code attempt not_rerun(sandbox_unavailable), exit 3 with the reason', () => {
  const cases = [
    ['{"ok":false,"reason":"bwrap missing"}', 'bwrap missing'],
    ['{"available":false,"message":"no userns"}', 'no userns'],
    ['false', 'sandboxStatus() said no'],
    ['{"ok":false}', 'sandboxStatus() said no'],
    ['throw', 'status check blew up'],
  ];
  for (const [status, reason] of cases) {
    const f = submission({ id: 'A', list: list('L', [attempt('k', { status: 'ok', results: [] })]) });
    const r = gradeCode(std([f]), { sandboxStatus: status });
    assert.equal(r.status, 3, status);
    assert.deepEqual(csvRows(r.stdout)[0].results, { k: { status: 'not_rerun', reason: 'sandbox_unavailable' } }, status);
    assert.deepEqual(r.runs, []);
    assert.equal(r.stderr.split('\n')[0], `grade-code: the sandbox is unavailable (${reason}); no student code will be run: every code attempt scores 0 (not_rerun(sandbox_unavailable)). Fix the sandbox, or pass --no-sandbox for trusted input only.`, status);
  }
  for (const status of ['true', '{"available":true}', '{"ok":true}', 'absent']) {
    const r = gradeCode(std([submission({ id: 'A', list: list('L', [attempt('k', { status: 'ok', results: [] })]) })]), { sandboxStatus: status });
    assert.equal(r.status, 0, status);
    assert.equal(r.runs.length, 1, status);
    assert.equal(r.stderr, 'grade-code: 1 file(s), 1 row(s), 1 code run(s)\n', status);
  }
});

test('--no-sandbox: no status check, a warning first and on every run, the runs without the sandbox', () => {
  const f = submission({ id: 'A', list: list('L', [attempt('k1', { status: 'ok', results: [] }), attempt('k2', { throw: 'worker died' })]) });
  const r = gradeCode(std([f], ['--no-sandbox']), { sandboxStatus: 'throw' });
  assert.equal(r.status, 0, r.stderr);
  const err = r.stderr.split('\n');
  assert.equal(err[0], 'grade-code: WARNING: --no-sandbox: student code runs WITHOUT the operating-system sandbox. Use it only for submissions you trust.');
  assert.equal(err.filter((l) => l === 'grade-code: WARNING: running student code without the sandbox (--no-sandbox)').length, 2);
  assert.deepEqual(r.runs.map((x) => x.sandbox), [false, false]);
  // A run that throws is a crash with its message.
  assert.deepEqual(csvRows(r.stdout)[0].results.k2, { status: 'crashed', message: 'worker died' });
});

test('options may come in any order; files before -- and a file named like an option after it', () => {
  const a = submission({ id: 'A', list: list('L', []) });
  const dash = join(work, '-odd.json');
  writeFileSync(dash, JSON.stringify({ id: 'D', list: list('L', []) }));
  const r = gradeCode([a, '--poslab', poslab, '--format', 'csv', '--exercises', 'EX2', '--', dash]);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(csvRows(r.stdout).map((x) => x.id), ['A', 'D']);
  assert.equal(r.calls[0][2], 'EX2');
});
