// One parser, one writer (issue 21): the wasm bytes calls (codeAttempts,
// gradeSubmissionBytes) read a file exactly as `poslab code-attempts` and
// `poslab grade` do — a NUL after the JSON, one or two BOMs, a byte that is
// not UTF-8, the learner id --help —, grading takes re-run results only out
// of band, and the CSV the page writes (gradeCsv, csvTable) is the CLI's, cell
// for cell. The right results for the honest attempt are computed here from
// the formula (PE[p][2i] = sin(p/10000^(2i/d)), cos for 2i+1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { loadLab, cliPath } from './helpers.mjs';
import { loadExercises } from '../../web/js/exercise-loader.mjs';
import { exerciseData } from '../e2e/class-submissions.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const exDir = path.join(root, 'exercises');

const pe = (S, D) => Array.from({ length: S }, (_, p) => Array.from({ length: D }, (_, k) => {
  const a = p / 10000 ** ((2 * Math.floor(k / 2)) / D);
  return k % 2 ? Math.cos(a) : Math.sin(a);
}));
const right = (cases) => cases.map(([S, D]) => (D % 2 ? { ok: false, error: 'ValueError', message: 'odd' } : { ok: true, value: pe(S, D) }));

test('codeAttempts and gradeSubmissionBytes read every byte as the CLI does; results only out of band; one CSV', { timeout: 180000 }, async () => {
  const lab = await loadLab();
  assert.equal(lab.limits.maxCodeChars, 10000);
  const exercises = loadExercises(exDir).map(exerciseData);
  const code = exercises.find((e) => e.id === 'write-the-code');
  const calc = exercises.find((e) => e.id === 'hand-calc');
  const hash = (e) => lab.contentHash({ exercise: e });
  const JUNK = 'def build_sinusoidal_encoding(seq_len, d_model):\n    return 0\n';
  const sub = (learner, codeText, extra = []) =>
    JSON.stringify({
      format: 'position-lab-submission', version: 1, learner,
      exercises: [
        { id: code.id, contentHash: hash(code), attempts: [...extra, { question: 'sinusoidal', answer: { code: codeText, status: 'ok', results: [{ forged: true }] } }] },
        { id: calc.id, contentHash: hash(calc), attempts: [{ question: 'softmax-a', answer: ['0.670', '0.330'] }] },
      ],
    });
  const enc = new TextEncoder();
  const files = {
    'honest.json': enc.encode(sub('José;\u202Eevil', JUNK)),
    'nul.json': enc.encode(`${sub('ann', JUNK)}\u0000junk`),
    'bom1.json': enc.encode(`\uFEFF${sub('ann', JUNK)}`),
    'bom2.json': enc.encode(`\uFEFF\uFEFF${sub('ann', JUNK)}`),
    'long.json': enc.encode(sub('ann', `${JUNK}#${'x'.repeat(10000)}`)),
    'cap.json': enc.encode(sub('ann', JUNK, Array.from({ length: 200 }, () => ({ question: 'sinusoidal', lab: { dModel: 999999 }, answer: { code: 'x' } })))),
    'help.json': enc.encode(sub('--help', JUNK)),
    'latin1.json': Uint8Array.from([...enc.encode(sub('ann', JUNK)).slice(0, 60), 0xe9, ...enc.encode(sub('ann', JUNK)).slice(60)]),
  };
  const dir = mkdtempSync(path.join(tmpdir(), 'poslab-trust-'));
  try {
    const paths = Object.keys(files).map((name) => {
      const p = path.join(dir, name);
      writeFileSync(p, files[name]);
      return p;
    });
    // The lists: the CLI's JSON lines equal the wasm's objects.
    const l = spawnSync(cliPath, ['code-attempts', '--exercises', exDir, '--', ...paths], { encoding: 'utf8', maxBuffer: 1 << 28 });
    assert.equal(l.status, 0, l.stderr);
    const cliLists = l.stdout.trim().split('\n').map((x) => JSON.parse(x));
    const wasmLists = Object.values(files).map((bytes, k) => lab.codeAttempts({ exercises, file: paths[k], bytes }));
    assert.deepEqual(wasmLists, cliLists);
    const byName = Object.fromEntries(Object.keys(files).map((n, k) => [n, wasmLists[k]]));
    for (const n of ['nul.json', 'bom2.json', 'latin1.json']) assert.equal(byName[n].ok, false, n);
    for (const n of ['honest.json', 'bom1.json', 'cap.json', 'help.json']) assert.equal(byName[n].attempts.length, 1, n);
    assert.equal(byName['help.json'].learner, '--help');
    assert.equal(byName['long.json'].attempts[0].runnable, false);
    assert.equal(byName['long.json'].attempts[0].reason, 'too_long');
    assert.equal(byName['cap.json'].attempts[0].key, 'write-the-code/sinusoidal/200');

    // Re-run results: the honest file's are right (computed here), the others' junk (0 on every case).
    const results = {};
    Object.keys(files).forEach((n, k) => {
      results[paths[k]] = Object.fromEntries(byName[n].attempts.filter((a) => a.runnable).map((a) => [a.key, { status: 'ok', results: n === 'honest.json' ? right(a.cases) : a.cases.map(() => ({ ok: true, value: 0 })) }]));
    });
    const resultsFile = path.join(dir, 'results.json');
    writeFileSync(resultsFile, JSON.stringify(results));
    const g = spawnSync(cliPath, ['grade', '--exercises', exDir, '--code-results', resultsFile, '--format', 'json', '--', ...paths], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const cliRows = JSON.parse(g.stdout).rows;
    const wasmRows = Object.values(files).flatMap((bytes, k) => lab.gradeSubmissionBytes({ file: paths[k], bytes, codeResults: results[paths[k]] }));
    assert.deepEqual(wasmRows, cliRows);
    const sin = (file) => wasmRows.find((r) => r.file === path.join(dir, file) && r.exercise === 'write-the-code')?.questions.find((q) => q.id === 'sinusoidal').points;
    assert.equal(sin('honest.json'), 1);
    for (const n of ['bom1.json', 'cap.json', 'help.json', 'long.json']) assert.equal(sin(n), 0, n);
    // The text call (gradeSubmission) with the same results gives the same rows for a UTF-8 file.
    assert.deepEqual(lab.gradeSubmission({ file: paths[0], text: new TextDecoder().decode(files['honest.json']), codeResults: results[paths[0]] }), wasmRows.filter((r) => r.file === paths[0]));

    // One CSV: the page's gradeCsv equals poslab grade's CSV, byte for byte.
    const c = spawnSync(cliPath, ['grade', '--exercises', exDir, '--code-results', resultsFile, '--', ...paths], { encoding: 'utf8', maxBuffer: 1 << 28 });
    assert.equal(lab.gradeCsv({ rows: wasmRows }), c.stdout);
    assert.ok(c.stdout.includes('"José;\\u202Eevil"'), 'the learner with ; is quoted, U+202E shown');
    // csvTable: the same cells and numbers (5/3 → 1.666667, as the rows' writer).
    assert.equal(lab.csvTable({ rows: [['a;b', 5 / 3, null, '=x', 2]], bom: false }), '"a;b",1.666667,,\'=x,2\r\n');
    assert.equal(lab.displayText({ text: 'a\u202Eb\u200Bc' }), 'a\\u202Eb\\u200Bc');
    // NFC in wasm too (the JS engine's ICU), as natively (ICU): composed and decomposed José are one name.
    assert.equal(lab.displayText({ text: 'Jose\u0301' }), 'Jos\u00e9');
    assert.equal(lab.displayText({ text: '\u1100\u1161' }), '\uac00');
    assert.throws(() => lab.csvTable({ rows: [[{}]] }), (e) => e.code === 'bad_csv');
    assert.throws(() => lab.codeAttempts({ file: 'x', bytes: 'text' }), (e) => e.code === 'bad_submission' && /Uint8Array/.test(e.message));
    assert.throws(() => lab.gradeSubmission({ file: 'x', text: '{}', codeResults: [1] }), (e) => e.code === 'bad_submission');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
