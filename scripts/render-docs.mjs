#!/usr/bin/env node
// Renders measured figures into the docs, so that no number in them is typed
// by hand: the experiments' run files (docs/experiments/runs/*.json, written
// by scripts/run-experiments.mjs; exercises/generated/rope-extend-runs.json)
// and the bench's results (bench/results/*.json, written by `npm run bench`)
// become tables and sentences between marker comments in README.md and
// docs/**/*.md:
//
//   <!-- generated:KIND:ARGS -->
//   …replaced on every render…
//   <!-- /generated:KIND:ARGS -->
//
// KIND is one of the generators below; ARGS (comma-separated) name run files
// (without .json) or bench results. Sentences that compare methods ("X reaches
// furthest in every seed") are computed from the runs, never written.
//
//   node scripts/render-docs.mjs           rewrite the generated blocks in place
//   node scripts/render-docs.mjs --check   list the files whose blocks differ; exit 1 if any
//
// tests/web/docs.test.mjs runs the check, so the committed docs always equal
// what this script renders from the committed files. `npm run bench` calls it
// at the end.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';

const defaultRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

// ---------------------------------------------------------------- formatting

const METHOD = { none: 'plain RoPE (none)', pi: 'PI', ntk: 'NTK-aware', yarn: 'YaRN (rescaled edges)', base: 'larger base' };
const methodName = (m) => METHOD[m] ?? m;
const SCHEME = { learned: 'learned', sinusoidal: 'sinusoidal', rope: 'RoPE', alibi: 'ALiBi', none: 'none (NoPE)' };
const schemeName = (x) => SCHEME[x] ?? x;

// A share (exact match) with two decimals, never rounded onto 0 or 1: 0.9974
// is "0.997", not "1.00" (a run that failed somewhere must not read as perfect).
export function share(x) {
  if (x === null || x === undefined || Number.isNaN(x)) return '—';
  if (x === 1) return '1';
  if (x === 0) return '0';
  for (const digits of [2, 3]) {
    const s = x.toFixed(digits);
    if (Number(s) !== 1 && Number(s) !== 0) return s;
  }
  return x > 0.5 ? '> 0.999' : '< 0.001';
}

