#!/usr/bin/env node
// The instructor's one grading command for submissions with code questions:
//
//   node scripts/grade-code.mjs --exercises exercises [--poslab build/native/poslab] [--format csv|json] SUBMISSION.json…
//
// For every attempt at a code question it runs the submitted code again —
// never trusting the results the page stored — in the sandbox the page uses
// (the same MicroPython wasm, scripts/py-sandbox.mjs: a worker_threads Worker
// with resource limits, the question's time limit, no file system, no
// network), on the learner's hidden cases (`poslab variant`, from the learner
// id), and puts the fresh results in a copy of the submission. Then `poslab
// grade` grades every answer of every file, code or not, into ONE CSV (or
// JSON), with one more column, code_runs: per code question, how its attempts
// ended (ok, timeout, syntax_error, load_error, no_function, memory, crashed,
// not_code). A hostile submission (an endless loop, print spam, a huge
// allocation, import os / js) gets its status there and scores what the core
// gives it; every other answer and file is still graded. Exit status: poslab
// grade's.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { loadExercises } from '../web/js/exercise-loader.mjs';
import { runPython } from './py-sandbox.mjs';
import { rerunCodeAttempts, codeRunsCell } from '../web/js/grading/code-rerun.js';

const MAX_FILE_BYTES = 8 << 20;

function usage(msg) {
  if (msg) console.error(`grade-code: ${msg}`);
  console.error('usage: node scripts/grade-code.mjs --exercises DIR [--poslab PATH] [--format csv|json] SUBMISSION.json…');
  process.exit(2);
}

const argv = process.argv.slice(2);
let dir = null;
let poslab = resolve('build/native/poslab');
let format = 'csv';
const files = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--exercises') dir = argv[++i];
  else if (argv[i] === '--poslab') poslab = resolve(argv[++i]);
  else if (argv[i] === '--format') format = argv[++i];
  else if (argv[i] === '--help' || argv[i] === '-h') usage();
  else files.push(argv[i]);
}
if (!dir) usage('--exercises DIR is required');
if (!files.length) usage('at least one SUBMISSION.json is required');
if (format !== 'csv' && format !== 'json') usage('--format is csv or json');

let exercises;
try {
  exercises = loadExercises(dir);
} catch (e) {
  usage(e.message);
}
const byId = new Map(exercises.map((e) => [e.id, e]));
const exerciseFile = new Map(exercises.map((e) => [e.id, join(dir, e.file)]));

const variants = new Map();
function hiddenCases(learner, exercise, question) {
  const key = `${learner}\n${exercise.id}`;
  if (!variants.has(key)) {
    const file = exerciseFile.get(exercise.id);
    const r = spawnSync(poslab, ['variant', '--exercise', file, '--learner', learner], { encoding: 'utf8', maxBuffer: 1 << 26 });
    variants.set(key, r.status === 0 ? JSON.parse(r.stdout).variant : null);
  }
  return variants.get(key)?.[`code:${question}`]?.hidden ?? null;
}

// The re-run itself is web/js/grading/code-rerun.js, shared with the class results page.
const rerun = (sub) =>
  rerunCodeAttempts(sub, {
    byId,
    hiddenCases,
    run: (code, fn, cases, { timeLimitMs }) => runPython({ code, fn, cases, timeLimitMs }),
  });

const work = mkdtempSync(join(tmpdir(), 'grade-code-'));
const rewritten = [];
const statusByFile = new Map();
try {
  for (const [k, file] of files.entries()) {
    let target = file;  // unreadable or not JSON: poslab grade reports it as it is
    let statuses = {};
    try {
      if (statSync(file).size <= MAX_FILE_BYTES) {
        const sub = JSON.parse(readFileSync(file, 'utf8'));
        statuses = await rerun(sub);
        mkdirSync(join(work, String(k)));
        target = join(work, String(k), basename(file));
        writeFileSync(target, JSON.stringify(sub));
      }
    } catch {
      target = file;
    }
    rewritten.push(target);
    statusByFile.set(target, { original: file, statuses });
  }
  const g = spawnSync(poslab, ['grade', '--exercises', dir, '--format', 'json', ...rewritten], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (g.status === 2 || !g.stdout) {
    process.stderr.write(g.stderr);
    process.exit(g.status ?? 2);
  }
  const out = JSON.parse(g.stdout);
  for (const row of out.rows) {
    const info = statusByFile.get(row.file);
    if (info) row.file = info.original;
    row.codeRuns = codeRunsCell(info?.statuses, row.exercise);
  }
  if (format === 'json') {
    process.stdout.write(JSON.stringify(out) + '\n');
  } else {
    const field = (v) => {
      let s = v === null || v === undefined ? '' : String(v);
      if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
      return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
    };
    const num = (v) => (typeof v === 'number' ? String(Math.round(v * 1e6) / 1e6) : '');
    const lines = ['file,learner,exercise,points,max,claimed_points,claimed_differs,status,message,flags,code_runs'];
    for (const r of out.rows) {
      lines.push([field(r.file), field(r.learner), field(r.exercise), num(r.points), num(r.max), num(r.claimedPoints), typeof r.claimedDiffers === 'boolean' ? (r.claimedDiffers ? 'yes' : 'no') : '', r.status, field(r.message), field((r.flags ?? []).join(';')), field(r.codeRuns)].join(','));
    }
    process.stdout.write(lines.join('\n') + '\n');
  }
  process.stderr.write(g.stderr);
  process.exitCode = g.status;
} finally {
  rmSync(work, { recursive: true, force: true });
}
