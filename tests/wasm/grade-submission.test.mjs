// gradeSubmission (wasm) is `poslab grade`'s per-file re-grade, the same core
// function: for the same files — a generated class (made as the page makes
// submissions), a tampered one, one from an older exercise version, and
// hostile files — its rows equal the CLI's JSON rows field for field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { loadLab, cliPath } from './helpers.mjs';
import { loadExercises } from '../../web/js/exercise-loader.mjs';
import { makeClass, exerciseData } from '../e2e/class-submissions.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('gradeSubmission gives the rows poslab grade gives, for good, tampered and hostile files', { timeout: 120000 }, async () => {
  const lab = await loadLab();
  const exercises = loadExercises(path.join(root, 'exercises')).map(exerciseData);
  const { files } = makeClass(lab, exercises, 12);
  const dir = mkdtempSync(path.join(tmpdir(), 'poslab-gradesub-'));
  try {
    const all = [
      ...files.map((f) => ({ name: f.name, text: f.text })),
      { name: 'not-json.json', text: 'hello' },
      { name: 'deep.json', text: '['.repeat(40) + ']'.repeat(40) },
      { name: 'foreign.json', text: '{"format": "something-else"}' },
      { name: 'bad-learner.json', text: JSON.stringify({ format: 'position-lab-submission', version: 1, learner: '', exercises: [] }) },
      { name: 'dup.json', text: JSON.stringify({ ...JSON.parse(files[0].text), exercises: [...JSON.parse(files[0].text).exercises, JSON.parse(files[0].text).exercises[0]] }) },
    ];
    const paths = all.map((f) => {
      const p = path.join(dir, f.name);
      writeFileSync(p, f.text);
      return p;
    });
    const r = spawnSync(cliPath, ['grade', '--exercises', path.join(root, 'exercises'), '--format', 'json', ...paths], { encoding: 'utf8', maxBuffer: 1 << 28 });
    assert.equal(r.status, 1);
    const cliRows = JSON.parse(r.stdout).rows;
    const wasmRows = all.flatMap((f, k) => lab.gradeSubmission({ exercises, file: paths[k], text: f.text }));
    assert.equal(wasmRows.length, cliRows.length);
    assert.deepEqual(wasmRows, cliRows);
    // The batch covers the statuses and flags it claims to.
    const statuses = new Set(cliRows.map((x) => x.status));
    for (const s of ['graded', 'invalid_file', 'too_large', 'hash_mismatch']) assert.ok(statuses.has(s), s);
    assert.ok(cliRows.some((x) => x.flags.includes('duplicate_entries:2')));
    assert.ok(cliRows.some((x) => x.questions?.some((q) => q.wrong.some((w) => w.mistake?.id === 'mistake-1'))));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('gradeSubmission keeps the exercises of the last call that gave them; with none yet it says so', async () => {
  const lab = await loadLab();
  assert.throws(() => lab.gradeSubmission({ file: 'a.json', text: '{}' }), (e) => e.code === 'bad_exercises' && /no exercises yet/.test(e.message));
  const exercises = loadExercises(path.join(root, 'exercises')).map(exerciseData);
  const { files } = makeClass(lab, exercises, 3);
  const first = lab.gradeSubmission({ exercises, file: files[0].name, text: files[0].text });
  for (const f of files) {
    assert.deepEqual(lab.gradeSubmission({ file: f.name, text: f.text }), lab.gradeSubmission({ exercises, file: f.name, text: f.text }));
  }
  assert.equal(first[0].status, 'graded');
  // A new list replaces the kept one: with no exercises at all, every entry is unknown.
  assert.equal(lab.gradeSubmission({ exercises: [], file: 'x', text: files[0].text })[0].status, 'unknown_exercise');
  assert.equal(lab.gradeSubmission({ file: 'x', text: files[0].text })[0].status, 'unknown_exercise');
});

test('gradeSubmission refuses a request that is not one, with a code', async () => {
  const lab = await loadLab();
  assert.throws(() => lab.gradeSubmission({ exercises: 'no', text: '{}' }), (e) => e.code === 'bad_exercises');
  assert.throws(() => lab.gradeSubmission({ exercises: [], text: 3 }), (e) => e.code === 'bad_submission');
  // An exercise list with two of one id is refused, as the CLI refuses such a folder.
  assert.throws(() => lab.gradeSubmission({ exercises: [{ id: 'a' }, { id: 'a' }], text: '{}' }), /also in/);
});