export function median(values) {
  const v = [...values].sort((a, b) => a - b);
  const n = v.length;
  if (!n) return NaN;
  return n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

const fmtN = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(1));
const table = (head, rows) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
function list(words) {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

// ---------------------------------------------------------------- inputs

function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

function runFile(ctx, name) {
  const path = join(ctx.root, 'docs/experiments/runs', `${name}.json`);
  if (!existsSync(path)) return null;
  const file = readJson(path);
  return { ...file, path };
}

// A link from the doc being rendered to a file of the repository.
const linkTo = (ctx, path) => relative(dirname(join(ctx.root, ctx.file)), path).split('\\').join(posix.sep);

function missingRun(ctx, name) {
  return `*No run file \`docs/experiments/runs/${name}.json\` is committed yet: \`node scripts/run-experiments.mjs ${name}\` makes it, then \`node scripts/render-docs.mjs\`.*`;
}

// The curves of an extend run: per method, per seed, zero-shot and fine-tuned.
function extendCurves(out) {
  const methods = [];
  const by = new Map();
  for (const run of out.runs) {
    for (const c of run.curves) {
      if (!methods.includes(c.method)) methods.push(c.method);
      const key = `${c.method}/${c.finetuned}`;
      if (!by.has(key)) by.set(key, []);
      by.get(key).push({ seed: run.seed, mean: c.meanExtrapolated, solved: c.solvedUpTo, loss: c.loss ?? [] });
    }
  }
  return { methods, get: (m, ft) => by.get(`${m}/${ft}`) ?? [] };
}

const trainMax = (out) => out.options.trainMax;
const testMax = (out) => out.options.testMax;
const range = (out) => `n = ${trainMax(out) + 1}…${testMax(out)}`;

function source(ctx, file) {
  return `From [\`${posix.basename(file.path)}\`](${linkTo(ctx, file.path)}): \`${file.command}\`.`;
}

// ---------------------------------------------------------------- generators

// One extend run as a table: per method, the median over seeds (and every
// seed) of the mean exact match past the trained length, and the largest n
// solved with no gap before it, zero-shot and after the fine-tune.
function extendTable(ctx, [name]) {
  const file = runFile(ctx, name);
  if (!file) return missingRun(ctx, name);
  const out = file.output;
  const cur = extendCurves(out);
  const F = out.options.finetuneSteps;
  const seeds = out.runs.map((r) => r.seed);
  const cell = (vals) => `${share(median(vals.map((v) => v.mean)))} (${vals.map((v) => share(v.mean)).join(', ')})`;
  const solved = (vals) => vals.map((v) => v.solved).join(', ');
  const rows = cur.methods.map((m) => [methodName(m), cell(cur.get(m, false)), solved(cur.get(m, false)), cell(cur.get(m, true)), solved(cur.get(m, true))]);
  return [
    `${source(ctx, file)} Trained on n ≤ ${trainMax(out)} (L = ${out.trainedLength} positions), tested to n = ${testMax(out)} (s = ${out.scale}); seeds ${seeds.join(', ')}.`,
    '',
    table(
      ['method', `zero-shot: median mean exact match, ${range(out)} (per seed)`, 'largest n solved (per seed)', `after ${F} fine-tune steps: median (per seed)`, 'largest n solved (per seed)'],
      rows,
    ),
  ].join('\n');
}

// Which methods reach furthest, per seed; which solve every n in every seed.
export function facts(out, finetuned) {
  const cur = extendCurves(out);
  const seeds = out.runs.map((r) => r.seed);
  const N = testMax(out);
  const when = finetuned ? `after ${out.options.finetuneSteps} fine-tune steps` : 'without fine-tuning';
  const perSeed = seeds.map((seed) => {
    const here = cur.methods.map((m) => ({ m, solved: cur.get(m, finetuned).find((v) => v.seed === seed)?.solved ?? -1 }));
    const best = Math.max(...here.map((h) => h.solved));
    return { seed, best, methods: here.filter((h) => h.solved === best).map((h) => h.m) };
  });
  const lines = [];
  const furthestCount = new Map(cur.methods.map((m) => [m, perSeed.filter((p) => p.methods.includes(m)).length]));
  const everySeed = cur.methods.filter((m) => furthestCount.get(m) === seeds.length);
  const detail = perSeed.map((p) => `seed ${p.seed}: ${list(p.methods.map(methodName))} (n = ${p.best})`).join('; ');
  // When every seed's best solves every n, the sentence below says it all.
  if (perSeed.every((p) => p.best >= N)) {
    // nothing: "who reaches furthest" is every method that solves every n
  } else if (seeds.length === 1) lines.push(`Furthest ${when} (largest n solved): ${detail}.`);
  else if (everySeed.length === 1) lines.push(`${methodName(everySeed[0])} reaches furthest ${when} in every seed${perSeed.some((p) => p.methods.length > 1) ? ' (tied in some)' : ''}: ${detail}.`);
  else if (everySeed.length > 1) lines.push(`${list(everySeed.map(methodName))} reach furthest ${when} in every seed: ${detail}.`);
  else {
    const top = Math.max(...furthestCount.values());
    const most = cur.methods.filter((m) => furthestCount.get(m) === top);
    lines.push(`No method reaches furthest ${when} in every seed (${detail}); ${list(most.map(methodName))} in ${top} of ${seeds.length}.`);
  }
  const all = cur.methods.filter((m) => cur.get(m, finetuned).every((v) => v.solved >= N));
  const some = cur.methods.filter((m) => !all.includes(m) && cur.get(m, finetuned).some((v) => v.solved >= N));
  const seedsOf = (m) => cur.get(m, finetuned).filter((v) => v.solved >= N).map((v) => v.seed);
  const parts = [];
  parts.push(all.length ? `${list(all.map(methodName))} solve${all.length === 1 ? 's' : ''} every n ≤ ${N} ${when} in every seed` : `no method solves every n ≤ ${N} ${when} in every seed`);
  if (some.length) parts.push(`${list(some.map((m) => `${methodName(m)} in seed${seedsOf(m).length > 1 ? 's' : ''} ${list(seedsOf(m).map(String))}`))} only`);
  lines.push(`${parts.join('; ')}.`);
  return lines.map((l) => l.replace(/^./, (c) => c.toUpperCase()));
}

function extendFacts(ctx, [name]) {
  const file = runFile(ctx, name);
  if (!file) return missingRun(ctx, name);
  return [...facts(file.output, false), ...facts(file.output, true)].map((l) => `- ${l}`).join('\n');
}

// Several runs that differ only in the fine-tune length (and maybe k): one
// row per (k,) method, the zero-shot column, then a column per length.
function extendCurve(ctx, names) {
  const files = names.map((n) => [n, runFile(ctx, n)]);
  const missing = files.filter(([, f]) => !f).map(([n]) => n);
  if (missing.length) return missing.map((n) => missingRun(ctx, n)).join('\n\n');
  const outs = files.map(([, f]) => f.output);
  const ks = [...new Set(outs.map((o) => o.options.k ?? null))];
  const steps = [...new Set(outs.map((o) => o.options.finetuneSteps))].sort((a, b) => a - b);
  const showK = ks.length > 1;
  const rows = [];
  const notes = [];
  const cellOf = (vals) => `${share(median(vals.map((v) => v.mean)))} (${fmtN(median(vals.map((v) => v.solved)))})`;
  for (const k of ks) {
    const group = outs.filter((o) => (o.options.k ?? null) === k);
    const methods = extendCurves(group[0]).methods;
    for (const m of methods) {
      const zero = group.map((o) => cellOf(extendCurves(o).get(m, false)));
      if (new Set(zero).size > 1) notes.push(`the zero-shot medians of ${methodName(m)}${showK ? ` at k = ${k}` : ''} differ between the runs (${zero.join(' / ')})`);
      const row = [methodName(m), zero[0]];
      for (const F of steps) {
        const o = group.find((g) => g.options.finetuneSteps === F);
        row.push(o ? cellOf(extendCurves(o).get(m, true)) : '—');
      }
      rows.push(showK ? [String(k), ...row] : row);
    }
  }
  const o0 = outs[0];
  const head = [...(showK ? ['k'] : []), 'method', 'zero-shot', ...steps.map((F) => `after ${F} steps`)];
  const seeds = [...new Set(outs.flatMap((o) => o.runs.map((r) => r.seed)))];
  const lines = [
    `Median over seeds ${seeds.join(', ')} of the mean exact match over ${range(o0)}, with the median largest n solved in brackets. From ${files.map(([n, f]) => `[\`${n}\`](${linkTo(ctx, f.path)})`).join(', ')} (commands in the files).`,
    '',
    table(head, rows),
  ];
  if (notes.length) lines.push('', `Note: ${notes.join('; ')}.`);
  return lines.join('\n');
}

// Median fine-tune loss, first step and last step, per method and length.
function extendLoss(ctx, names) {
  const files = names.map((n) => [n, runFile(ctx, n)]);
  const missing = files.filter(([, f]) => !f).map(([n]) => n);
  if (missing.length) return missing.map((n) => missingRun(ctx, n)).join('\n\n');
  const outs = files.map(([, f]) => f.output).sort((a, b) => a.options.finetuneSteps - b.options.finetuneSteps);
  const methods = extendCurves(outs[0]).methods;
  const first = (vals) => median(vals.map((v) => v.loss[0]));
  const last = (vals) => median(vals.map((v) => v.loss[v.loss.length - 1]));
  const fmt = (x) => (x >= 0.1 ? x.toFixed(2) : x.toPrecision(2));
  const rows = methods.map((m) => [methodName(m), fmt(first(extendCurves(outs[0]).get(m, true))), ...outs.map((o) => fmt(last(extendCurves(o).get(m, true))))]);
  const symbols = outs[0].task === 'lookback' ? 8 : null;
  return [
    `Median over seeds of the fine-tune loss (cross-entropy) at its first step and after its last.${symbols ? ` Chance (a uniform guess among ${symbols} symbols) is ln ${symbols} = ${Math.log(symbols).toFixed(2)}.` : ''}`,
    '',
    table(['method', 'first step', ...outs.map((o) => `after ${o.options.finetuneSteps} steps`)], rows),
  ].join('\n');
}

// Methods that fail inside the trained range: their largest n solved stays
// below train-max in every seed of every run named, zero-shot or after the
// fine-tune.
function extendInside(ctx, names) {
  const files = names.map((n) => [n, runFile(ctx, n)]);
  const missing = files.filter(([, f]) => !f).map(([n]) => n);
  if (missing.length) return missing.map((n) => missingRun(ctx, n)).join('\n\n');
  const outs = files.map(([, f]) => f.output);
  const T = trainMax(outs[0]);
  const methods = extendCurves(outs[0]).methods;
  const lines = [];
  for (const finetuned of [false, true]) {
    const bad = methods
      .map((m) => ({ m, solved: outs.flatMap((o) => extendCurves(o).get(m, finetuned).map((v) => v.solved)) }))
      .filter((x) => x.solved.length && Math.max(...x.solved) < T);
    const when = finetuned ? 'after the fine-tune' : 'zero-shot';
    if (!bad.length) lines.push(`Every method solves every n ≤ ${T} (the trained range) ${when} in some seed of these runs.`);
    for (const { m, solved } of bad)
      lines.push(`${methodName(m)} ${when}: largest n solved ${Math.min(...solved) === Math.max(...solved) ? Math.min(...solved) : `${Math.min(...solved)}–${Math.max(...solved)}`} in every seed of ${outs.length === 1 ? 'this run' : `these ${outs.length} runs`}, so it fails inside the trained range (n ≤ ${T}) too.`);
  }
  return lines.map((l) => `- ${l.replace(/^./, (c) => c.toUpperCase())}`).join('\n');
}

// The command of a run, for prose that shows it.
function runCommand(ctx, [name]) {
  const file = runFile(ctx, name);
  if (!file) return missingRun(ctx, name);
  return `\`${file.command}\` ([run file](${linkTo(ctx, file.path)}))`;
}

// Exercise 9 Part 2's run, compiled into the core and graded from.
function pageRun(ctx) {
  const path = join(ctx.root, 'exercises/generated/rope-extend-runs.json');
  if (!existsSync(path)) return '*`exercises/generated/rope-extend-runs.json` is missing: `node scripts/gen-extend-runs.mjs` makes it.*';
  const file = readJson(path);
  const N = file.options.testMax;
  const methods = [...new Set(file.runs.flatMap((r) => r.curves.map((c) => c.method)))];
  const solved = (run, m, ft) => run.curves.find((c) => c.method === m && c.finetuned === ft)?.solvedUpTo;
  const rows = file.runs.map((run) => [String(run.seed), ...methods.map((m) => `${solved(run, m, false)} / ${solved(run, m, true)}`)]);
  // The seed sets the exercise offers (lab.run_seeds of the exercise whose question grades the run).
  let seedSets = file.runs.map((_, i) => file.runs.slice(0, i + 1).map((r) => r.seed));
  for (const f of readdirSync(join(ctx.root, 'exercises')).filter((n) => n.endsWith('.yaml'))) {
    const ex = load(readFileSync(join(ctx.root, 'exercises', f), 'utf8'));
    if (ex?.blocks?.some((b) => b?.answer_from?.extend_run) && Array.isArray(ex.lab?.run_seeds)) seedSets = ex.lab.run_seeds;
  }
  const answers = seedSets.map((set) => {
    const runs = file.runs.filter((r) => set.includes(r.seed));
    const ok = methods.filter((m) => runs.length === set.length && runs.every((r) => solved(r, m, true) >= N));
    return `seed${set.length > 1 ? 's' : ''} ${set.join(', ')}: ${ok.length ? list(ok.map(methodName)) : 'none'}`;
  });
  return [
    `From [\`rope-extend-runs.json\`](${linkTo(ctx, path)}): \`${file.command}\`. Largest n solved, zero-shot / after ${file.options.finetuneSteps} fine-tune steps:`,
    '',
    table(['seed', ...methods.map(methodName)], rows),
    '',
    `Methods that solve every n ≤ ${N} after the fine-tune in every seed of the run (the graded question's answer): ${answers.join('; ')}.`,
  ].join('\n');
}

// poslab extrapolate: per scheme, median over seeds of the mean exact match
// past the trained length and the largest n solved per seed.
function extrapolateTable(ctx, [name]) {
  const file = runFile(ctx, name);
  if (!file) return missingRun(ctx, name);
  const out = file.output;
  const runs = out.runs ?? [];
  const schemes = [...new Set(runs.map((r) => r.scheme))];
  const seeds = [...new Set(runs.map((r) => r.seed))];
  const o = out.options;
  const rows = schemes.map((s) => {
    const rs = runs.filter((r) => r.scheme === s);
    return [schemeName(s), `${share(median(rs.map((r) => r.meanExtrapolated)))} (${rs.map((r) => share(r.meanExtrapolated)).join(', ')})`, rs.map((r) => r.solvedUpTo).join(', ')];
  });
  const tops = seeds.map((seed) => {
    const here = runs.filter((r) => r.seed === seed);
    const top = Math.max(...here.map((r) => r.solvedUpTo));
    return { seed, top, schemes: here.filter((r) => r.solvedUpTo === top).map((r) => r.scheme) };
  });
  const best = tops.map((t) => `seed ${t.seed}: ${list(t.schemes.map(schemeName))} (n = ${t.top})`);
  const always = schemes.filter((x) => tops.every((t) => t.schemes.includes(x)));
  const lead = always.length ? `${list(always.map(schemeName))} reach${always.length === 1 ? 'es' : ''} furthest in every seed` : 'No scheme reaches furthest in every seed';
  return [
    `${source(ctx, file)} Trained on n ≤ ${o.trainMax}, tested to n = ${o.testMax}; seeds ${seeds.join(', ')}.`,
    '',
    table(['scheme', `median mean exact match, n = ${o.trainMax + 1}…${o.testMax} (per seed)`, 'largest n solved (per seed)'], rows),
    '',
    `${lead} (largest n solved: ${best.join('; ')}).`,
  ].join('\n');
}

// ---------------------------------------------------------------- bench

function benchFile(ctx, name) {
  const path = join(ctx.root, 'bench/results', `${name}.json`);
  if (!existsSync(path)) return null;
  return { data: readJson(path), path };
}
const missingBench = (name, script) =>
  `*No \`bench/results/${name}.json\` is committed yet: \`npm run bench\` (or \`node ${script}\`) measures it and renders it here.*`;
const when = (d) => (d.date ? ` on ${d.date.slice(0, 10)}` : '');
const machine = (d) => {
  const m = d.machine ?? {};
  const load = m.load_average_start ?? d.load;
  const parts = [];
  if (m.cpu) parts.push(`${m.cpus} × ${m.cpu}`);
  else if (d.cpus) parts.push(`${d.cpus} CPUs`);
  if (load !== undefined) parts.push(`load average ${(Array.isArray(load) ? load[0] : load).toFixed(1)} at the start`);
  return parts.length ? ` (${parts.join(', ')})` : '';
};

function benchAttention(ctx) {
  const f = benchFile(ctx, 'bench');
  if (!f) return missingBench('bench', 'bench/run.mjs');
  const d = f.data;
  const D = 768;
  const flop = (S) => 8 * S * D * D + 4 * S * S * D;
  const cols = [
    ['wasm_chromium', 'ours, wasm in Chromium'],
    ['tfjs_chromium', 'tfjs-backend-wasm, Chromium'],
    ['wasm_node', 'ours, wasm in Node'],
    ['tfjs_wasm', 'tfjs-backend-wasm, Node'],
    ['plain_js', 'plain JS, Node'],
    ['native', 'ours, native'],
    ['openblas', 'OpenBLAS sgemm + our softmax'],
  ];
  const rows = cols
    .filter(([k]) => d.results.some((r) => r[k]?.median_ms !== undefined))
    .map(([k, label]) => [label, ...d.results.map((r) => (r[k]?.median_ms !== undefined ? `${r[k].median_ms.toPrecision(3)} (${(flop(r.S) / r[k].median_ms / 1e6).toFixed(1)})` : '—'))]);
  const ratio = (a, b) => d.results.filter((r) => r[a]?.median_ms && r[b]?.median_ms).map((r) => r[a].median_ms / r[b].median_ms);
  const span = (v) => (v.length ? `${Math.min(...v).toFixed(2)}–${Math.max(...v).toFixed(2)}×` : '—');
  return [
    `Median ms (GFLOP/s) of ${d.runs} runs${when(d)}${machine(d)}; from [\`bench/results/bench.json\`](${linkTo(ctx, f.path)}).`,
    '',
    table(['implementation', ...d.results.map((r) => `S = ${r.S}`)], rows),
    '',
    `tfjs-backend-wasm takes ${span(ratio('tfjs_chromium', 'wasm_chromium'))} our time in Chromium; plain JS ${span(ratio('plain_js', 'wasm_node'))} ours in Node; our wasm in Chromium ${span(ratio('wasm_chromium', 'native'))} our native time.`,
  ].join('\n');
}

function benchLoad(ctx) {
  const f = benchFile(ctx, 'load');
  if (!f) return missingBench('load', 'bench/load.mjs');
  const d = f.data;
  const rows = Object.entries(d.files).map(([p, x]) => [`\`${p}\``, String(x.requests), (x.bytes / 1024).toFixed(1), x.encoding]);
  return [
    `First visit over http${when(d)}, from [\`bench/results/load.json\`](${linkTo(ctx, f.path)}): ${(d.first_load_bytes / 1e6).toFixed(2)} MB on the wire (${(d.bytes_to_interactive / 1e6).toFixed(2)} MB before the start page is interactive); time to interactive ${d.interactive_s.unthrottled.toFixed(2)} s unthrottled and ${d.interactive_s.slow_link.toFixed(2)} s (median; runs ${d.interactive_s.slow_link_runs.map((x) => x.toFixed(2)).join(', ')}) on an emulated slow link.`,
    '',
    table(['file', 'requests', 'KiB', 'encoding'], rows),
  ].join('\n');
}

function benchUi(ctx) {
  const f = benchFile(ctx, 'ui');
  if (!f) return missingBench('ui', 'bench/ui.mjs');
  const d = f.data;
  const rows = d.results.map((r) => (r.error ? [r.name, '—', '—', r.error] : [r.name, r.medianMs.toFixed(0), r.maxMs.toFixed(0), r.fps !== undefined && r.fps !== null ? `${r.fps.toFixed(0)} fps` : '']));
  return [
    `Input to the first frame after the page's last change, median of ${d.runs} inputs at ${d.viewport}${when(d)} (target ≤ ${d.targetMs} ms; animation target ${d.targetFps} fps); from [\`bench/results/ui.json\`](${linkTo(ctx, f.path)}).`,
    '',
    table(['control', 'median ms', 'slowest ms', 'animation'], rows),
  ].join('\n');
}

function benchInstructor(ctx) {
  const f = benchFile(ctx, 'instructor');
  if (!f) return missingBench('instructor', 'bench/instructor.mjs');
  const d = f.data;
  return `The class results page re-graded ${d.submissions} submissions in a median ${d.median.toFixed(2)} s of ${d.runs.length} runs (${d.runs.map((r) => r.toFixed(2)).join(', ')}; target under ${d.target} s) on ${d.cpus} CPUs at load average ${d.load[0].toFixed(1)}; from [\`bench/results/instructor.json\`](${linkTo(ctx, f.path)}).`;
}

function benchTables(ctx) {
  const f = benchFile(ctx, 'tables');
  if (!f) return missingBench('tables', 'bench/tables.mjs');
  const d = f.data;
  return `A ${(d.fileBytes / 1e6).toFixed(0)} MB \`.safetensors\` opened in exercise 6: reading the header and the table ${d.medianReadMs.toFixed(0)} ms (median of ${d.readMs.length}), decoding and the figures in the core's Worker ${median(d.analyzeMs).toFixed(0)} ms, file to both views ${(d.medianShownMs / 1000).toFixed(1)} s${when(d)}${d.load ? ` on ${d.cpus} CPUs at load average ${d.load[0].toFixed(1)}` : ''}; from [\`bench/results/tables.json\`](${linkTo(ctx, f.path)}).`;
}

function benchPython(ctx) {
  const f = benchFile(ctx, 'python');
  if (!f) return missingBench('python', 'bench/python.mjs');
  const d = f.data;
  const at = `${when(d)}${d.load ? ` on ${d.cpus} CPUs at load average ${d.load[0].toFixed(1)}` : ''}`;
  const run = (r) => `runtime loaded in ${r.loadMs.toFixed(0)} ms, one check (a new process, the sinusoidal solution on its hidden cases) ${r.checkMs.toFixed(0)} ms`;
  const parts = [`The code questions' runtime bundle is ${(d.bundleBytes / 1024).toFixed(0)} KiB (MicroPython, wasm inlined); medians of ${d.runs}${at}`];
  if (d.sandboxed) parts.push(`in the bubblewrap sandbox: ${run(d.sandboxed)}`);
  if (d.plain) parts.push(`with \`--no-sandbox\`: ${run(d.plain)}`);
  if (d.sandboxed && d.plain) parts.push(`the sandbox costs ×${(d.sandboxed.checkMs / d.plain.checkMs).toFixed(2)} per check`);
  if (d.batch) parts.push(`a batch of ${d.batch.checks} checks, ${d.batch.parallel} at once, took ${d.batch.wallMs.toFixed(0)} ms (${d.batch.perCheckMs.toFixed(0)} ms per check)`);
  return `${parts.join('; ')}; from [\`bench/results/python.json\`](${linkTo(ctx, f.path)}).`;
}

// ---------------------------------------------------------------- from the sources

// The CLI's usage, as `poslab --help` prints it (cpp/cli/main.cpp's kUsage).
function cliUsage(ctx) {
  const src = readFileSync(join(ctx.root, 'cpp/cli/main.cpp'), 'utf8');
  const m = src.match(/kUsage = R"\(([\s\S]*?)\)";/);
  if (!m) throw new Error('cpp/cli/main.cpp: no kUsage = R"(…)" found');
  return ['```text', m[1].trim(), '```'].join('\n');
}

// The names on the API object, with the first sentence of each one's comment
// in cpp/bindings/wasm/poslab.d.ts.
function jsApi(ctx) {
  const path = join(ctx.root, 'cpp/bindings/wasm/poslab.d.ts');
  const src = readFileSync(path, 'utf8');
  const rows = [];
  const firstSentence = (c) => {
    const t = c.trim().replace(/\s+/g, ' ');
    return (t.match(/^.*?\.(?=\s|$)/)?.[0] ?? t).replace(/\|/g, '\\|');
  };
  for (const iface of ['PositionLab', 'PositionLabTables', 'PositionLabTraining', 'PositionLabBench']) {
    const m = src.match(new RegExp(`export interface ${iface}\\b[^{]*\\{([\\s\\S]*?)\\n\\}`));
    if (!m) throw new Error(`poslab.d.ts: no interface ${iface}`);
    let comment = '';
    for (const line of m[1].split('\n')) {
      const t = line.trim();
      if (t.startsWith('/**')) comment = '';
      if (t.startsWith('/**') || t.startsWith('*')) {
        comment += ` ${t.replace(/^\/\*\*|^\*\/?|\*\/$/g, '').trim()}`;
        continue;
      }
      const member = t.match(/^(?:readonly\s+)?([A-Za-z]+)\s*([(:])/);
      if (!member) continue;
      const name = member[1];
      const shape = member[2] === '(' ? 'function' : t.includes(': new ') ? 'class' : 'value';
      const row = rows.find((r) => r.name === name);
      if (row) row.overloads++;
      else rows.push({ name, iface, shape, overloads: 1, what: firstSentence(comment) });
      if (row && !row.what && comment.trim()) row.what = firstSentence(comment);
      comment = '';
    }
  }
  return [
    `Every name on the object \`createPositionLab()\` resolves to, read from [\`poslab.d.ts\`](${linkTo(ctx, path)}) when the docs are rendered; the types and the full comments are there.`,
    '',
    table(['name', 'kind', 'declared in', 'from its comment'], rows.map((r) => [`\`${r.name}\``, r.shape + (r.overloads > 1 ? ` (${r.overloads} overloads)` : ''), `\`${r.iface}\``, r.what])),
  ].join('\n');
}

// The Content-Security-Policy of each page (its <meta>) and the headers a
// static host should send with it: nginx, Apache, Netlify / Cloudflare Pages.
function cspHeaders(ctx) {
  const pages = readdirSync(join(ctx.root, 'web')).filter((f) => f.endsWith('.html')).sort();
  const policies = pages.map((page) => {
    const html = readFileSync(join(ctx.root, 'web', page), 'utf8');
    const m = html.match(/http-equiv="Content-Security-Policy" content="([^"]*)"/);
    if (!m) throw new Error(`web/${page}: no Content-Security-Policy <meta>`);
    return { page, csp: m[1] };
  });
  const fa = "frame-ancestors 'self' https://lms.example.edu";
  const lines = [];
  lines.push('Each page\'s policy, as its `<meta>` says (read from `web/*.html` when these docs are rendered):', '');
  for (const { page, csp } of policies) lines.push(`- \`${page}\`: \`${csp}\``);
  lines.push('', 'With `frame-ancestors` added (here `\'self\' https://lms.example.edu`; list your course sites), for nginx (a `location` with its own `add_header` drops the inherited ones, hence the repetition):', '', '```nginx');
  lines.push('# nginx (server block serving dist/)', 'add_header X-Content-Type-Options nosniff always;', 'add_header Referrer-Policy no-referrer always;');
  for (const { page, csp } of policies) {
    const loc = page === 'index.html' ? 'location ~ ^/(index\\.html)?$' : `location = /${page}`;
    lines.push(`${loc} { add_header Content-Security-Policy "${csp}; ${fa}" always;`);
    lines.push(`    add_header X-Content-Type-Options nosniff always; add_header Referrer-Policy no-referrer always; }`);
  }
  lines.push('```', '', 'Apache (`.htaccess` in `dist/`, mod_headers):', '', '```apache', 'Header always set X-Content-Type-Options "nosniff"', 'Header always set Referrer-Policy "no-referrer"');
  for (const { page, csp } of policies) lines.push(`<Files "${page}">`, `  Header always set Content-Security-Policy "${csp}; ${fa}"`, '</Files>');
  lines.push('```', '', 'Netlify / Cloudflare Pages (`dist/_headers`):', '', '```text', '/*', '  X-Content-Type-Options: nosniff', '  Referrer-Policy: no-referrer');
  for (const { page, csp } of policies) {
    if (page === 'index.html') lines.push('/', `  Content-Security-Policy: ${csp}; ${fa}`);
    lines.push(`/${page}`, `  Content-Security-Policy: ${csp}; ${fa}`);
  }
  lines.push('```');
  return lines.join('\n');
}

const sec = (x) => (typeof x === 'number' ? `${x.toFixed(1)} s` : '—');
const times = (x) => (typeof x === 'number' && Number.isFinite(x) ? `${x.toFixed(2)}×` : '—');

function benchWorkers(ctx) {
  const f = benchFile(ctx, 'workers');
  if (!f) return missingBench('workers', 'bench/workers.mjs');
  const d = f.data;
  const e7 = d.exercise7;
  const e9 = d.exercise9;
  const m = (e, k) => e?.medians?.[k];
  const yes = (e) => (e?.same ? 'yes' : 'NO');
  const rows = [
    ['exercise 7 default run (5 × 3 × 400)', sec(m(e7, 'before')), sec(m(e7, '1')), `${sec(m(e7, e7.workers))} (${e7.workers} Workers)`, times(m(e7, 'before') / m(e7, e7.workers)), '≥ 3×, ≤ 20 s', yes(e7)],
    ['exercise 9 Part 2, two seeds', sec(m(e9, 'before')), sec(m(e9, '1')), `${sec(m(e9, '2'))} (2 Workers)`, times(m(e9, 'before') / m(e9, '2')), '≤ 4 s', yes(e9)],
    ['training, 1 → 2 Workers (kernels in both)', '', sec(m(e7, '1')), sec(m(e7, '2')), times(m(e7, '1') / m(e7, '2')), '≥ 1.8×', yes(e7)],
  ];
  return [
    `Medians of ${d.runs} runs${when(d)}${machine(d)}, Chromium ${d.machine?.chromium ?? ''}; from [\`bench/results/workers.json\`](${linkTo(ctx, f.path)}). "Before" is one Worker with the plain loops (\`kernels=reference\`), the code before issue 25.`,
    '',
    table(['run', 'before', '1 Worker, kernels', 'after', 'ratio', 'target', 'same numbers'], rows),
  ].join('\n');
}

function benchAttentionWorkers(ctx) {
  const f = benchFile(ctx, 'attention-workers');
  if (!f) return missingBench('attention-workers', 'bench/attention-workers.mjs');
  const d = f.data;
  const c = d.ceiling;
  const rows = d.results.map((r) => [`S = ${r.S}`, `${r.one_ms.toFixed(0)} ms`, `${r.two_ms.toFixed(0)} ms`, times(r.speedup), r.S === 2048 ? '≥ 1.7×' : '', r.same_bits ? 'yes' : 'NO']);
  const single = d.results.find((r) => r.gflops !== undefined);
  return [
    `Medians of ${d.runs} interleaved runs${when(d)}${machine(d)}; from [\`bench/results/attention-workers.json\`](${linkTo(ctx, f.path)}).`,
    '',
    table(['size', '1 Worker', '2 Workers', 'speed-up', 'target', 'same bits'], rows),
    '',
    single && c
      ? `One Worker at S = ${single.S}: ${single.gflops.toFixed(1)} GFLOP/s, ${(100 * single.share_of_ceiling).toFixed(0)} % of the 128-bit SIMD ceiling of ${c.gflops.toFixed(1)} GFLOP/s (${c.opsPerCycle} vector FP ops a cycle × 4 lanes × ${c.ghz.toFixed(2)} GHz, ${c.clockFrom}); target ≥ 35 GFLOP/s.`
      : '',
  ].join('\n');
}

function benchTrain(ctx) {
  const f = benchFile(ctx, 'train');
  if (!f) return missingBench('train', 'bench/train.mjs');
  const d = f.data;
  const rows = [];
  for (const [name, r] of [['native', d.native], ['wasm (Node)', d.wasm]]) {
    if (!r) continue;
    rows.push([`one step, ${name}, CPU ms`, r.step.before_cpu_ms.toFixed(2), r.step.after_cpu_ms.toFixed(2), times(r.step.cpu_ratio)]);
    rows.push([`one step, ${name}, GFLOP/s`, r.step.before_gflops.toFixed(1), r.step.after_gflops.toFixed(1), '']);
    if (r.exercise7) rows.push([`exercise 7 default run, ${name}, CPU s${r.exercise7.same_results ? '' : ' (results DIFFER)'}`, r.exercise7.before_cpu_s.toFixed(1), r.exercise7.after_cpu_s.toFixed(1), times(r.exercise7.cpu_ratio)]);
  }
  const n = d.native;
  return [
    `The plain loops ("before") and the kernels ("after") alternately in one process; from [\`bench/results/train.json\`](${linkTo(ctx, f.path)})${n ? `: ${n.processor}, clock measured ${n.measured_ghz.toFixed(2)} GHz, ceiling ${n.ceiling_gflops.toFixed(1)} GFLOP/s (${n.vector_ops_per_cycle} vector FP ops a cycle × 4 lanes)` : ''}; load average at the end ${d.load || 'unknown'}.`,
    '',
    table(['row', 'before', 'after', 'ratio'], rows),
  ].join('\n');
}

export const generators = {
  'extend-table': extendTable,
  'extend-facts': extendFacts,
  'extend-curve': extendCurve,
  'extend-loss': extendLoss,
  'run-command': runCommand,
  'extend-inside': extendInside,
  'page-run': pageRun,
  'extrapolate-table': extrapolateTable,
  'bench-attention': benchAttention,
  'bench-load': benchLoad,
  'bench-ui': benchUi,
  'bench-workers': benchWorkers,
  'bench-attention-workers': benchAttentionWorkers,
  'bench-train': benchTrain,
  'bench-instructor': benchInstructor,
  'bench-tables': benchTables,
  'bench-python': benchPython,
  'cli-usage': cliUsage,
  'js-api': jsApi,
  'csp-headers': cspHeaders,
};

// ---------------------------------------------------------------- the files

export function docFiles(root = defaultRoot) {
  const out = [];
  const walk = (dir) => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const p = posix.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.md')) out.push(p);
    }
  };
  for (const top of ['README.md', 'exercises/README.md']) if (existsSync(join(root, top))) out.push(top);
  if (existsSync(join(root, 'docs'))) walk('docs');
  return out;
}

