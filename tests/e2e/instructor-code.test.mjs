// The class results page re-runs code: submissions with answers to the code
// exercise (exercises/12-write-the-code.yaml), made here as the lab page
// makes them (the code run in the sandbox on the learner's hidden cases, the
// claimed score from the core's gradeExercise), are picked on
// dist/instructor.html:
//   honest  — correct sinusoidal and alibi;
//   forger  — a wrong sinusoidal (sin/cos swapped) whose stored results are
//             the correct function's, so the file claims full marks;
//   looper  — a sinusoidal that never returns (stored results forged too)
//             and a correct alibi;
//   hostile — print spam, a huge allocation, import os, import js, all
//             stored as if they passed;
// beside two learners without code (tests/e2e/class-submissions.mjs). The
// page's points per learner must equal `node scripts/grade-code.mjs`'s for
// the same files — not the forged claim —, the looper's sinusoidal shows its
// timeout (and its alibi still counts), the others are unaffected; the
// roster CSV has the code_runs column; axe clean (1280 and 390 px); ja and en.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { root, dist, startLab, nodeCore, openPage, axeViolations, cliPath, artifacts } from './helpers.mjs';
import { makeClass, exerciseData } from './class-submissions.mjs';
import { runPython } from '../../scripts/py-sandbox.mjs';
import { solutions, mistakes } from '../fixtures/code/solutions.mjs';

const dir = mkdtempSync(join(tmpdir(), 'poslab-instructor-code-'));
const exercises = JSON.parse(readFileSync(join(dist, 'exercises.json'), 'utf8'));
const code = exerciseData(exercises.find((e) => e.id === 'write-the-code'));
const question = (id) => code.blocks.find((b) => b.id === id);
const LOOP = 'def build_sinusoidal_encoding(seq_len, d_model):\n    while True:\n        pass\n';
const WRONG = mistakes.find(([id, name]) => id === 'sinusoidal' && name === 'sin_cos_swapped')[2];
let lab;
let core;
let paths;
let claimed;
const names = { honest: 'code-honest@example.org', forger: 'code-forger@example.org', looper: 'code-looper@example.org', hostile: 'code-hostile@example.org' };
// Stored as if they ran fine; each must end as grade-code.mjs says.
const HOSTILE = [
  // One string printed forever (no allocation per round, so always the time limit: a new string per round can fill MicroPython's heap first on a fast machine).
  ['causal-mask', 'LINE = "x" * 1000\ndef causal_mask(seq_len):\n    while True:\n        print(LINE)\n'],
  ['alibi', 'def alibi_slopes(n_heads):\n    return [0] * (10 ** 9)\n'],
  ['rope', 'import os\ndef rope_rotate(x, pos, base):\n    return os.listdir("/")\n'],
  ['attention-row', 'import js\ndef attention_row(q, keys, values):\n    return js.fetch("http://example.com")\n'],
];

// An attempt as the lab page stores it: `code` run on the learner's hidden cases; `resultsOf` the code whose results are stored.
async function attempt(learner, id, codeText, resultsOf = codeText) {
  const q = question(id);
  const hidden = core.variant({ exercise: code, learner }).variant[`code:${id}`].hidden;
  const r = await runPython({ code: resultsOf, fn: q.function, cases: hidden.map((c) => c.args), timeLimitMs: q.time_limit_ms ?? 2000 });
  assert.equal(r.status, 'ok', `${id}: the stored run`);
  return { question: id, answer: { code: codeText, status: 'ok', results: r.results }, lab: {}, lang: 'ja', time: '2026-12-01T09:00:00.000Z' };
}

async function submission(learner, attempts) {
  const { seed, contentHash } = core.variant({ exercise: code, learner });
  const g = core.gradeExercise({ exercise: code, seed, attempts });
  claimed.set(learner, g.points);
  return { format: 'position-lab-submission', version: 1, labVersion: '0.1.0', learner, exercises: [{ id: code.id, contentHash, seed, claimed: { points: g.points, max: g.max }, attempts }] };
}

