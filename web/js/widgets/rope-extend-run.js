// RoPE context extension, Part 2: the miniature experiment in the page. The
// core's ExtensionRun (the same as `poslab extend --task lookback --k 4
// --base 100`) trains the tiny Transformer with RoPE on "look back 4" with
// n ≤ 8, then per method (none, PI, NTK-aware, YaRN) tests every n ≤ 16 as
// trained and after 50 fine-tune steps at n ≤ 16. Runs in the training Worker (core/trainer.js, job kind 'extend'), with
// progress and cancel; the finished run is kept for this browser tab
// (sessionStorage) so leaving and returning shows it again. The page only
// averages the core's 0/1 exact match over seeds, and says so. The seeds of
// the run shown go into the lab (runSeeds): the question on "your run"
// (answer_from: extend_run) opens then, and the core grades it by re-running
// those seeds with RUN (the exercise's args must equal RUN and METHODS).
import { h, errorBox, fmt } from '../dom.js';
import { t } from '../i18n.js';
import { lineplot } from './lineplot.js';
import { startTraining, activeSession } from '../core/trainer.js';
import { parseKernels, parseWorkerCount, timeLeft } from '../core/run-pool.js';
import { benchTimes } from '../bench-times.js';
import { linkMethods } from './method-link.js';

export const METHODS = ['none', 'pi', 'ntk', 'yarn'];
// The seed sets offered: the exercise's lab.run_seeds (what the grader accepts), else these.
export const SEED_CHOICES = [[1], [1, 2], [1, 2, 3]];
// Look back 4 at base 100: the setting measured to separate the methods (README, #15).
// YaRN with the lab's rescaled edges (α = 1, β = L/2π): with the paper's
// (α = 1, β = 32) it is within 5 % of PI at L = 16 and scored 0 like PI for
// seeds 1–3 (docs/experiments/rope-extension.md), so the run would not tell them apart.
export const RUN = { steps: 400, trainMax: 8, testMax: 16, finetuneSteps: 50, task: 'lookback', k: 4, base: 100, yarnEdges: 'lab' };
const STORE_KEY = 'poslab.rope-extend.run.v2'; // v1: count and stop at base 10 000
const MAX_STORED_CHARS = 200000;

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
// YaRN's name says which edges the run used.
const name = (m) => (m === 'yarn' ? t(`extrun.method_yarn_${RUN.yarnEdges}`) : t(`ropeext.method_${m}`));

// A stored run, read back as hostile input: null unless it has the shape this widget writes.
export function validRun(r) {
  if (!r || typeof r !== 'object' || !Array.isArray(r.seeds) || !Array.isArray(r.results)) return null;
  if (!r.seeds.length || r.seeds.length > 3 || r.results.length !== r.seeds.length) return null;
  for (const x of r.results) {
    if (!x || !Array.isArray(x.curves) || x.curves.length !== METHODS.length * 2) return null;
    for (const c of x.curves) {
      if (!METHODS.includes(c.method) || typeof c.finetuned !== 'boolean' || !Array.isArray(c.exactMatch)) return null;
      // Look back k scores each n by the fraction of its test sequences solved whole: a number in [0, 1].
      if (c.exactMatch.length !== RUN.testMax || !c.exactMatch.every((v) => typeof v === 'number' && v >= 0 && v <= 1)) return null;
      if (!Number.isInteger(c.solvedUpTo) || typeof c.meanExtrapolated !== 'number') return null;
    }
  }
  return r;
}

function store() {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    return null;
  }
}
export function saveRun(run) {
  const text = JSON.stringify(run);
  if (text.length > MAX_STORED_CHARS) return;
  try {
    store()?.setItem(STORE_KEY, text);
  } catch {
    /* full or refused: not kept */
  }
}
export function loadRun() {
  try {
    const text = store()?.getItem(STORE_KEY);
    return typeof text === 'string' && text.length <= MAX_STORED_CHARS ? validRun(JSON.parse(text)) : null;
  } catch {
    return null;
  }
}

// A share in [0, 1] with as many decimals as it takes (2 to 6) for the
// figure not to read as 1 (or 0) when it is not: 0.9974 → "0.997", never "1.00".
export function fmtShare(x) {
  for (let digits = 2; digits <= 6; digits++) {
    const text = fmt(x, digits);
    if ((Number(text) === 1 && x < 1) || (Number(text) === 0 && x > 0)) continue;
    return text;
  }
  return x < 1 && x > 0.5 ? `> ${fmt(0.999999, 6)}` : `< ${fmt(0.000001, 6)}`;
}

