// "Train short, test long": train the core's tiny Transformer on "count and
// stop" with n ≤ 16 for each chosen position scheme and seed, then test every
// n up to 48. Shows a progress bar and the training loss live, then exact
// match versus n with the trained range shaded and a table of the largest n
// solved and the mean exact match past the trained length. Training runs in
// core/trainer.js (a Web Worker, or the main thread from file://); every number
// shown is the core's ExtrapolationRun output — the page only averages over
// seeds for the plot and the summary, and says so.
import { h, errorBox, fmt } from '../dom.js';
import { t, pick } from '../i18n.js';
import { richBlock, richInline } from '../rich.js';
import { lineplot, swatch } from './lineplot.js';
import { startTraining, activeSession } from '../core/trainer.js';
import { evalEvery } from '../core/train-loop.js';
import { parseKernels, parseWorkerCount, timeLeft } from '../core/run-pool.js';
import { benchTimes } from '../bench-times.js';
import { rankRun, predictionOutcome, saveRun, loadRun } from './extrap-run.js';

export const SCHEMES = ['learned', 'sinusoidal', 'rope', 'alibi', 'none'];
const DEFAULT_SEEDS = [1, 2, 3];
const DEFAULT_STEPS = 400;
const MAX_SEEDS = 5;
export const STEPS_MIN = 1;
export const STEPS_MAX = 2000; // the core allows 20000; 15 runs of 2000 steps already take minutes
// The core's defaults (ExtrapolationOptions), which the page does not change;
// the results carry their own trainMax and testMax.
const TRAIN_MAX = 16;
const TEST_MAX = 48;
// While training, the progress line is rewritten at most every PROGRESS_MS
// and the loss curves redrawn at most every REDRAW_MS (a change of status or
// pause, and the end, are drawn at once): with several Workers reporting every
// few tens of milliseconds, drawing each report kept the main thread busy.
const PROGRESS_MS = 250;
// The stage in one column (runner.js's ONE_COLUMN: the picture first, the prediction under it).
const ONE_COLUMN = '(max-width: 71.99rem)';
const REDRAW_MS = 1000;
// A phone's width, as lineplot.js draws for it (340 units wide): there the live chart is drawn lower.
const LIVE_PHONE = () => typeof matchMedia === 'function' && matchMedia('(max-width: 560px)').matches;

// "1, 2, 3" (also 、 and full-width digits) → { seeds } or { error }.
export function parseSeeds(text) {
  const parts = String(text).normalize('NFKC').split(/[\s,、]+/).filter(Boolean);
  if (!parts.length) return { error: t('extrap.seeds_empty') };
  const seeds = [];
  for (const p of parts) {
    if (!/^\d+$/.test(p)) return { error: t('extrap.seed_not_number', { value: p }) };
    const n = Number(p);
    if (seeds.includes(n)) return { error: t('extrap.seed_twice', { value: p }) };
    seeds.push(n);
  }
  if (seeds.length > MAX_SEEDS) return { error: t('extrap.seeds_too_many', { max: MAX_SEEDS, n: seeds.length }) };
  return { seeds };
}

export function parseSteps(text) {
  const s = String(text).normalize('NFKC').trim();
  if (!s) return { error: t('extrap.steps_empty', { min: STEPS_MIN, max: STEPS_MAX }) };
  if (!/^\d+$/.test(s)) return { error: t('extrap.steps_not_number', { value: s, min: STEPS_MIN, max: STEPS_MAX }) };
  const steps = Number(s);
  if (steps < STEPS_MIN || steps > STEPS_MAX) return { error: t('extrap.steps_range', { value: s, min: STEPS_MIN, max: STEPS_MAX }) };
  return { steps };
}

const schemeName = (s) => t(`extrap.scheme.${s}`);
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