before(async () => {
  lab = await startLab();
  core = await nodeCore();
  claimed = new Map();
  const subs = {
    honest: await submission(names.honest, [await attempt(names.honest, 'sinusoidal', solutions.sinusoidal), await attempt(names.honest, 'alibi', solutions.alibi)]),
    forger: await submission(names.forger, [await attempt(names.forger, 'sinusoidal', WRONG, solutions.sinusoidal)]),
    looper: await submission(names.looper, [await attempt(names.looper, 'sinusoidal', LOOP, solutions.sinusoidal), await attempt(names.looper, 'alibi', solutions.alibi)]),
    hostile: await submission(names.hostile, await Promise.all(HOSTILE.map(([id, text]) => attempt(names.hostile, id, text, solutions[id])))),
  };
  paths = Object.entries(subs).map(([k, s]) => {
    const p = join(dir, `${k}.json`);
    writeFileSync(p, JSON.stringify(s));
    return p;
  });
  // Two learners without code answers.
  for (const f of makeClass(core, exercises, 2).files) {
    const p = join(dir, f.name);
    writeFileSync(p, f.text);
    paths.push(p);
  }
});
after(async () => {
  await lab?.close();
  rmSync(dir, { recursive: true, force: true });
});

// Points per learner and code_runs from grade-code.mjs's CSV.
function gradeCode() {
  const r = spawnSync(process.execPath, [join(root, 'scripts/grade-code.mjs'), '--exercises', join(root, 'exercises'), '--poslab', cliPath, '--', ...paths], { encoding: 'utf8', timeout: 300000 });
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines[0], 'file,learner,exercise,points,max,claimed_points,claimed_differs,status,message,flags,code_runs', r.stderr);
  const totals = new Map();
  const runs = new Map();
  for (const line of lines.slice(1)) {
    const cells = line.split(','); // no file, learner or message here holds a comma
    const [, learner, exercise, points] = cells;
    if (cells[7] === 'graded') totals.set(learner, (totals.get(learner) ?? 0) + Number(points));
    // A cell holding ; is quoted (the core's writer); none here holds a comma or a quote.
    const cell = cells[10].replace(/^"|"$/g, '');
    if (cell) runs.set(learner, cell.split(';').map((x) => `${exercise}/${x}`).join(';'));
  }
  return { totals, runs };
}

async function loadPage(mode) {
  const opened = await openPage(lab, mode, { viewport: { width: 1280, height: 800 } });
  await opened.page.goto(new URL('instructor.html', lab.bases.http).href);
  await opened.page.waitForSelector('#files', { state: 'attached' });
  // Every text the progress line shows while the files are re-graded.
  await opened.page.evaluate(() => {
    globalThis.__seen = [];
    setInterval(() => {
      const s = document.getElementById('progress')?.textContent;
      if (s && globalThis.__seen.at(-1) !== s) globalThis.__seen.push(s);
    }, 10);
  });
  await opened.page.setInputFiles('#files', paths);
  await opened.page.waitForSelector('#summary', { timeout: 240000 });
  return opened;
}