// Per method and fine-tune: the mean over seeds of meanExtrapolated, each
// seed's largest n solved, how many n = 1 … testMax every seed solved
// (exact match 1), and whether it solved every n in every seed: the rule the
// run question's key uses (the core's solvedUpTo = testMax in every seed).
export function summarize(run) {
  const rows = [];
  for (const finetuned of [false, true])
    for (const m of METHODS) {
      const cs = run.results.map((r) => r.curves.find((c) => c.method === m && c.finetuned === finetuned));
      const solved = cs.map((c) => c.solvedUpTo);
      const ns = Array.from({ length: RUN.testMax }, (_, i) => i);
      rows.push({
        method: m,
        finetuned,
        mean: mean(cs.map((c) => c.meanExtrapolated)),
        solved,
        curve: ns.map((i) => mean(cs.map((c) => c.exactMatch[i]))),
        solvedN: ns.filter((i) => cs.every((c) => c.exactMatch[i] === 1)).length,
        everyN: solved.every((v) => v >= RUN.testMax),
      });
    }
  return rows;
}

const names = (rows) => rows.map((r) => name(r.method)).join(t('extrun.list_sep'));

// The verdict from this run's numbers only, each claim by an exact rule:
// which methods solved every n in every seed (zero-shot and after the
// fine-tune: the run question's rule), the others' count of n solved in
// every seed, and the best zero-shot mean past n = trainMax against plain
// RoPE, shown with enough digits not to round to 1.
export function verdict(rows) {
  const zero = rows.filter((r) => !r.finetuned);
  const tuned = rows.filter((r) => r.finetuned);
  const top = Math.max(...zero.map((r) => r.mean));
  const best = zero.filter((r) => r.mean === top);
  const none = zero.find((r) => r.method === 'none').mean;
  const lines = [t('extrun.verdict_zero', { best: names(best), value: fmtShare(top), none: fmtShare(none), trainMax: RUN.trainMax, testMax: RUN.testMax })];
  if (top <= none) lines.push(t('extrun.verdict_no_gain'));
  const partly = (rs) => rs.filter((r) => !r.everyN).map((r) => t('extrun.verdict_count', { method: name(r.method), solved: r.solvedN, total: RUN.testMax })).join(t('extrun.list_sep'));
  for (const [rs, phase] of [[zero, 'zero'], [tuned, 'ft']]) {
    const all = rs.filter((r) => r.everyN);
    const vars = { steps: RUN.finetuneSteps, testMax: RUN.testMax, list: names(all), others: partly(rs) };
    if (all.length === rs.length) lines.push(t(`extrun.verdict_${phase}_all`, vars));
    else if (!all.length) lines.push(t(`extrun.verdict_${phase}_none`, vars));
    else lines.push(t(`extrun.verdict_${phase}_some`, vars));
  }
  return lines;
}

// PI in this run: the n inside the trained lengths (n ≤ trainMax) where it
// scored 0 in every seed, zero-shot and after the fine-tune, and whether
// plain RoPE scored 1 at all of those (zero-shot). null when PI scored above
// 0 at every trained n: then the page says nothing about it.
export function piNote(rows) {
  const zero = rows.find((r) => r.method === 'pi' && !r.finetuned);
  const tuned = rows.find((r) => r.method === 'pi' && r.finetuned);
  const none = rows.find((r) => r.method === 'none' && !r.finetuned);
  if (!zero || !none) return null;
  const inside = (r) => r.curve.map((v, i) => (i < RUN.trainMax && v === 0 ? i + 1 : 0)).filter(Boolean);
  const zeroNs = inside(zero);
  if (!zeroNs.length) return null;
  return {
    zeroNs,
    tunedNs: tuned ? inside(tuned) : [],
    noneSolved: zeroNs.every((n) => none.curve[n - 1] === 1),
  };
}

// "3, 4, 5, 6" → "3–6" (a run of consecutive n), else the list.
export function nList(ns) {
  const parts = [];
  for (let i = 0; i < ns.length; ) {
    let j = i;
    while (j + 1 < ns.length && ns[j + 1] === ns[j] + 1) j++;
    parts.push(j - i >= 2 ? `${ns[i]}–${ns[j]}` : ns.slice(i, j + 1).join(', '));
    i = j + 1;
  }
  return parts.join(', ');
}

function piLines(note) {
  const lines = [t(note.noneSolved ? 'extrun.pi_zero_none_solved' : 'extrun.pi_zero', { ns: nList(note.zeroNs), trainMax: RUN.trainMax })];
  lines.push(t('extrun.pi_why', { k: RUN.k, far: RUN.k * (RUN.testMax / RUN.trainMax), near: RUN.k / (RUN.testMax / RUN.trainMax), s: RUN.testMax / RUN.trainMax }));
  if (note.tunedNs.length) lines.push(t('extrun.pi_tuned', { ns: nList(note.tunedNs), steps: RUN.finetuneSteps }));
  return lines;
}

