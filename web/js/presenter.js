// Presenter mode (index.html?present=1): the seed's 60-minute lesson as
// full-screen steps for a projector. Each exercise file with a `presenter:`
// block is one step (in presenter.step order): one large live widget of that
// file, driven by the same core, with the instructor's talking points and a
// timer against the step's planned minutes; the file whose presenter block
// names `questions` is the closing discussion slide (answers on request,
// never graded). Nothing here checks, keeps or reports an answer: the
// grading session, the learner id and progress.js are never opened, so
// localStorage and sessionStorage stay as they were.
import { h, errorBox } from './dom.js';
import { t, pick } from './i18n.js';
import { tex, richInline } from './rich.js';
import { WIDGETS, labOf, exerciseData, controls, updateWidgets } from './runner.js';
import { createPending } from './ready.js';

// The URL keys of the lab's settings: cleared on every step, so that each
// step starts from its own exercise's defaults.
const LAB_KEYS = ['s', 'pe', 'mask', 'd', 'seed', 'heads', 'order', 'pos', 'm', 'n', 'k', 'combine'];

export function presenterSteps(exercises) {
  return exercises.filter((ex) => ex.presenter).sort((a, b) => a.presenter.step - b.presenter.step);
}

const mmss = (ms) => {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

// A context for the lab's widgets with no grading behind it: every answer
// gate is open (the instructor shows the results when the class is ready),
// and checking an answer is refused.
// pending (ready.js): the step's core calls, counted, so that the deck says
// data-ready only once every one of them has landed.
function presenterContext(exercise, app, widgets, pending) {
  const ctx = {
    core: pending.core(app.core),
    exercise,
    data: exerciseData(exercise),
    variant: {},
    restored: () => undefined,
    learnerId: () => undefined,
    optionOrder: () => undefined,
    attemptsMade: () => 0,
    firstAnswer: () => undefined,
    solved: () => true,
    isSolved: () => true,
    attempts: () => [],
    draft: () => {},
    graded: false,
    // A widget may draw a plainer form for the projector (exercise 4's lines leave out their encoding strip).
    presenter: true,
    notSaved: null,
    check: async () => {
      throw new Error('presenter mode checks no answers');
    },
    questionNote: () => null,
    widgets,
    lab: () => ctx.current,
    current: labOf(exercise, app.state),
    getUrl: (key) => app.state[key],
    setUrl: (key, value) => app.setState({ [key]: value }),
    questionNumber: () => 0,
    widgetTouched: () => false,
    onProgress: () => {},
    changed: async (source) => {
      for (const [id, w] of widgets) if (id !== source && exercise.blocks.find((b) => b.id === id)?.tokens === source) await w.update();
    },
  };
  return ctx;
}

export function renderPresenter(root, app) {
  const steps = presenterSteps(app.exercises);
  const planned = steps.map((ex) => ex.presenter.minutes * 60_000);
  const total = planned.reduce((a, b) => a + b, 0);
  const spent = steps.map(() => 0);
  let index = 0;
  let running = true;
  let since = performance.now();
  let fit = () => {};
  let mine = 0;

  document.documentElement.classList.add('presenting');
  const indicator = h('p', { class: 'present-indicator', id: 'present-indicator', 'aria-live': 'polite' });
  const dots = h('ol', { class: 'present-dots' });
  const stepTime = h('span', { class: 'present-time-step' });
  const totalTime = h('span', { class: 'present-time-total' });
  const timer = h('div', { class: 'present-timer', role: 'timer', 'aria-label': t('present.timer') }, stepTime, totalTime);
  const pause = h('button', { type: 'button', class: 'secondary present-pause', 'aria-pressed': 'false' }, t('present.pause'));
  const full = h('button', { type: 'button', class: 'secondary present-full' }, t('present.fullscreen'));
  const exit = h('a', { class: 'present-exit', href: `${location.pathname}${app.linkTo('')}` }, t('present.exit'));
  const title = h('h1', { id: 'page-title', tabindex: '-1', class: 'present-title' });
  const visualBox = h('div', { class: 'present-visual-box' });
  const points = h('aside', { class: 'present-points', 'aria-labelledby': 'present-points-title' });
  const body = h('div', { class: 'present-body' }, visualBox, points);
  const slide = h('section', { class: 'present-slide', 'aria-labelledby': 'page-title' }, title, body);
  const prev = h('button', { type: 'button', class: 'secondary present-prev' }, `← ${t('present.prev')}`);
  const next = h('button', { type: 'button', class: 'present-next' }, `${t('present.next')} →`);
  const keys = h('p', { class: 'present-keys' }, t('present.keys'));
  const deck = h(
    'div',
    { class: 'present', 'data-steps': String(steps.length) },
    h('header', { class: 'present-bar' }, indicator, h('nav', { 'aria-label': t('present.steps') }, dots), timer, h('div', { class: 'present-tools' }, pause, full, exit)),
    // Shown on a narrow screen only (the style sheet): what this mode is for.
    h('p', { class: 'present-phone-note' }, t('present.phone_note')),
    slide,
    h('nav', { class: 'present-nav', 'aria-label': t('present.nav') }, prev, keys, next),
  );

  // The timer: time on the current step (against its plan) and in all, pausable.
  const elapsed = () => spent[index] + (running ? performance.now() - since : 0);
  function tick() {
    if (!deck.isConnected) return clearInterval(ticker);
    const now = elapsed();
    const all = spent.reduce((a, b, i) => a + (i === index ? now : b), 0);
    stepTime.textContent = t('present.time_step', { elapsed: mmss(now), planned: mmss(planned[index]) });
    totalTime.textContent = t('present.time_total', { elapsed: mmss(all), planned: mmss(total) });
    stepTime.classList.toggle('over', now > planned[index]);
    timer.dataset.stepMs = String(Math.round(now));
  }
  const ticker = setInterval(tick, 250);
  function setRunning(on) {
    spent[index] = elapsed();
    since = performance.now();
    running = on;
    pause.setAttribute('aria-pressed', String(!on));
    pause.textContent = t(on ? 'present.pause' : 'present.resume');
    timer.classList.toggle('paused', !on);
    tick();
  }
  pause.addEventListener('click', () => setRunning(!running));

  function toggleFullscreen() {
    if (document.fullscreenElement) document.exitFullscreen?.().catch(() => {});
    else document.documentElement.requestFullscreen?.().catch(() => {});
  }
  full.addEventListener('click', toggleFullscreen);

  // Fit the step's visual into the space left by the title and the points:
  // laid out at one of a few widths, then scaled (never past 2×) to fit its
  // box. Nothing inside may scroll sideways (a heatmap or table cut off at
  // its box's edge): uncut beats cut. Then (issue 24) the widest on screen
  // among the layouts scaled to at least MIN_SCALE (its labels stay legible
  // from the back of a room), so the widget takes as much of the slide's
  // width as it can; with none that large, the largest scale. On a short
  // screen (1280×720) the tall widgets drop their titles, readouts and side
  // notes on the slide (style.css, "Presenter on a short screen") so that they
  // fit at the box's width.
  const WIDTHS = [736, 960, 1200, 1440];
  const MIN_SCALE = 0.8;
  const clipped = (inner) => [...inner.querySelectorAll('.math-block, .table-scroll, .hm-scroll')].some((e) => e.offsetParent && e.scrollWidth > e.clientWidth + 1);
  function fitter(inner) {
    return () => {
      if (!inner.isConnected || visualBox.parentElement.classList.contains('wide')) return;
      inner.style.transform = '';
      const bw = visualBox.clientWidth;
      const bh = visualBox.clientHeight;
      const options = [];
      // …and at the box's own width (drawn at scale 1: on a short screen the
      // widest layout that keeps its labels at their own size).
      const widths = [...new Set([...WIDTHS, Math.floor(bw)])].filter((x) => x >= WIDTHS[0]).sort((a, b) => a - b);
      for (const width of widths) {
        inner.style.width = `${width}px`;
        const w = inner.offsetWidth;
        const ht = inner.offsetHeight;
        if (!w || !ht) return;
        const scale = Math.min(2, bw / w, bh / ht);
        options.push({ width, w, scale, shown: w * scale, cut: clipped(inner) });
      }
      const better = (a, b) => {
        if (a.cut !== b.cut) return !a.cut;
        const al = a.scale >= MIN_SCALE;
        const bl = b.scale >= MIN_SCALE;
        if (al !== bl) return al;
        if (a.cut) return a.width > b.width; // among cut ones, the wider
        if (al && Math.abs(a.shown - b.shown) > 1) return a.shown > b.shown;
        // Neither legible at MIN_SCALE: the larger scale; at the same scale, the wider.
        if (Math.abs(a.scale - b.scale) > 0.01) return a.scale > b.scale;
        return a.shown > b.shown + 1;
      };
      const best = options.reduce((a, b) => (better(b, a) ? b : a));
      inner.style.width = `${best.width}px`;
      const left = Math.max(0, (bw - best.w * best.scale) / 2);
      inner.style.transform = `translate(${left}px, 0) scale(${best.scale})`;
      inner.dataset.scale = best.scale.toFixed(3);
    };
  }
  const resize = new ResizeObserver(() => fit());
  resize.observe(visualBox);

  function questionsSlide(exercise) {
    const ids = exercise.presenter.questions;
    const shown = { on: false };
    const list = h(
      'ol',
      { class: 'present-questions' },
      ...ids.map((id) => {
        const q = exercise.blocks.find((b) => b.id === id);
        const answers = (q.answer ?? []).map((a) => q.options.find((o) => o.id === a)).filter(Boolean);
        return h(
          'li',
          {},
          h('p', { class: 'present-q', html: richInline(pick(q.prompt)) }),
          h('p', { class: 'present-a', hidden: true }, h('span', { class: 'present-a-label' }, `${t('present.answer')} `), ...answers.flatMap((o, k) => [k ? ' / ' : null, h('span', { html: richInline(pick(o.label)) })])),
        );
      }),
    );
    const reveal = h('button', { type: 'button', class: 'present-reveal', 'aria-expanded': 'false' }, t('present.show_answers'));
    const toggle = () => {
      shown.on = !shown.on;
      for (const a of list.querySelectorAll('.present-a')) a.hidden = !shown.on;
      reveal.setAttribute('aria-expanded', String(shown.on));
      reveal.textContent = t(shown.on ? 'present.hide_answers' : 'present.show_answers');
      fit();
    };
    reveal.addEventListener('click', toggle);
    return { el: h('div', { class: 'present-discussion' }, list, h('p', {}, reveal)), toggle };
  }

  let answers = null;
  async function show(i, { focus = true } = {}) {
    const ticket = ++mine;
    spent[index] = elapsed();
    since = performance.now();
    index = Math.max(0, Math.min(steps.length - 1, i));
    const ex = steps[index];
    const p = ex.presenter;
    deck.dataset.ready = 'false';
    deck.dataset.step = String(index + 1);
    deck.dataset.exercise = ex.id;
    indicator.textContent = t('present.step_of', { n: index + 1, total: steps.length });
    dots.replaceChildren(
      ...steps.map((s, k) =>
        h('li', {}, h('button', { type: 'button', class: 'present-dot', 'aria-current': k === index ? 'step' : undefined, 'aria-label': t('present.go_to', { n: k + 1, title: pick(s.title) }), onclick: () => show(k) }, String(k + 1))),
      ),
    );
    prev.disabled = index === 0;
    next.disabled = index === steps.length - 1;
    title.textContent = p.questions ? pick(ex.title) : `${index + 1}. ${pick(ex.title)}`;
    points.replaceChildren(h('h2', { id: 'present-points-title', class: 'present-points-title' }, t('present.points')), h('ul', {}, ...p.talking_points.map((x) => h('li', { html: richInline(pick(x)) }))));
    tick();

    // Every step starts from its own exercise's lab settings.
    const patch = {};
    for (const k of LAB_KEYS) patch[k] = undefined;
    app.setState(patch);
    const inner = h('div', { class: 'present-visual' });
    visualBox.replaceChildren(inner);
    body.classList.toggle('wide', !!p.questions);
    answers = null;
    fit = fitter(inner);
    if (p.questions) {
      const d = questionsSlide(ex);
      answers = d.toggle;
      inner.append(d.el);
    } else {
      const widgets = new Map();
      const pending = createPending();
      const ctx = presenterContext(ex, app, widgets, pending);
      // The formula and the controls share a row: the widget gets the height.
      const head = h('div', { class: 'present-head' }, ...(p.formula ?? []).map((f) => h('div', { class: 'math-block', html: tex(f, true) })));
      inner.append(head);
      const update = async () => {
        ctx.current = labOf(ex, app.state);
        try {
          ctx.current.tokens = await ctx.core.call('tokenize', ctx.current.sentence);
        } catch {
          // the widgets show the core's error
        }
        await updateWidgets(widgets, ex.blocks);
        fit();
      };
      if (p.controls?.length) {
        const ctl = controls({ ...ex, lab: { ...ex.lab, controls: p.controls } }, app, ctx.current, update);
        if (ctl) head.append(ctl);
      }
      const visual = ex.blocks.find((b) => b.id === p.visual);
      const blocks = visual.tokens ? [ex.blocks.find((b) => b.id === visual.tokens), visual] : [visual];
      for (const block of blocks) {
        const el = h('section', { class: `widget w-${block.type}`, 'data-widget': block.id, 'aria-label': t(`widget.${block.type}`) });
        el.append(h('h2', { class: 'widget-title' }, t(`widget.${block.type}`)));
        inner.append(el);
        try {
          widgets.set(block.id, WIDGETS[block.type](el, block, ctx));
        } catch (e) {
          el.append(errorBox(e));
        }
      }
      await update();
      // …and what the widgets started on their own (a second view, a strip).
      await pending.idle();
      if (ticket !== mine) return;
    }
    fit();
    // The visual's own size changes (a details opened, a result listed): fit again.
    new ResizeObserver(() => fit()).observe(inner);
    deck.dataset.ready = 'true';
    if (focus) title.focus();
  }
  prev.addEventListener('click', () => show(index - 1));
  next.addEventListener('click', () => show(index + 1));

  // Keys: ← → PageUp PageDown Space (Shift+Space back) Home End, F full
  // screen, Esc out of it, P pause, A answers. Keys typed into a control or
  // pressed on a widget of the slide (its chips use ← → and Space) are theirs.
  const onKey = (e) => {
    if (!deck.isConnected) return document.removeEventListener('keydown', onKey);
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    // The path as dispatched: a widget may have redrawn (detached) the element by now.
    const path = e.composedPath().filter((n) => n instanceof Element);
    if (path.some((n) => n.matches('.present-visual, input, select, textarea, [contenteditable]'))) return;
    const onButton = path.some((n) => n.matches('button, summary')); // Space activates these; on a link it does nothing of its own
    const k = e.key;
    let done = true;
    if (k === 'ArrowRight' || k === 'PageDown' || (k === ' ' && !onButton && !e.shiftKey)) show(index + 1);
    else if (k === 'ArrowLeft' || k === 'PageUp' || (k === ' ' && !onButton && e.shiftKey)) show(index - 1);
    else if (k === 'Home') show(0);
    else if (k === 'End') show(steps.length - 1);
    else if (k === 'f' || k === 'F') toggleFullscreen();
    else if (k === 'Escape' && document.fullscreenElement) document.exitFullscreen().catch(() => {});
    else if (k === 'p' || k === 'P') setRunning(!running);
    else if ((k === 'a' || k === 'A') && answers) answers();
    else done = false;
    if (done) e.preventDefault();
  };
  document.addEventListener('keydown', onKey);

  root.replaceChildren(deck);
  return show(0, { focus: true });
}