test('the page re-runs code: points equal grade-code.mjs, not the forged claim; the endless loop times out and costs only its own points', { timeout: 600000 }, async () => {
  const { totals, runs } = gradeCode();
  const { page, context, problems } = await loadPage('http');
  const shown = new Map(await page.$$eval('#roster tbody tr', (trs) => trs.map((tr) => [tr.dataset.learner, Number(tr.dataset.total)])));
  assert.equal(shown.size, 6);
  for (const [learner, total] of shown) assert.ok(Math.abs(total - totals.get(learner)) < 1e-9, `${learner}: page ${total}, grade-code.mjs ${totals.get(learner)}`);

  // The forged claim is full marks on sinusoidal; the re-run earns less (the wrong code is run, not its stored results).
  assert.equal(claimed.get(names.forger), 1, 'the forged file claims sinusoidal right');
  assert.ok(shown.get(names.forger) < claimed.get(names.forger), `forger: page ${shown.get(names.forger)}, claimed ${claimed.get(names.forger)}`);
  assert.match(await page.locator(`#roster tr[data-learner="${names.forger}"]`).textContent(), /claimed_differs:write-the-code/);
  // The honest learner's claim stands; the looper keeps alibi's point and loses sinusoidal's.
  assert.equal(shown.get(names.honest), claimed.get(names.honest));
  assert.equal(shown.get(names.honest), 2);
  assert.equal(shown.get(names.looper), 1);

  // Code runs per learner, as grade-code.mjs's code_runs column.
  const item = (learner, q) => page.locator(`#roster tr[data-learner="${learner}"] li[data-code-run="write-the-code/${q}"]`);
  assert.equal(await item(names.looper, 'sinusoidal').getAttribute('data-statuses'), 'timeout');
  assert.match(await item(names.looper, 'sinusoidal').textContent(), /^12\. sinusoidal：時間切れ 1 回$/);
  assert.equal(await item(names.looper, 'alibi').getAttribute('data-statuses'), 'ok');
  assert.equal(await item(names.forger, 'sinusoidal').getAttribute('data-statuses'), 'ok');
  assert.equal(runs.get(names.looper), 'write-the-code/alibi:ok=1;write-the-code/sinusoidal:timeout=1');
  // Print spam times out, import os / js fail to load, the huge allocation ends as memory: no points, as grade-code.mjs.
  assert.equal(claimed.get(names.hostile), 4, 'the hostile file claims four questions right');
  assert.equal(shown.get(names.hostile), 0);
  assert.equal(runs.get(names.hostile), 'write-the-code/alibi:memory=1;write-the-code/attention-row:load_error=1;write-the-code/causal-mask:timeout=1;write-the-code/rope:load_error=1');
  for (const [q, status] of [['causal-mask', 'timeout'], ['alibi', 'memory'], ['rope', 'load_error'], ['attention-row', 'load_error']]) assert.equal(await item(names.hostile, q).getAttribute('data-statuses'), status, q);
  const plain = [...shown.keys()].filter((l) => !Object.values(names).includes(l));
  for (const l of plain) assert.equal(await page.locator(`#roster tr[data-learner="${l}"] li[data-code-run]`).count(), 0);

  // The item analysis names the question type.
  assert.equal(await page.locator('#items tr[data-question="write-the-code/sinusoidal"] td').first().textContent(), 'コード');

  // The progress line said the code was being re-run.
  const seen = await page.evaluate(() => globalThis.__seen);
  assert.ok(seen.some((s) => /コードをサンドボックスで再実行中：looper\.json（実行 1 \/ 2 回/.test(s)), seen.join(' | '));

  // The roster CSV: the code_runs column, as grade-code.mjs's with the exercise.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-roster')]);
  const csv = readFileSync(await download.path()).subarray(3).toString('utf8').trim().split(/\r?\n/);
  const head = csv[0].split(',');
  const col = head.indexOf('code_runs');
  assert.ok(col > 0, csv[0]);
  const rowOf = (l) => csv.find((line) => line.startsWith(`${l},`)).split(',').map((c) => c.replace(/^"|"$/g, ''));
  for (const l of Object.values(names)) assert.equal(rowOf(l)[col], runs.get(l), l);
  for (const l of plain) assert.equal(rowOf(l)[col], '');

  assert.deepEqual(await axeViolations(page), [], 'axe at 1280×800');
  await page.screenshot({ path: join(artifacts, 'instructor-code-ja.png'), fullPage: true });
  await page.click('[data-lang="en"]');
  assert.equal(await page.locator('#roster [data-sort="code"]').textContent(), 'Code re-runs');
  assert.match(await item(names.looper, 'sinusoidal').textContent(), /^12\. sinusoidal: time limit 1$/);
  assert.deepEqual(await axeViolations(page), [], 'axe in English');
  await page.setViewportSize({ width: 390, height: 844 });
  assert.deepEqual(await axeViolations(page), [], 'axe at 390×844');
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 390), 'no sideways scroll of the page at 390 px');
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: join(artifacts, 'instructor-code-en.png'), fullPage: true });
  assert.deepEqual(problems.console, []);
  assert.deepEqual(problems.offOrigin, []);
  await context.close();
});

