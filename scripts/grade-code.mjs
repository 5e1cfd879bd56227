#!/usr/bin/env node
// The instructor's one grading command for submissions with code questions:
//
//   node scripts/grade-code.mjs --exercises DIR [--poslab PATH] [--format csv|json]
//        [--budget-s SECONDS] [--no-sandbox] [--] SUBMISSION.json…
//
// One file at a time, each written as soon as it is graded (one bad file
// never costs the others their rows; only one file's data is held at once):
//
// 1. `poslab code-attempts` (the core's parser, the grader's own rules) lists
//    the code attempts of the file that can count: per learner and question,
//    after duplicate entries are merged, up to max_attempts, each with a key,
//    its code, the function, the time limit and the learner's hidden cases.
// 2. Each listed attempt is run with runPython (scripts/py-sandbox.mjs), within
//    a time budget per learner (--budget-s, default 120 s over all their files;
//    past it: not_rerun(budget)). Code the core marks too long is not run.
// 3. `poslab grade --code-results` grades every answer of the file with those
//    results; the status, results or output a submission stores are never
//    read. A code attempt with no re-run result scores 0 and is flagged
//    not_rerun:N (the code_runs column says why).
//
// The CSV is the core's (the one writer, as `poslab grade` and the results
// page write it). No submission string reaches a command line as an option:
// file names follow `--`, learner ids never leave the core.
//
// The sandbox: if py-sandbox.mjs says it is unavailable (sandboxStatus), no
// code is run: every code attempt is not_rerun(sandbox_unavailable), the
// other answers are still graded, and the exit status is 3 with the reason.
// --no-sandbox runs code without the operating-system sandbox, for trusted
// input only, and says so on every run.
//
// Exit status: 0 every row graded with no flag; 1 some row not graded or
// flagged (every row still written); 2 usage error; 3 sandbox unavailable.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as sandbox from './py-sandbox.mjs';
import { runListedAttempts, DEFAULT_BUDGET_MS } from '../web/js/grading/code-rerun.js';

const MAX_LIST_BYTES = 256 << 20;

function usage(msg) {
  if (msg) console.error(`grade-code: ${msg}`);
  console.error('usage: node scripts/grade-code.mjs --exercises DIR [--poslab PATH] [--format csv|json] [--budget-s SECONDS] [--no-sandbox] [--] SUBMISSION.json…');
  process.exit(2);
}

const argv = process.argv.slice(2);
let dir = null;
let poslab = resolve('build/native/poslab');
let format = 'csv';
let budgetMs = DEFAULT_BUDGET_MS;
let noSandbox = false;
const files = [];
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const value = () => {
    if (i + 1 >= argv.length) usage(`${a} needs a value`);
    return argv[++i];
  };
  if (a === '--') {
    files.push(...argv.slice(i + 1));
    break;
  } else if (a === '--exercises') dir = value();
  else if (a === '--poslab') poslab = resolve(value());
  else if (a === '--format') format = value();
  else if (a === '--budget-s') {
    const v = value();
    if (!/^\d+(\.\d+)?$/.test(v) || !(Number(v) > 0) || Number(v) > 86400) usage(`--budget-s is a number of seconds above 0 and at most 86400, got '${v}'`);
    budgetMs = Number(v) * 1000;
  } else if (a === '--no-sandbox') noSandbox = true;
  else if (a === '--help' || a === '-h') usage();
  else if (a.startsWith('-')) usage(`unknown option ${a} (put -- before a file whose name starts with -)`);
  else files.push(a);
}
if (!dir) usage('--exercises DIR is required');
if (!files.length) usage('at least one SUBMISSION.json is required');
if (format !== 'csv' && format !== 'json') usage('--format is csv or json');

// Is the sandbox there? (py-sandbox.mjs without sandboxStatus: the Worker sandbox, always there.)
let notRun = null;
let sandboxReason = '';
if (noSandbox) {
  console.error('grade-code: WARNING: --no-sandbox: student code runs WITHOUT the operating-system sandbox. Use it only for submissions you trust.');
} else if (typeof sandbox.sandboxStatus === 'function') {
  let st;
  try {
    st = await sandbox.sandboxStatus();
  } catch (e) {
    st = { available: false, reason: String(e?.message ?? e) };
  }
  const available = typeof st === 'boolean' ? st : Boolean(st?.available ?? st?.ok);
  if (!available) {
    notRun = 'sandbox_unavailable';
    sandboxReason = String((typeof st === 'object' && (st?.reason ?? st?.message)) || 'sandboxStatus() said no');
    console.error(`grade-code: the sandbox is unavailable (${sandboxReason}); no student code will be run: every code attempt scores 0 (not_rerun(sandbox_unavailable)). Fix the sandbox, or pass --no-sandbox for trusted input only.`);
  }
}