export function mount(el, block, ctx) {
  const offered = block.schemes ?? SCHEMES;
  const defaults = { schemes: offered, seeds: block.seeds ?? DEFAULT_SEEDS, steps: block.steps ?? DEFAULT_STEPS };
  const w = { state: { schemes: defaults.schemes.slice(), seeds: defaults.seeds.slice(), steps: defaults.steps }, result: null, error: null };
  const id = block.id;

  // ---- the form ----
  const boxes = offered.map((s) =>
    h('input', { type: 'checkbox', id: `${id}-scheme-${s}`, value: s, checked: true, 'data-scheme': s }),
  );
  const seedsInput = h('input', { type: 'text', id: `${id}-seeds`, class: 'seeds-input', value: defaults.seeds.join(', '), inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': `${id}-seeds-help` });
  const stepsInput = h('input', { type: 'number', id: `${id}-steps`, class: 'num', value: defaults.steps, min: STEPS_MIN, max: STEPS_MAX, step: 1, 'aria-describedby': `${id}-steps-help` });
  // Train submits the form below the chart from the bar above it (the form attribute).
  const trainButton = h('button', { type: 'submit', class: 'train-button', form: `${id}-form` }, t('extrap.train'));
  const cancelButton = h('button', { type: 'button', class: 'secondary cancel-button', disabled: true }, t('extrap.cancel'));
  // Pause / resume and step (one chunk of steps), as TensorFlow Playground's: plain buttons, so Tab and Enter or Space work.
  const pauseButton = h('button', { type: 'button', class: 'secondary pause-button', disabled: true, 'aria-pressed': 'false', 'aria-describedby': `${id}-controls-help` }, t('extrap.pause'));
  const stepButton = h('button', { type: 'button', class: 'secondary step-button', disabled: true, 'aria-describedby': `${id}-controls-help` }, t('extrap.step_once', { n: 10 }));
  const msg = h('p', { class: 'control-msg extrap-msg', role: 'alert' });
  const form = h(
    'form',
    { class: 'extrap-form', id: `${id}-form`, novalidate: true },
    h('fieldset', { class: 'extrap-schemes' }, h('legend', {}, t('extrap.schemes')), ...offered.map((s, i) => h('span', { class: 'control check' }, boxes[i], h('label', { for: boxes[i].id }, schemeName(s))))),
    h(
      'div',
      { class: 'extrap-numbers' },
      h('div', { class: 'control' }, h('label', { for: seedsInput.id }, t('extrap.seeds')), seedsInput, h('span', { class: 'help', id: `${id}-seeds-help` }, t('extrap.seeds_help', { max: MAX_SEEDS }))),
      h('div', { class: 'control' }, h('label', { for: stepsInput.id }, t('extrap.steps')), stepsInput, h('span', { class: 'help', id: `${id}-steps-help` }, t('extrap.steps_help', { min: STEPS_MIN, max: STEPS_MAX }))),
    ),
    h('p', { class: 'help extrap-controls-help', id: `${id}-controls-help` }, t('extrap.controls_help')),
    // How long the default experiment took when the bench last measured it (never a promise).
    benchTimes ? h('p', { class: 'help extrap-bench-time' }, t('extrap.bench_time', { date: benchTimes.date, cpus: benchTimes.cpus, cpu: benchTimes.cpu, load: fmt(benchTimes.load, 1), workers: benchTimes.ex7.workers, after: fmt(benchTimes.ex7.after_s, 1), one: fmt(benchTimes.ex7.one_s, 1) })) : null,
    msg,
  );

  // ---- progress, curves, results ----
  const bar = h('div', { class: 'progress-fill' });
  const progress = h('div', { class: 'progress', role: 'progressbar', 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': 0, 'aria-label': t('extrap.progress_label') }, bar);
  const progressText = h('p', { class: 'progress-text' });
  const outcome = h('p', { class: 'extrap-outcome', role: 'status', 'aria-live': 'polite' });
  const statusBox = h('div', { class: 'extrap-status', hidden: true }, progress, progressText);
  const losses = h('div', { class: 'extrap-losses' });
  // Before any run: the axes the curves will grow on (n, exact match, the trained range shaded,
  // the schemes' legend), empty, saying so in the frame.
  const results = h('div', { class: 'extrap-results' }, emptyAxes(), h('p', { class: 'muted extrap-before-run' }, benchTimes ? `${t('extrap.before_run')}${t('extrap.sentence_sep')}${t('extrap.before_run_time')}` : t('extrap.before_run')));
  // Where the page puts the prediction this widget waits for when the stage is one column (a
  // phone): between the picture and the Train button (runner.js, beside_prediction).
  const predictionSlot = block.prediction ? h('div', { class: 'extrap-prediction-slot', 'data-prediction-slot': block.prediction }) : null;
  // The picture first (issue 24: the axes before a run, the exact-match curves growing live while
  // training, then the final ones), the progress above it, the form under it, the losses last.
  // Train, Pause, Step and Cancel in a bar at the chart's top, as TensorFlow Playground's play bar
  // (issue 24: under the form they were off the first screen); on a phone, while it trains, the bar
  // and the chart stick together at the top of the screen (style.css).
  const playBar = h('div', { class: 'extrap-bar', role: 'group', 'aria-label': t('extrap.bar_label') }, trainButton, pauseButton, stepButton, cancelButton);
  const chartBox = h('div', { class: 'extrap-chart-box' }, playBar, results);
  // One column (a phone): a button of the bar reached by keyboard, or a run started (the progress
  // lines above push the chart down), brings the chart whole into view with the bar, if it fits on
  // the screen. (Not on a tap or click: the page moving between press and release lost the click.)
  const oneColumn = typeof matchMedia === 'function' ? matchMedia(ONE_COLUMN) : null;
  const revealChart = () => {
    if (!oneColumn?.matches || !el.isConnected) return;
    const r = chartBox.getBoundingClientRect();
    if (r.height <= innerHeight && (r.top < 0 || r.bottom > innerHeight)) chartBox.scrollIntoView({ block: 'nearest' });
  };
  playBar.addEventListener('focusin', (e) => e.target.matches(':focus-visible') && revealChart());
  el.append(h('p', { class: 'help extrap-intro' }, t('extrap.intro', { trainMax: TRAIN_MAX, testMax: TEST_MAX })), statusBox, outcome, chartBox, predictionSlot, form, losses);

  // ---- the controls and the URL ----
  const setBoxes = (list) => boxes.forEach((b) => (b.checked = list.includes(b.value)));
  const chosenSchemes = () => boxes.filter((b) => b.checked).map((b) => b.value);
  function readForm() {
    const schemes = chosenSchemes();
    if (!schemes.length) return { error: t('extrap.need_scheme') };
    const seeds = parseSeeds(seedsInput.value);
    if (seeds.error) return seeds;
    const steps = parseSteps(stepsInput.value);
    if (steps.error) return steps;
    return { options: { schemes, seeds: seeds.seeds, steps: steps.steps } };
  }
  // Only valid values that differ from the exercise's defaults go into the URL.
  function commit() {
    const r = readForm();
    msg.textContent = r.error ?? '';
    if (r.error) return null;
    const o = r.options;
    w.state = { schemes: o.schemes, seeds: o.seeds, steps: o.steps };
    ctx.setUrl('schemes', o.schemes.join(',') === defaults.schemes.join(',') ? undefined : o.schemes.join(','));
    ctx.setUrl('seeds', o.seeds.join(',') === defaults.seeds.join(',') ? undefined : o.seeds.join(','));
    ctx.setUrl('steps', o.steps === defaults.steps ? undefined : String(o.steps));
    return o;
  }
  const workersFromUrl = parseWorkerCount(ctx.getUrl('workers'));
  const kernelsFromUrl = parseKernels(ctx.getUrl('kernels')); // the bench's "before" (run-pool.js)
  // From the URL: shown as given; what is wrong is said in place.
  (function fromUrl() {
    const problems = [];
    const s = ctx.getUrl('schemes');
    if (s !== undefined) {
      const names = s.split(',').filter(Boolean);
      const bad = names.filter((n) => !offered.includes(n));
      if (bad.length) problems.push(t('extrap.unknown_scheme', { value: bad.join(', '), allowed: offered.join(', ') }));
      setBoxes(names.filter((n) => offered.includes(n)));
    }
    if (ctx.getUrl('seeds') !== undefined) seedsInput.value = ctx.getUrl('seeds').split(',').join(', ');
    const urlSteps = ctx.getUrl('steps');
    if (urlSteps !== undefined) stepsInput.value = urlSteps;
    // A number field drops text it cannot read, so the link's own value is checked.
    const stepsProblem = urlSteps !== undefined ? parseSteps(urlSteps).error : null;
    // workers=N: how many Web Workers train (a fixed count, for tests and the
    // bench; absent, the browser's core count). A bad value is said and ignored.
    const workersProblem = workersFromUrl.error ? t('extrap.bad_workers', workersFromUrl.error.params) : null;
    if (workersProblem) problems.push(workersProblem);
    if (kernelsFromUrl.error) problems.push(t('extrap.bad_kernels', kernelsFromUrl.error.params));
    const r = readForm();
    if (stepsProblem) problems.push(stepsProblem);
    else if (r.error) problems.push(r.error);
    else w.state = { ...r.options };
    msg.textContent = problems.join(' ');
  })();
  for (const b of boxes) b.addEventListener('change', commit);
  seedsInput.addEventListener('change', commit);
  stepsInput.addEventListener('change', commit);

  // The live plot's frame with no curve on it yet (issue 24: the picture on the first screen,
  // beside the prediction, before anything is measured). No data, so no table twin.
  function emptyAxes() {
    // The schemes' lines with no point yet: the legend says which line will be which.
    const series = offered.map((sc) => ({ label: schemeName(sc), style: SCHEMES.indexOf(sc), xs: [], ys: [] }));
    const fig = lineplot(series, {
      caption: t('extrap.live_empty_caption'),
      note: t('extrap.live_empty_note'),
      xLabel: t('extrap.n'),
      xMin: 1,
      xMax: TEST_MAX,
      yMin: 0,
      yMax: 1,
      xTicks: [1, TRAIN_MAX, 32, TEST_MAX],
      shade: { from: 1, to: TRAIN_MAX + 0.5, label: t('extrap.trained_range', { trainMax: TRAIN_MAX }) },
    });
    for (const e of fig.querySelectorAll('.table-toggle, .table-scroll')) e.remove();
    fig.classList.add('em-empty');
    return fig;
  }

  // ---- the prediction (a prediction question of this exercise, asked before training) ----
  // The recorded prediction (the first one counts), kept up to date as the learner records it.
  const predictionBlock = block.prediction ? ctx.exercise.blocks.find((b) => b.id === block.prediction) : null;
  const firstPrediction = () => {
    const a = predictionBlock ? ctx.firstAnswer?.(block.prediction) : null;
    return Array.isArray(a) && typeof a[0] === 'string' && predictionBlock.options.some((o) => o.id === a[0]) ? a[0] : null;
  };
  let predicted = firstPrediction();
  const onAnswered = (e) => {
    if (!el.isConnected) return window.removeEventListener('poslab:answered', onAnswered);
    const d = e.detail;
    if (d.exercise !== ctx.exercise.id || d.question !== block.prediction || predicted || closedPrediction) return;
    predicted = Array.isArray(d.answer) ? d.answer[0] : null;
    if (session?.status === 'done') results.replaceChildren(resultsView(session));
    showPredictFirst();
  };
  if (predictionBlock) window.addEventListener('poslab:answered', onAnswered);
  // Beside the Train button while no prediction is recorded: the picture stands beside the
  // question (issue 24), so the button is in view before the question is answered.
  const predictFirst = h('p', { class: 'notice extrap-predict-first', hidden: true }, t('extrap.predict_first'));
  playBar.append(predictFirst);
  function showPredictFirst() {
    predictFirst.hidden = !predictionBlock || !!predicted || closedPrediction || !!session;
  }
  // A prediction comes before any result: when a run starts, or a kept run is
  // shown, with no prediction recorded, the prediction question closes for
  // good; the first time, an attempt {ran_before_prediction: true} is kept, so
  // the submission shows the instructor that training came first.
  let closedPrediction = false;
  function closePrediction() {
    if (!predictionBlock || predicted || closedPrediction) return;
    closedPrediction = true;
    showPredictFirst();
    window.dispatchEvent(new CustomEvent('poslab:prediction-closed', { detail: { exercise: ctx.exercise.id, question: block.prediction } }));
    const kept = (ctx.attempts?.(block.prediction) ?? []).some((a) => a.answer?.ran_before_prediction === true);
    if (!kept) ctx.check(block.prediction, { ran_before_prediction: true }).catch(() => {});
  }

  // ---- rendering a session ----
  let session = null;
  showPredictFirst();
  let lastDraw = 0;
  let drawTimer = null;

  function lossPlots(s) {
    const { schemes, seeds, steps } = s.options;
    let top = 0;
    for (const v of Object.values(s.losses)) for (const x of v) top = Math.max(top, x);
    return seeds.map((seed) => {
      const series = schemes.map((scheme) => {
        const ys = s.losses[`${scheme}|${seed}`] ?? [];
        return { label: schemeName(scheme), xs: ys.map((_, i) => i + 1), ys, style: SCHEMES.indexOf(scheme) };
      });
      // The first scheme's steps give the table its rows; with no data yet there is nothing to plot.
      if (!series[0].xs.length) return h('p', { class: 'muted loss-waiting', 'data-seed': seed }, t('extrap.loss_waiting', { seed }));
      // Drawn narrow (340 units), as they are shown side by side: their ticks stay ≥ 11 px, not 6 px.
      const fig = lineplot(series, { caption: t('extrap.loss_caption', { seed }), xLabel: t('extrap.step'), xMin: 1, xMax: steps, yMin: 0, yMax: Math.max(top, 0.1), narrow: true });
      fig.dataset.seed = String(seed);
      fig.classList.add('loss-plot');
      return fig;
    });
  }

  // The exact-match curves while training (issue 24: they grow as the models
  // learn). Per scheme, the mean over its seeds of each seed's latest test: a
  // finished run's final test, or the core's test of the run in training
  // (every `every` steps, train-loop.js). Every value is the core's evaluate().
  function liveView(s) {
    const { schemes, seeds } = s.options;
    const every = evalEvery(s.options.steps, s.chunk);
    const running = s.status === 'running' || s.status === 'starting';
    const latest = (sc, seed) => s.results.find((r) => r.scheme === sc && r.seed === seed)?.evaluation ?? s.live[`${sc}|${seed}`] ?? null;
    const series = [];
    const states = [];
    let shape = null;
    for (const sc of schemes) {
      const evs = seeds.map((seed) => latest(sc, seed)).filter(Boolean);
      // The run of this scheme in training now (with several Workers, several
      // schemes train at once; the earliest run of this one is shown).
      const now = running ? Object.values(s.active ?? {}).filter((a) => a.scheme === sc).sort((a, b) => a.run - b.run)[0] : null;
      const training = !!now;
      const stepShown = training ? s.live[`${sc}|${now.seed}`]?.step ?? 0 : null;
      const key = training ? 'extrap.live_state_step' : evs.length ? 'extrap.live_state_done' : 'extrap.live_state_wait';
      // Each scheme's line mark with its state: the chart's key too (on a phone, where the box must stay small, the only one).
      states.push(h('li', { 'data-scheme': sc, 'data-state': training ? 'training' : evs.length ? 'trained' : 'waiting', 'data-test-step': training ? String(stepShown) : '' }, swatch(SCHEMES.indexOf(sc)), t(key, { scheme: schemeName(sc), seed: now?.seed ?? s.progress.seed, step: stepShown })));
      if (!evs.length) continue;
      shape ??= { trainMax: evs[0].trainMax, testMax: evs[0].testMax };
      const ns = Array.from({ length: shape.testMax }, (_, i) => i + 1);
      series.push({ label: schemeName(sc), style: SCHEMES.indexOf(sc), xs: ns, ys: ns.map((n) => mean(evs.map((e) => e.exactMatch[n - 1]))), scheme: sc });
    }
    const list = h('ul', { class: 'extrap-live-states' }, ...states);
    if (!series.length) return h('div', { class: 'em-live-box' }, h('p', { class: 'muted em-live-waiting' }, t('extrap.live_waiting', { every })), list);
    const plot = lineplot(series, {
      caption: t('extrap.live_caption', { every }),
      xLabel: t('extrap.n'),
      xMin: 1,
      xMax: shape.testMax,
      yMin: 0,
      yMax: 1,
      xTicks: [1, shape.trainMax, 32, shape.testMax].filter((x, i, a) => a.indexOf(x) === i && x <= shape.testMax),
      shade: { from: 1, to: shape.trainMax + 0.5, label: t('extrap.trained_range', { trainMax: shape.trainMax }) },
      sampleEvery: 1,
      // On a phone the live chart rides at the top of the screen while it trains (style.css): a lower
      // drawing, so that its box takes at most half the screen (issue 24), its type as large as before.
      height: LIVE_PHONE() ? 150 : undefined,
    });
    plot.classList.add('em-live');
    plot.dataset.tests = String(s.liveTests + s.results.length);
    plot.dataset.schemes = series.map((q) => q.scheme).join(' ');
    return h('div', { class: 'em-live-box' }, plot, list);
  }

  function drawLosses(s) {
    // Keep a table the learner opened open across redraws.
    const open = new Set([...losses.querySelectorAll('.loss-plot')].filter((f) => f.querySelector('table.data-table:not([hidden])')).map((f) => f.dataset.seed));
    losses.replaceChildren(...lossPlots(s));
    for (const f of losses.querySelectorAll('.loss-plot')) if (open.has(f.dataset.seed)) f.querySelector('.table-toggle').click();
    // The live curves, while training and after a cancel (the finished run has its own plot).
    if (s.status !== 'done' && s.status !== 'error') {
      const wasOpen = results.querySelector('.em-live table.data-table:not([hidden])');
      results.replaceChildren(liveView(s), h('p', { class: 'muted' }, t(s.status === 'cancelled' ? 'extrap.cancelled_note' : 'extrap.results_after')));
      if (wasOpen) results.querySelector('.em-live .table-toggle')?.click();
    }
    lastDraw = performance.now();
  }

  function resultsView(s) {
    const { schemes, seeds } = s.options;
    const byScheme = new Map(schemes.map((sc) => [sc, s.results.filter((r) => r.scheme === sc).sort((a, b) => seeds.indexOf(a.seed) - seeds.indexOf(b.seed))]));
    const first = s.results[0].evaluation;
    const trainMax = first.trainMax;
    const testMax = first.testMax;
    const ns = Array.from({ length: testMax }, (_, i) => i + 1);
    // The plot shows, per scheme, the mean over the seeds of the core's 0/1 exact match at each n.
    const series = schemes.map((sc) => ({ label: schemeName(sc), style: SCHEMES.indexOf(sc), xs: ns, ys: ns.map((n) => mean(byScheme.get(sc).map((r) => r.evaluation.exactMatch[n - 1]))) }));
    const plot = lineplot(series, {
      caption: seeds.length > 1 ? t('extrap.em_caption_mean', { seeds: seeds.join(', ') }) : t('extrap.em_caption', { seed: seeds[0] }),
      xLabel: t('extrap.n'),
      xMin: 1,
      xMax: testMax,
      yMin: 0,
      yMax: 1,
      xTicks: [1, trainMax, 32, testMax].filter((x, i, a) => a.indexOf(x) === i && x <= testMax),
      shade: { from: 1, to: trainMax + 0.5, label: t('extrap.trained_range', { trainMax }) },
      sampleEvery: 1,
    });
    plot.classList.add('em-plot');
    const table = h(
      'div',
      { class: 'table-scroll', tabindex: '0' },
      h(
        'table',
        { class: 'vec-table extrap-table' },
        h('caption', {}, t('extrap.table_caption', { from: trainMax + 1, to: testMax })),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('extrap.col_scheme')), h('th', { scope: 'col' }, t('extrap.col_seed')), h('th', { scope: 'col' }, t('extrap.col_solved')), h('th', { scope: 'col' }, t('extrap.col_mean', { from: trainMax + 1, to: testMax })))),
        h(
          'tbody',
          {},
          ...schemes.flatMap((sc) =>
            byScheme.get(sc).map((r) =>
              h(
                'tr',
                { 'data-scheme': sc, 'data-seed': r.seed },
                h('th', { scope: 'row' }, schemeName(sc)),
                h('td', {}, String(r.seed)),
                h('td', { class: 'solved', 'data-value': r.evaluation.solvedUpTo }, String(r.evaluation.solvedUpTo)),
                h('td', { class: 'mean-extrapolated', 'data-value': r.evaluation.meanExtrapolated }, fmt(r.evaluation.meanExtrapolated, 3)),
              ),
            ),
          ),
        ),
      ),
    );
    return h('div', {}, plot, table, summary(s, byScheme, trainMax));
  }

  // What this run measured, in words computed from its numbers (the mean over
  // seeds of the core's "largest n solved"; ties named as ties), next to the
  // learner's prediction and to what the papers report.
  function summary(s, byScheme, trainMax) {
    const { schemes, seeds, steps } = s.options;
    const rank = rankRun(s.results, schemes);
    const row = (sc) => rank.rows.find((r) => r.scheme === sc);
    const solvedText = (sc) => t('extrap.scheme_solved', { scheme: schemeName(sc), values: row(sc).values.join(t('extrap.list_sep')), mean: fmt(row(sc).mean, 1) });
    const names = (list) => list.map(schemeName).join(t('extrap.list_sep'));
    const items = [];
    const verdict = (key, list) => h('li', { class: 'verdict', 'data-furthest': rank.furthest.join(' ') }, t(key, { list }));
    if (schemes.length === 1) items.push(verdict('extrap.only_one', solvedText(schemes[0])));
    else if (rank.allTied) items.push(verdict('extrap.all_tied', rank.rows.map((r) => solvedText(r.scheme)).join(t('extrap.list_sep'))));
    else {
      items.push(verdict(rank.furthest.length > 1 ? 'extrap.this_run_furthest_tied' : 'extrap.this_run_furthest', rank.furthest.map(solvedText).join(t('extrap.list_sep'))));
      items.push(h('li', { class: 'first-fail', 'data-first': rank.first.join(' ') }, t(rank.first.length > 1 ? 'extrap.this_run_first_tied' : 'extrap.this_run_first', { list: rank.first.map(solvedText).join(t('extrap.list_sep')) })));
    }
    // The prediction, compared with the run (never marked wrong).
    if (predictionBlock) {
      if (!predicted) items.push(h('li', { class: 'prediction-vs-run', 'data-outcome': 'none' }, t('extrap.no_prediction')));
      else {
        const outcome = predictionOutcome(predicted, rank);
        const params = { predicted: schemeName(predicted), furthest: names(rank.furthest) };
        if (outcome !== 'not_trained') params.solved = solvedText(predicted);
        items.push(h('li', { class: 'prediction-vs-run', 'data-prediction': predicted, 'data-outcome': outcome }, t(`extrap.prediction_${outcome}`, params)));
      }
    }
    // What the papers report, and how this run compares (only for the schemes it trained).
    const papers = [];
    // With no difference between the schemes, there is nothing to compare with the papers.
    if (!rank.allTied && byScheme.has('alibi') && (byScheme.has('sinusoidal') || byScheme.has('rope'))) {
      const others = ['sinusoidal', 'rope'].filter((x) => byScheme.has(x));
      const beats = others.every((x) => row('alibi').mean > row(x).mean + 1e-9);
      papers.push(t(beats ? 'extrap.press_agrees' : 'extrap.press_differs', { others: names(others) }));
    } else papers.push(t('extrap.press'));
    if (!rank.allTied && byScheme.has('none') && schemes.length > 1) papers.push(t(rank.furthest.includes('none') ? 'extrap.nope_agrees' : 'extrap.nope_differs'));
    else papers.push(t('extrap.nope'));
    items.push(h('li', { class: 'papers' }, papers.join(t('extrap.sentence_sep'))));
    // Runs that did not even solve every trained length: too few steps to learn the task.
    const unlearned = schemes.filter((sc) => byScheme.get(sc).some((r) => r.evaluation.solvedUpTo < trainMax));
    const why = [t(seeds.length === 1 ? 'extrap.why_differ_one' : 'extrap.why_differ', { steps, seeds: seeds.length, trainMax })];
    if (unlearned.length) why.push(t('extrap.not_learned', { list: names(unlearned), trainMax, steps }));
    items.push(h('li', { class: 'why-differ' }, why.join(t('extrap.sentence_sep'))));
    return h(
      'section',
      { class: 'extrap-summary', 'aria-labelledby': `${id}-summary-title` },
      h('h3', { id: `${id}-summary-title` }, t('extrap.summary_title')),
      h('ul', {}, ...items),
      block.after ? h('div', { class: 'text', html: richBlock(pick(block.after)) }) : null,
    );
  }

  // Where it trained: the main thread, a Web Worker, or several (issue 25).
  const modeText = (s) => (s.mode === 'worker' && s.workers > 1 ? t('extrap.mode_workers', { n: s.workers }) : t(`extrap.mode_${s.mode ?? 'worker'}`));
  let lastStatus = null;
  let pausedBefore = false;
  function render(s) {
    const force = s !== session || s.status !== lastStatus || !!s.paused !== pausedBefore; // a new session, status or pause: draw now
    session = s;
    showPredictFirst();
    lastStatus = s.status;
    const running = ['starting', 'running', 'cancelling'].includes(s.status);
    trainButton.disabled = running;
    cancelButton.disabled = !(s.status === 'running' || s.status === 'starting');
    pauseButton.disabled = s.status !== 'running';
    pauseButton.textContent = t(s.paused ? 'extrap.resume' : 'extrap.pause');
    pauseButton.setAttribute('aria-pressed', String(!!s.paused));
    stepButton.disabled = !(s.status === 'running' && s.paused);
    stepButton.textContent = t('extrap.step_once', { n: s.chunk ?? 10 });
    el.dataset.paused = String(!!s.paused);
    el.dataset.held = String(!!s.held); // paused and stopped: no chunk in flight
    statusBox.hidden = false;
    el.dataset.status = s.status;
    el.dataset.workers = String(s.workers ?? 0); // how many Web Workers train it (0: the main thread, or a kept run)
    const p = s.progress;
    const pct = p.stepsTotal ? Math.round((100 * p.stepsDone) / p.stepsTotal) : 0;
    let text =
      s.status === 'starting'
        ? t('extrap.starting')
        : t('extrap.progress', { scheme: schemeName(p.scheme), seed: p.seed, step: p.step, steps: p.steps, run: p.run + 1, runs: p.runs, pct });
    // How long is left, from this run's own pace (pauses left out), never a promise made in advance.
    const tl = s.status === 'running' && typeof s.activeMs === 'function' ? timeLeft({ activeMs: s.activeMs(), stepsDone: p.stepsDone, stepsTotal: p.stepsTotal }) : null;
    if (tl) text += ' — ' + t('extrap.time_left', { done: s.results.length, runs: p.runs, left: Math.round(tl.left), spent: tl.spent < 10 ? fmt(tl.spent, 1) : Math.round(tl.spent) });
    progress.setAttribute('aria-valuenow', String(pct));
    progress.setAttribute('aria-valuetext', text);
    progress.dataset.stepsDone = String(p.stepsDone);
    bar.style.width = `${pct}%`;
    progressText.textContent = text;
    w.result = { status: s.status, seconds: s.seconds, mode: s.mode, workers: s.workers ?? 0, runs: s.results };
    if (s.status === 'error') {
      w.error = s.error;
      outcome.textContent = '';
      results.replaceChildren(errorBox(s.error));
      // Rejected before the first step (bad options): no progress or curves to show.
      statusBox.hidden = p.stepsDone === 0;
      if (p.stepsDone === 0) losses.replaceChildren();
      else drawLosses(s);
      ctx.changed(id, false);
      return;
    }
    w.error = null;
    if (s.status === 'cancelling') outcome.textContent = t('extrap.cancelling');
    else if (s.status === 'cancelled') outcome.textContent = t('extrap.cancelled', { step: p.step, steps: p.steps, scheme: schemeName(p.scheme), seed: p.seed, run: p.run + 1, runs: p.runs });
    else if (s.status === 'done' && s.restored) outcome.textContent = t('extrap.restored', { runs: s.runs.length, seconds: fmt(s.seconds, 1), mode: t(`extrap.mode_${s.mode}`) });
    else if (s.status === 'done') outcome.textContent = t('extrap.done', { runs: s.runs.length, seconds: fmt(s.seconds, 1), mode: modeText(s) });
    else if (s.status === 'running' && s.paused) outcome.textContent = t('extrap.paused', { step: p.step, steps: p.steps, scheme: schemeName(p.scheme), seed: p.seed, n: s.chunk ?? 10 });
    else if (s.status === 'running' && (force || pausedBefore)) outcome.textContent = t('extrap.started', { runs: s.runs.length, mode: modeText(s) });
    pausedBefore = !!s.paused;
    // Curves: redrawn at most every REDRAW_MS while training, always at the end.
    clearTimeout(drawTimer);
    // (and when a paused run has stopped: what it shows then is what it has)
    if (!running || force || s.held || performance.now() - lastDraw >= REDRAW_MS) drawLosses(s);
    else drawTimer = setTimeout(() => el.isConnected && drawLosses(session), REDRAW_MS);
    if (s.status === 'done') {
      // Kept for this tab, so leaving the exercise and coming back shows it again.
      if (!s.restored && !s.saved) s.saved = saveRun(ctx.exercise.id, s);
      results.replaceChildren(resultsView(s));
    }
    ctx.changed(id, false);
  }

  // A report during training is drawn at most every PROGRESS_MS (the last one
  // always, by a timer); anything else (a new session, status, pause or hold) at once.
  let lastRender = 0;
  let renderTimer = null;
  let heldBefore = false;
  function update(s) {
    const now = performance.now();
    const urgent = s !== session || s.status !== lastStatus || !!s.paused !== pausedBefore || !!s.held !== heldBefore || s.status !== 'running';
    clearTimeout(renderTimer);
    if (urgent || now - lastRender >= PROGRESS_MS) {
      heldBefore = !!s.held;
      lastRender = now;
      render(s);
    } else renderTimer = setTimeout(() => el.isConnected && update(s), PROGRESS_MS - (now - lastRender));
  }

  function attach(s) {
    s.subscribe(update, () => el.isConnected);
    update(s);
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const o = commit();
    if (!o) return;
    try {
      const s = startTraining({ ...o, ...(workersFromUrl.count ? { workers: workersFromUrl.count } : {}), ...(kernelsFromUrl.kernels ? { kernels: kernelsFromUrl.kernels } : {}) }, { core: ctx.core });
      closePrediction();
      attach(s);
      revealChart();
    } catch (err) {
      msg.textContent = t('extrap.busy');
    }
  });
  cancelButton.addEventListener('click', () => session?.cancel());
  pauseButton.addEventListener('click', () => (session?.paused ? session.resume() : session?.pause()));
  stepButton.addEventListener('click', () => session?.step());

  // A session started before this render (a language switch re-renders the page) is shown again;
  // else the tab's last finished run (for this scheme set, or the last one), checked as it is read.
  const existing = activeSession();
  if (existing) {
    closePrediction();
    attach(existing);
  } else {
    const kept = loadRun(ctx.exercise.id, w.state.schemes);
    if (kept) {
      setBoxes(kept.options.schemes);
      seedsInput.value = kept.options.seeds.join(', ');
      stepsInput.value = String(kept.options.steps);
      w.state = { ...kept.options };
      const runs = kept.options.schemes.flatMap((scheme) => kept.options.seeds.map((seed) => ({ scheme, seed })));
      const total = runs.length * kept.options.steps;
      const last = runs.at(-1);
      closePrediction();
      render({ ...kept, status: 'done', restored: true, runs, error: null, progress: { run: runs.length - 1, runs: runs.length, scheme: last.scheme, seed: last.seed, step: kept.options.steps, steps: kept.options.steps, stepsDone: total, stepsTotal: total }, cancel() {} });
    }
  }

  w.update = async () => {};
  return w;
}