test('the Python runtime cannot load: code answers are not re-run (no sandbox) and score nothing (never their stored results), the page says so, other files are graded', { timeout: 300000 }, async () => {
  const { page, context } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
  await page.route('**/py-runtime.js', (route) => route.abort());
  await page.goto(new URL('instructor.html', lab.bases.http).href);
  await page.setInputFiles('#files', [paths[0], paths.at(-1)]);
  await page.waitForSelector('#summary', { timeout: 240000 });
  assert.equal(await page.locator(`#roster tr[data-learner="${names.honest}"]`).getAttribute('data-total'), '0');
  for (const q of ['sinusoidal', 'alibi']) assert.equal(await page.locator(`#roster tr[data-learner="${names.honest}"] li[data-code-run="write-the-code/${q}"]`).getAttribute('data-statuses'), 'not_rerun(sandbox_unavailable)');
  assert.match(await page.locator(`#roster tr[data-learner="${names.honest}"] li[data-code-run="write-the-code/sinusoidal"]`).textContent(), /再実行せず（サンドボックスがない）/);
  assert.match(await page.locator('#python-error').textContent(), /Python のサンドボックスを起動できなかった/);
  assert.match(await page.locator('#python-error').textContent(), /受講者のコードは実行していません/);
  const plain = await page.$$eval('#roster tbody tr', (trs) => trs.map((tr) => tr.dataset.learner).filter((l) => !l.startsWith('code-')));
  assert.equal(plain.length, 1);
  assert.notEqual(await page.locator(`#roster tr[data-learner="${plain[0]}"]`).getAttribute('data-total'), '0');
  await context.close();
});