let current = '';  // the file being graded, for the messages below
const run = async (code, fn, cases, { timeLimitMs }) => {
  if (noSandbox) console.error('grade-code: WARNING: running student code without the sandbox (--no-sandbox)');
  const r = await sandbox.runPython({ code, fn, cases, timeLimitMs, ...(noSandbox ? { sandbox: false } : {}) });
  // A crash is the one status the CSV cannot explain (timeout, memory, … say what happened): its reason goes to stderr.
  if (r.status === 'crashed') console.error(`grade-code: ${current}: a run of ${fn} crashed: ${String(r.message ?? '').slice(0, 300)}`);
  return r;
};

const work = mkdtempSync(join(tmpdir(), 'grade-code-'));
const budgets = new Map(); // learner → {spentMs}
let exit = 0;
let runs = 0;
let rowsWritten = 0;
const bad = [];
const out = (s) => new Promise((ok) => (process.stdout.write(s) ? ok() : process.stdout.once('drain', ok)));
try {
  if (format === 'csv') {
    const h = spawnSync(poslab, ['grade', '--exercises', dir, '--format', 'csv', '--', '/dev/null'], { encoding: 'utf8' });
    if (h.status === 2 || h.error) usage((h.stderr || String(h.error)).trim().replace(/^poslab: /, ''));
    await out(h.stdout.split('\n')[0] + '\n');
  } else {
    await out('{"rows":[');
  }
  for (const [k, file] of files.entries()) {
    current = file;
    // 1. the core's list
    const l = spawnSync(poslab, ['code-attempts', '--exercises', dir, '--', file], { encoding: 'utf8', maxBuffer: MAX_LIST_BYTES });
    if (l.status === 2) usage((l.stderr || '').trim().replace(/^poslab: /, ''));
    let list = null;
    try {
      list = l.status === 0 ? JSON.parse(l.stdout) : null;
    } catch {
      list = null;
    }
    // 2. the runs
    let results = {};
    if (list?.ok) {
      const budget = budgets.get(list.learner) ?? { spentMs: 0 };
      budgets.set(list.learner, budget);
      const r = await runListedAttempts(list, { run, budget, budgetMs, notRun });
      results = r.results;
      runs += r.runs;
    }
    list = null;
    // 3. the grade, with the results out of band
    const resultsFile = join(work, `results-${k}.json`);
    writeFileSync(resultsFile, JSON.stringify({ [file]: results }));
    results = null;
    const g = spawnSync(poslab, ['grade', '--exercises', dir, '--code-results', resultsFile, '--format', format, ...(format === 'csv' ? ['--no-header'] : []), '--', file], {
      encoding: 'utf8',
      maxBuffer: MAX_LIST_BYTES,
    });
    rmSync(resultsFile, { force: true });
    if (g.status === 2 || g.status === null || g.error) {
      // The grader itself failed on this file: said here, the other files go on.
      exit = Math.max(exit, 1);
      bad.push(file);
      console.error(`grade-code: ${file}: poslab grade failed (${g.error ? g.error.message : `status ${g.status}`}): ${(g.stderr || '').slice(0, 500).trim()}`);
      continue;
    }
    if (g.status !== 0) {
      exit = Math.max(exit, 1);
      bad.push(file);
    }
    if (format === 'csv') {
      await out(g.stdout);
      rowsWritten += g.stdout.split('\n').filter(Boolean).length;
    } else {
      const rows = JSON.parse(g.stdout).rows;
      for (const row of rows) await out((rowsWritten++ ? ',' : '') + JSON.stringify(row));
    }
  }
  if (format === 'json') await out(`],"files":${files.length},"runs":${runs}}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.error(`grade-code: ${files.length} file(s), ${rowsWritten} row(s), ${runs} code run(s)${bad.length ? `; ${bad.length} file(s) not graded or flagged: ${bad.slice(0, 20).join(', ')}${bad.length > 20 ? ', …' : ''}` : ''}`);
process.exitCode = notRun ? 3 : exit;
