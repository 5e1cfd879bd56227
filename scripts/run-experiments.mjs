#!/usr/bin/env node
// Runs the experiments whose results docs/experiments/ shows, with the native
// `poslab`, and writes each run's JSON to docs/experiments/runs/NAME.json (the
// command, the poslab version and the CLI's output as it printed it).
// scripts/render-docs.mjs turns those files into the tables and sentences of
// docs/experiments/*.md; nothing there is typed by hand.
//
//   node scripts/run-experiments.mjs                 run the experiments that have no run file yet
//   node scripts/run-experiments.mjs NAME…           run these again (names: --list)
//   node scripts/run-experiments.mjs --all           run every one again
//   node scripts/run-experiments.mjs --list          the names and their commands
//   --poslab PATH                                    the CLI (default build/native/poslab)
//
// Runs are deterministic functions of their options and seeds, so a re-run on
// another machine gives the same curves (only `seconds` differ). Each takes
// from half a minute to several minutes of one core; they run one at a time.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const runsDir = join(root, 'docs/experiments/runs');

// YaRN with the lab's rescaled edges (β = L/2π), the rule these runs were made with
// (the CLI's default is now the paper's α = 1, β = 32: exercise 9 says why the lab's is used).
const ALL = ['--methods', 'none,pi,ntk,yarn,base', '--yarn-edges', 'lab'];
const lookback = (k, f, extra = []) => ['extend', '--seeds', '1,2,3,4,5', ...ALL, '--task', 'lookback', '--k', String(k), '--finetune-steps', String(f), ...extra];

// One entry per run file. The docs name the file; the command is in the file.
export const experiments = [
  // In order of what the docs need most (a run takes from half a minute to several minutes).
  { name: 'extend-count-s4', args: ['extend', '--seeds', '1,2,3', ...ALL, '--test-max', '32', '--finetune-steps', '30'] },
  { name: 'extend-lookback-k4-s4-f100', args: ['extend', '--seeds', '1,2,3', ...ALL, '--task', 'lookback', '--k', '4', '--test-max', '32', '--finetune-steps', '100'] },
  { name: 'extend-count-s2', args: ['extend', '--seeds', '1,2,3,4,5', ...ALL] },
  { name: 'extend-lookback-k4-base100-f100', args: lookback(4, 100, ['--base', '100']) },
  { name: 'extrapolate-count', args: ['extrapolate', '--seeds', '1,2,3'] },
  ...[50, 25, 10].map((f) => ({ name: `extend-lookback-k4-base100-f${f}`, args: lookback(4, f, ['--base', '100']) })),
  ...[8, 4, 2].flatMap((k) => [50, 100, 200].map((f) => ({ name: `extend-lookback-k${k}-f${f}`, args: lookback(k, f) }))),
  ...[10, 25].map((f) => ({ name: `extend-lookback-k8-f${f}`, args: lookback(8, f) })),
];

function runOne(poslab, e) {
  const started = Date.now();
  const r = spawnSync(poslab, e.args, { encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.status !== 0) throw new Error(`${poslab} ${e.args.join(' ')}: ${r.stderr || r.error}`);
  const version = spawnSync(poslab, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const file = {
    about: 'Written by scripts/run-experiments.mjs from native `poslab`; do not edit. scripts/render-docs.mjs renders it into docs/experiments/.',
    name: e.name,
    command: `poslab ${e.args.join(' ')}`,
    poslabVersion: version,
    output: JSON.parse(r.stdout),
  };
  mkdirSync(runsDir, { recursive: true });
  writeFileSync(join(runsDir, `${e.name}.json`), `${JSON.stringify(file)}\n`);
  console.log(`wrote docs/experiments/runs/${e.name}.json (${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  let poslab = join(root, 'build/native/poslab');
  const names = [];
  let all = false;
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === '--poslab') poslab = argv[++i];
    else if (argv[i] === '--all') all = true;
    else if (argv[i] === '--list') {
      for (const e of experiments) console.log(`${e.name.padEnd(32)} poslab ${e.args.join(' ')}`);
      process.exit(0);
    } else names.push(argv[i]);
  }
  for (const n of names)
    if (!experiments.some((e) => e.name === n)) {
      console.error(`run-experiments: no experiment named '${n}'; names: ${experiments.map((e) => e.name).join(', ')}`);
      process.exit(2);
    }
  if (!existsSync(poslab)) {
    console.error(`run-experiments: ${poslab} does not exist; build it first (npm run build) or pass --poslab PATH`);
    process.exit(2);
  }
  const todo = experiments.filter((e) => (names.length ? names.includes(e.name) : all || !existsSync(join(runsDir, `${e.name}.json`))));
  for (const e of todo) runOne(poslab, e);
  if (!todo.length) console.log('run-experiments: every run file exists (name one, or --all, to run it again)');
}