// The five forgeries of issue 21 (each made the re-run skip the attempt while
// the grader read the stored results) and the control: the junk sinusoidal
// stores the right results; each file also holds a right alibi answer (must
// still earn its point). Through grade-code.mjs, poslab grade and the page:
// sinusoidal scores 0 everywhere; the page's CSV of the rows equals
// grade-code.mjs's cell for cell (apart from the file column: the page knows
// only the file's name).
test('the five forgeries and the control score 0 for their code in grade-code.mjs, poslab grade and the page; the honest answers still grade; the CSVs agree', { timeout: 600000 }, async () => {
  const JUNK = 'def build_sinusoidal_encoding(seq_len, d_model):\n    return 0\n';
  const fdir = mkdtempSync(join(tmpdir(), 'poslab-forgeries-'));
  const make = async (learner, trick) => {
    let sin = await attempt(learner, 'sinusoidal', JUNK, solutions.sinusoidal);
    if (trick === 'long') sin = { ...sin, answer: { ...sin.answer, code: `${JUNK}#${'x'.repeat(10000)}` } };
    let attempts = [sin, await attempt(learner, 'alibi', solutions.alibi)];
    if (trick === 'cap') attempts = [...Array.from({ length: 200 }, () => ({ ...sin, lab: { dModel: 999999 } })), ...attempts];
    let text = JSON.stringify(await submission(learner, attempts));
    if (trick === 'nul') text += '\u0000junk';
    if (trick === 'bom') text = `\uFEFF${text}`;
    if (trick === 'bom2') text = `\uFEFF\uFEFF${text}`;
    const p = join(fdir, `forge-${trick}.json`);
    writeFileSync(p, text);
    return p;
  };
  const tricks = { control: 'forge-control@example.org', long: 'forge-long@example.org', bom: 'forge-bom@example.org', cap: 'forge-cap@example.org', help: '--help', nul: 'forge-nul@example.org', bom2: 'forge-bom2@example.org' };
  const files = [];
  for (const [trick, learner] of Object.entries(tricks)) files.push(await make(learner, trick));
  try {
    // grade-code.mjs: the rows, as JSON.
    const g = spawnSync(process.execPath, [join(root, 'scripts/grade-code.mjs'), '--exercises', join(root, 'exercises'), '--poslab', cliPath, '--format', 'json', '--', ...files], { encoding: 'utf8', timeout: 300000 });
    assert.equal(g.status, 1, g.stderr); // flagged rows and files that are not JSON
    const rows = JSON.parse(g.stdout).rows;
    const q = (learner, id) => rows.find((r) => r.learner === learner && r.exercise === 'write-the-code')?.questions.find((x) => x.id === id);
    for (const trick of ['control', 'long', 'bom', 'cap', 'help']) {
      assert.equal(q(tricks[trick], 'sinusoidal').points, 0, `${trick}: sinusoidal`);
      assert.equal(q(tricks[trick], 'alibi').points, 1, `${trick}: alibi still graded`);
    }
    assert.deepEqual(rows.find((r) => r.learner === tricks.long).codeRuns.sinusoidal, { 'not_rerun(too_long)': 1 });
    assert.ok(rows.find((r) => r.learner === tricks.long).flags.includes('not_rerun:1'));
    for (const trick of ['nul', 'bom2']) assert.equal(rows.find((r) => r.file.endsWith(`forge-${trick}.json`)).status, 'invalid_file', trick);
    // poslab grade alone (no re-run results): sinusoidal 0 and flagged, never the stored results.
    const p = spawnSync(cliPath, ['grade', '--exercises', join(root, 'exercises'), '--format', 'json', '--', ...files], { encoding: 'utf8' });
    for (const r of JSON.parse(p.stdout).rows.filter((x) => x.status === 'graded' && x.exercise === 'write-the-code')) {
      assert.equal(r.questions.find((x) => x.id === 'sinusoidal').points, 0, r.learner);
      assert.ok(r.flags.includes('not_rerun:2'), `${r.learner}: ${r.flags}`);
    }
    // The page: the same points per learner, and the same CSV.
    const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
    await page.goto(new URL('instructor.html', lab.bases.http).href);
    await page.setInputFiles('#files', files);
    await page.waitForSelector('#summary', { timeout: 300000 });
    for (const trick of ['control', 'long', 'bom', 'cap', 'help']) {
      const total = Number(await page.locator(`#roster tr[data-learner="${tricks[trick]}"]`).getAttribute('data-total'));
      assert.equal(total, 1, `${trick}: the page gives alibi's point only`);
    }
    assert.equal(await page.locator(`#roster tr[data-learner="${tricks.long}"] li[data-code-run="write-the-code/sinusoidal"]`).getAttribute('data-statuses'), 'not_rerun(too_long)');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-rows')]);
    const pageCsv = readFileSync(await download.path()).toString('utf8');
    assert.ok(pageCsv.startsWith('\uFEFF'));
    const c = spawnSync(process.execPath, [join(root, 'scripts/grade-code.mjs'), '--exercises', join(root, 'exercises'), '--poslab', cliPath, '--', ...files], { encoding: 'utf8', timeout: 300000 });
    const dropFile = (text) => text.replace(/^\uFEFF/, '').trim().split('\n').map((line) => line.replace(/^[^,]*,/, '')).sort();
    // File names hold no comma or quote here, so the first cell is the file.
    assert.deepEqual(dropFile(pageCsv), dropFile(c.stdout));
    assert.ok(c.stdout.includes(',1,'), 'numbers as the core writes them');
    assert.deepEqual(problems.offOrigin, []);
    await context.close();
  } finally {
    rmSync(fdir, { recursive: true, force: true });
  }
});