export function mount(el, block, ctx) {
  const id = block.id;
  const choices = Array.isArray(ctx.exercise?.lab?.run_seeds) && ctx.exercise.lab.run_seeds.length ? ctx.exercise.lab.run_seeds : SEED_CHOICES;
  const first = Math.min(1, choices.length - 1);
  const offered = (seeds) => choices.some((c) => c.length === seeds.length && c.every((x, i) => x === seeds[i]));
  // The run shown is the one a question on "your run" is graded for (lab.runSeeds).
  const showing = (seeds) => ctx.setLab?.('runSeeds', seeds && offered(seeds) ? [...seeds] : undefined);
  const w = { state: { seeds: choices[first] }, result: null, error: null };
  const seedsSelect = h('select', { id: `${id}-seeds` }, ...choices.map((s, i) => h('option', { value: String(i), selected: i === first }, t('extrun.seeds_option', { n: s.length, list: s.join(', ') }))));
  const runButton = h('button', { type: 'button', class: 'train-button' }, t('extrun.run'));
  const cancelButton = h('button', { type: 'button', class: 'secondary cancel-button', disabled: true }, t('extrap.cancel'));
  const bar = h('div', { class: 'progress-fill' });
  const progress = h('div', { class: 'progress', role: 'progressbar', 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': 0, 'aria-label': t('extrun.progress_label') }, bar);
  const progressText = h('p', { class: 'progress-text' });
  const statusBox = h('div', { class: 'extrap-status', hidden: true }, progress, progressText);
  const outcome = h('p', { class: 'extrap-outcome', role: 'status', 'aria-live': 'polite' });
  // Before a run: how long two seeds took when the bench last measured them (web/js/bench-times.js), never a promise.
  const ex9 = benchTimes?.ex9;
  const results = h('div', { class: 'extrun-results' }, h('p', { class: 'muted' }, t('extrun.before_run')), ex9 ? h('p', { class: 'help extrun-bench-time' }, t('extrun.bench_time', { date: benchTimes.date, cpus: benchTimes.cpus, cpu: benchTimes.cpu, load: fmt(benchTimes.load, 1), workers: ex9.workers, after: fmt(ex9.after_s, 1), one: fmt(ex9.one_s, 1) })) : null);
  el.append(
    h('p', { class: 'help' }, t('extrun.intro', RUN)),
    h('div', { class: 'extrap-numbers' }, h('div', { class: 'control' }, h('label', { for: seedsSelect.id }, t('extrun.seeds')), seedsSelect), h('div', { class: 'extrap-buttons' }, runButton, cancelButton)),
    statusBox,
    outcome,
    results,
  );
  seedsSelect.addEventListener('change', () => (w.state = { seeds: choices[Number(seedsSelect.value)] }));
  // workers=N in the link: how many Web Workers run the seeds (absent: the
  // browser's core count). A bad value is said here and ignored.
  const workersFromUrl = parseWorkerCount(ctx.getUrl?.('workers'));
  if (workersFromUrl.error) statusBox.before(h('p', { class: 'control-msg extrap-msg', role: 'alert' }, t('extrap.bad_workers', workersFromUrl.error.params)));
  const kernelsFromUrl = parseKernels(ctx.getUrl?.('kernels')); // the bench's "before" (run-pool.js)
  if (kernelsFromUrl.error) statusBox.before(h('p', { class: 'control-msg extrap-msg', role: 'alert' }, t('extrap.bad_kernels', kernelsFromUrl.error.params)));

  // A method's curves and row light up with its angle map above (method-link.js), and the other way round.
  const links = linkMethods(el);
  function show(run) {
    const rows = summarize(run);
    w.result = { rows, seeds: run.seeds };
    const ns = Array.from({ length: RUN.testMax }, (_, i) => i + 1);
    const plot = (finetuned) =>
      lineplot(
        rows.filter((r) => r.finetuned === finetuned).map((r) => ({ label: name(r.method), style: METHODS.indexOf(r.method), xs: ns, ys: r.curve, key: r.method })),
        // Drawn as half-width panels (narrow), side by side where there is room (style.css .extrun-plots):
        // both within the first two screens, under the angle map they are linked with.
        { narrow: true, caption: t(finetuned ? 'extrun.plot_ft' : 'extrun.plot_zero', { seeds: run.seeds.join(', '), steps: RUN.finetuneSteps }), xLabel: 'n', yLabel: t('extrun.exact'), yMin: 0, yMax: 1, xMin: 1, xMax: RUN.testMax, shade: { from: 1, to: RUN.trainMax, label: t('extrun.trained') } },
      );
    const table = h(
      'div',
      { class: 'table-scroll', tabindex: '0' },
      h(
        'table',
        { class: 'data-table extrun-table' },
        h('caption', {}, t('extrun.table_caption', { trainMax: RUN.trainMax, testMax: RUN.testMax })),
        h('thead', {}, h('tr', {}, ...['method', 'zero', 'zero_solved', 'ft', 'ft_solved'].map((k) => h('th', { scope: 'col' }, t(`extrun.col_${k}`, { steps: RUN.finetuneSteps }))))),
        h(
          'tbody',
          {},
          ...METHODS.map((m) => {
            const z = rows.find((r) => r.method === m && !r.finetuned);
            const f = rows.find((r) => r.method === m && r.finetuned);
            return h('tr', { 'data-method': m, 'data-method-key': m }, h('th', { scope: 'row', tabindex: '0' }, name(m)), h('td', {}, fmtShare(z.mean)), h('td', {}, z.solved.join(', ')), h('td', {}, fmtShare(f.mean)), h('td', {}, f.solved.join(', ')));
          }),
        ),
      ),
    );
    const pi = piNote(rows);
    results.replaceChildren(
      h('div', { class: 'extrun-plots' }, plot(false), plot(true)),
      table,
      h('div', { class: 'extrun-verdict' }, h('h4', {}, t('extrun.verdict_title')), ...verdict(rows).map((line) => h('p', {}, line))),
      ...(pi ? [h('div', { class: 'extrun-pi-note' }, h('h4', {}, t('extrun.pi_title')), ...piLines(pi).map((line) => h('p', {}, line)))] : []),
    );
    links.refresh();
  }

  let session = null;
  function render(s) {
    session = s;
    el.dataset.status = s.status;
    el.dataset.workers = String(s.workers ?? 0); // how many Web Workers run the seeds (0: the main thread)
    const running = ['starting', 'running', 'cancelling'].includes(s.status);
    runButton.disabled = running;
    seedsSelect.disabled = running;
    cancelButton.disabled = s.status !== 'running' && s.status !== 'starting';
    statusBox.hidden = !running;
    const p = s.progress;
    const pct = p.stepsTotal ? Math.round((100 * p.stepsDone) / p.stepsTotal) : 0;
    bar.style.width = `${pct}%`;
    progress.setAttribute('aria-valuenow', String(pct));
    let text = t('extrun.progress', { done: p.stepsDone ?? 0, total: p.stepsTotal ?? 0, seed: p.seed ?? s.options.seeds[0] });
    // Seeds done and the time left, from this run's own pace (as exercise 7's progress line).
    const tl = s.status === 'running' && typeof s.activeMs === 'function' ? timeLeft({ activeMs: s.activeMs(), stepsDone: p.stepsDone, stepsTotal: p.stepsTotal }) : null;
    if (tl) text += ' — ' + t('extrap.time_left', { done: s.results.length, runs: s.runs.length, left: Math.round(tl.left), spent: tl.spent < 10 ? fmt(tl.spent, 1) : Math.round(tl.spent) });
    progressText.textContent = text;
    if (s.status === 'done') {
      const run = { seeds: s.options.seeds, results: s.results.map((r) => ({ seed: r.seed, curves: r.curves })) };
      if (validRun(run)) {
        saveRun(run);
        show(run);
        showing(run.seeds);
      }
      outcome.textContent = t('extrun.done', { seconds: fmt(s.seconds, 1) });
    } else if (s.status === 'cancelled') outcome.textContent = t('extrun.cancelled');
    else if (s.status === 'error') {
      w.error = s.error;
      results.replaceChildren(errorBox(s.error));
      showing(null);
      outcome.textContent = '';
    } else outcome.textContent = s.status === 'cancelling' ? t('extrun.cancelling') : '';
  }
  const attach = (s) => s.subscribe(render, () => el.isConnected);

  runButton.addEventListener('click', () => {
    let s;
    try {
      s = startTraining({ kind: 'extend', seeds: w.state.seeds, methods: METHODS, ...RUN, ...(workersFromUrl.count ? { workers: workersFromUrl.count } : {}), ...(kernelsFromUrl.kernels ? { kernels: kernelsFromUrl.kernels } : {}) }, { core: ctx.core });
    } catch (e) {
      outcome.textContent = t('extrun.busy');
      return;
    }
    attach(s);
    render(s);
  });
  cancelButton.addEventListener('click', () => session?.cancel());

  w.update = async () => {
    const s = activeSession();
    if (s && s.options.kind === 'extend' && s !== session) {
      attach(s);
      render(s);
      return;
    }
    if (!session) {
      const kept = loadRun();
      if (kept && offered(kept.seeds)) {
        show(kept);
        showing(kept.seeds);
        outcome.textContent = t('extrun.restored', { seeds: kept.seeds.join(', ') });
      }
    }
  };
  return w;
}