const BLOCK = /<!-- generated:([a-z-]+)(?::([^ ]*))? -->\n[\s\S]*?<!-- \/generated:\1(?::\2)? -->/g;

// The text of one doc with every generated block rendered afresh.
export function renderText(text, file, root = defaultRoot) {
  const opens = [...text.matchAll(/<!-- generated:[a-z-]+(?::[^ ]*)? -->/g)].length;
  const closes = [...text.matchAll(/<!-- \/generated:[a-z-]+(?::[^ ]*)? -->/g)].length;
  if (opens !== closes) throw new Error(`${file}: ${opens} generated blocks open and ${closes} close`);
  let seen = 0;
  const rendered = text.replace(BLOCK, (_, kind, args = '') => {
    seen++;
    const gen = generators[kind];
    if (!gen) throw new Error(`${file}: no generator named '${kind}'; generators: ${Object.keys(generators).join(', ')}`);
    const ctx = { root, file };
    const body = gen(ctx, args ? args.split(',') : []);
    const tag = args ? `${kind}:${args}` : kind;
    return `<!-- generated:${tag} -->\n${body}\n<!-- /generated:${tag} -->`;
  });
  if (seen !== opens) throw new Error(`${file}: a generated block is not closed by its own name`);
  return rendered;
}

export function renderAll(root = defaultRoot) {
  return docFiles(root).map((file) => {
    const text = readFileSync(join(root, file), 'utf8');
    return { file, text, rendered: renderText(text, file, root) };
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const { file, text, rendered } of renderAll()) {
    if (text === rendered) continue;
    stale++;
    if (check) console.log(`render-docs: ${file} differs from what its files render (node scripts/render-docs.mjs)`);
    else {
      writeFileSync(join(defaultRoot, file), rendered);
      console.log(`render-docs: rendered ${file}`);
    }
  }
  if (check && stale) process.exit(1);
  if (!check && !stale) console.log('render-docs: every generated block is up to date');
}
