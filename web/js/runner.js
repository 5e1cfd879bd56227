// The exercise runner: renders one exercise file's blocks (text, math,
// tables, widgets, questions) and wires the lab's controls, widgets and
// tasks together. All numbers come from the core through ctx.core.
import { h } from './dom.js';
import { t, pick, lang } from './i18n.js';
import { richBlock, richInline, tex } from './rich.js';
import * as questions from './questions.js';
import * as progress from './progress.js';
import { variantDependent } from './grading/session.js';
import { gatedWidget } from './reveal-gate.js';
import { mount as tokens } from './widgets/tokens.js';
import { mount as outputs } from './widgets/outputs.js';
import { mount as attention } from './widgets/attention.js';
import { mount as attentionLines } from './widgets/attention-lines.js';
import { mount as vectors } from './widgets/vectors.js';
import { mount as handcalc } from './widgets/handcalc.js';
import { mount as peTable } from './widgets/pe-table.js';
import { mount as clocks } from './widgets/clocks.js';
import { mount as peRows } from './widgets/pe-rows.js';
import { mount as combine } from './widgets/combine.js';
import { mount as superposition } from './widgets/superposition.js';
import { mount as swaps } from './widgets/swaps.js';
import { mount as wall } from './widgets/wall.js';
import { mount as rope } from './widgets/rope.js';
import { mount as alibi } from './widgets/alibi.js';
import { mount as alibiLocality } from './widgets/alibi-locality.js';
import { mount as compare } from './widgets/compare.js';
import { mount as extrapolate } from './widgets/extrapolate.js';
import { mount as ropeExtend } from './widgets/rope-extend.js';
import { mount as ropeExtendRun } from './widgets/rope-extend-run.js';
import { createHighlight, createPositionHighlight } from './widgets/highlight.js';
import { createPending } from './ready.js';
import { drawNear, holdObserving } from './lazy-draw.js';

export const WIDGETS = { tokens, outputs, attention, 'attention-lines': attentionLines, vectors, handcalc, 'pe-table': peTable, clocks, 'pe-rows': peRows, combine, superposition, swaps, wall, rope, alibi, 'alibi-locality': alibiLocality, compare, extrapolate, 'rope-extend': ropeExtend, 'rope-extend-run': ropeExtendRun };
const SCHEMES = ['none', 'sinusoidal', 'learned', 'rope', 'alibi'];

// The lab's settings: the exercise's defaults, overridden by the URL.
export function labOf(exercise, state) {
  const d = exercise.lab ?? {};
  return {
    sentence: state.s ?? (d.sentence ? pick(d.sentence) : t('lab.default_sentence')),
    pe: state.pe ?? d.pe ?? 'none',
    causal: state.mask ?? d.causal ?? false,
    d: state.d ?? d.d ?? 8,
    seed: state.seed ?? d.seed ?? 0,
    heads: state.heads ?? d.heads ?? 1,
    weights: d.weights ?? 'random',
  };
}

export function controls(exercise, app, lab, onChange) {
  const hidden = new Set(app.state.hide ?? []);
  const list = (exercise.lab?.controls ?? []).filter((c) => !hidden.has(c));
  if (!list.length) return null;
  const msg = h('p', { class: 'control-msg', role: 'alert' });
  const items = [];
  for (const c of list) {
    const id = `ctl-${c}`;
    if (c === 'sentence') {
      const input = h('input', { id, type: 'text', value: lab.sentence, class: 'sentence-input', maxlength: 20000 });
      const form = h('form', { class: 'control sentence-control' }, h('label', { for: id }, t('ctl.sentence')), h('div', { class: 'inline' }, input, h('button', { type: 'submit' }, h('span', { class: 'copy-long' }, t('ctl.apply')), h('span', { class: 'copy-short' }, t('ctl.apply_short')))));
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        app.setState({ s: input.value, order: undefined });
        onChange();
      });
      items.push(form);
    } else if (c === 'pe') {
      const schemes = exercise.lab?.schemes ?? SCHEMES;
      const select = h('select', { id }, ...schemes.map((s) => h('option', { value: s, selected: s === lab.pe }, t(`scheme.${s}`))));
      select.addEventListener('change', () => {
        app.setState({ pe: select.value });
        onChange();
      });
      items.push(h('div', { class: 'control' }, h('label', { for: id }, t('ctl.pe')), select));
    } else if (c === 'mask') {
      const box = h('input', { id, type: 'checkbox', checked: lab.causal });
      box.addEventListener('change', () => {
        app.setState({ mask: box.checked });
        onChange();
      });
      items.push(h('div', { class: 'control check' }, box, h('label', { for: id }, t('ctl.mask'))));
    } else {
      const key = c === 'd' ? 'd' : c;
      const input = h('input', { id, type: 'number', value: lab[key], step: 1, min: c === 'seed' ? 0 : 1, class: 'num' });
      input.addEventListener('change', () => {
        const v = Number(String(input.value).normalize('NFKC'));
        if (!Number.isInteger(v)) {
          msg.textContent = t('ctl.integer', { name: t(`ctl.${c}`) });
          return;
        }
        msg.textContent = '';
        app.setState({ [key]: v });
        onChange();
      });
      items.push(h('div', { class: 'control' }, h('label', { for: id }, t(`ctl.${c}`)), input));
    }
  }
  return h('section', { class: 'controls', 'aria-label': t('ctl.aria') }, h('h2', { class: 'sr-only' }, t('ctl.aria')), ...items, msg);
}

// The exercise's main visual: its first widget that is a picture rather than
// the token chips or the output tables (those are controls and read-outs
// beside it). -1 when there is none (a quiz, the code exercise), or when a
// question comes first: a prediction asked before the picture keeps the
// file's order, so that the picture does not give it away.
// Not a picture: the token chips, the output tables, and a worksheet's input vectors (hand-calc:
// its questions are the exercise, so it keeps one column).
const NOT_MAIN = new Set(['tokens', 'outputs', 'vectors']);
// Brings every widget up to date: each asks the core for what it needs at
// once (prepare), then all draw in one pass, in place. The token chips first:
// the widgets linked to them read their tokens and order.
async function redraw(list) {
  const draws = await Promise.all(list.map((w) => (w.prepare ? w.prepare() : w.update().then(() => null))));
  for (const d of draws) d?.();
}
export async function updateWidgets(widgets, blocks) {
  const isChips = ([id]) => blocks.find((b) => b.id === id)?.type === 'tokens';
  await redraw([...widgets].filter(isChips).map(([, w]) => w));
  await redraw([...widgets].filter((e) => !isChips(e)).map(([, w]) => w));
}

export function mainVisualIndex(blocks) {
  const at = blocks.findIndex((b) => WIDGETS[b.type] && !NOT_MAIN.has(b.type));
  if (at < 0) return -1;
  // A widget whose first picture does not answer the question before it (exercise 7's
  // training: empty axes until a run; exercise 9's angle map: it starts with Part 2's model at
  // base 100, no variant's map) may stand beside that question (beside_prediction): questions may come before it.
  const ok = blocks[at].beside_prediction === true ? () => true : (b) => !questions[b.type];
  if (!blocks.slice(0, at).every(ok)) return -1;
  return at;
}

// A picture beside its prediction (beside_prediction: exercises 7 and 9, issue 24). While the stage is
// one column (a phone, a narrow window), the picture comes first, since its first state answers
// nothing (exercise 7's empty chart, exercise 9's map starting with Part 2's model, no variant's), and the side column's text
// and question after it: in the document's order too, so Tab goes the way the eye does. A widget that
// keeps a place for its prediction ([data-prediction-slot="<question id>"]: exercise 7's training,
// between its chart and its Train button) gets the question there, above the controls it unlocks.
// When the stage is two columns, all goes back: the question beside the picture in the side column.
// Only moved when the width crosses the line.
export const ONE_COLUMN = '(max-width: 71.99rem)';
function placePrediction(stage, block, main) {
  if (block.beside_prediction !== true || typeof matchMedia !== 'function') return;
  const moves = [];
  for (const slot of stage.visual.querySelectorAll('[data-prediction-slot]')) {
    const q = [...stage.side.children].find((e) => e.matches('.question') && e.dataset.question === slot.dataset.predictionSlot);
    if (!q) continue;
    const home = document.createComment(`${q.dataset.question}: beside the picture when wide`);
    q.before(home);
    moves.push({ q, slot, home });
  }
  const stageEl = stage.side.parentElement;
  const narrow = matchMedia(ONE_COLUMN);
  const place = () => {
    // A page replaced by another exercise's: stop listening.
    if (main.dataset.ready && !main.isConnected) return narrow.removeEventListener('change', place);
    const focused = document.activeElement;
    for (const { q, slot, home } of moves) {
      if (narrow.matches) slot.append(q);
      else home.after(q);
    }
    if (narrow.matches) stageEl.prepend(stage.visual);
    else stage.side.after(stage.visual);
    stageEl.classList.toggle('visual-first', narrow.matches);
    stageEl.classList.toggle('prediction-in-visual', narrow.matches && moves.length > 0);
    // Moving an element drops its focus: given back (a window resized while a choice had it).
    if (focused && focused !== document.activeElement && stageEl.contains(focused)) focused.focus({ preventScroll: true });
  };
  place();
  narrow.addEventListener('change', place);
}

// A widget under the picture (under_picture: exercise 9's run, whose curves are linked with the angle
// map): on a wide screen at the foot of the picture's column, which then no longer sticks (a sticky
// column taller than the screen would hide its foot until the stage ends); in one column (a phone) back
// in its own place in the file's order, after the text that introduces it. Only moved when the width
// crosses the line; focus is kept.
function placeUnderPicture(stage, main, els) {
  if (!els.length || typeof matchMedia !== 'function') return;
  const moves = els.map((el) => {
    const home = document.createComment(`${el.dataset.widget}: under the picture when wide`);
    el.before(home);
    return { el, home };
  });
  const narrow = matchMedia(ONE_COLUMN);
  const place = () => {
    if (main.dataset.ready && !main.isConnected) return narrow.removeEventListener('change', place);
    const focused = document.activeElement;
    for (const { el, home } of moves) {
      if (narrow.matches) home.after(el);
      else stage.visual.append(el);
    }
    stage.visual.classList.toggle('with-under', !narrow.matches);
    if (focused && focused !== document.activeElement && main.contains(focused)) focused.focus({ preventScroll: true });
  };
  place();
  narrow.addEventListener('change', place);
}

// What went wrong with saved progress, said in place on the exercise page:
// damaged progress dropped, the grading store's warnings (damaged records set
// aside, storage full or off), kept attempts the core cannot grade here.
function storageNotes(app, graded) {
  const items = [];
  for (const w of progress.warnings()) items.push(t(`storage.${w.code}`, w.params));
  for (const w of app.store?.warnings ?? []) items.push(w.message?.[lang()] ?? w.message?.ja ?? w.code);
  if (graded?.unusable) items.push(t('storage.attempts_unusable', { count: graded.unusable }));
  if (!items.length) return null;
  return h('aside', { class: 'note storage-note', role: 'status' }, h('p', {}, h('strong', {}, t('storage.title'))), h('ul', {}, ...items.map((x) => h('li', {}, x))));
}

// The exercise as its file says it (the loader adds `file`): what the core hashes and grades.
export function exerciseData(exercise) {
  const { file, ...data } = exercise;
  return data;
}

// current(): false once another render has started (the page then leaves
// this one alone: it neither replaces the newer page nor says it is ready).
export async function renderExercise(root, exercise, app, { current = () => true } = {}) {
  progress.visit(exercise.id);
  holdObserving(); // lazy blocks wait for this render's drawNear (its final layout)
  // Everything this render starts is counted (ready.js): the page says
  // data-ready only when the last of it has landed, and data-busy while
  // later work (a control changed, an answer checked) is in flight.
  let main = null;
  const pending = createPending({ onBusy: (on) => main?.toggleAttribute('data-busy', on) });
  const core = pending.core(app.core);
  // With a learner id, the core's seeded variant and the kept attempts.
  let graded = null;
  // Without a learner id: practice, kept under a practice key on the variant
  // of the empty id (the same for everyone), carried over when an id is set.
  if (app.grading) graded = await app.grading.open(exerciseData(exercise));
  const practice = !!graded?.practice;
  // The options' order is the core's too, from the same seed (the empty id's without a learner).
  const hasChoice = exercise.blocks.some((b) => b.type === 'choice' || b.type === 'code');
  const fallback = !graded && (exercise.variants || hasChoice) ? await app.core.call('variant', { exercise: exerciseData(exercise), learner: '' }) : null;
  const variant = graded?.variant ?? fallback?.variant ?? {};
  const optionOrders = graded?.optionOrders ?? fallback?.optionOrders ?? {};
  const index = app.exercises.indexOf(exercise);
  const widgets = new Map();
  const touched = new Set();
  const tasks = [];
  const qIds = exercise.blocks.filter((b) => ['numeric', 'choice', 'task', 'code'].includes(b.type)).map((b) => b.id);
  // Lab values a widget sets (not in the URL): runSeeds, the seeds of the
  // run the run widget shows, kept with each attempt for the core to re-run.
  const widgetLab = {};
  let lab = labOf(exercise, app.state);

  const ctx = {
    core,
    // track(promise): work the page is not ready without (the code editor, a task's check).
    track: pending.track,
    exercise,
    data: exerciseData(exercise),
    variant,
    // What the learner left: the last typed (draft) or checked answer of a question.
    restored: (questionId) => {
      if (!graded) return undefined;
      if (graded.drafts?.[questionId] !== undefined) return graded.drafts[questionId];
      return graded.attempts?.filter((a) => a.question === questionId).at(-1)?.answer;
    },
    learnerId: () => (graded ? app.learner?.id : undefined),
    // The option ids in the order this learner sees them (the core's option_order).
    optionOrder: (questionId) => optionOrders[questionId],
    // Counted attempts so far (the core's grade with a learner id, the kept answers without).
    attemptsMade: (questionId) => (graded ? (graded.grade?.questions?.find((q) => q.id === questionId)?.attempts ?? 0) : progress.answers(exercise.id, questionId).length),
    // The first answer checked (a prediction is its first answer).
    firstAnswer: (questionId) => (graded ? graded.grade?.questions?.find((q) => q.id === questionId)?.response : progress.answers(exercise.id, questionId)[0]),
    solved: (questionId) => !!graded?.grade?.questions?.find((q) => q.id === questionId)?.solved,
    // Solved when the page was drawn (the kept attempts, or the path's mark); the attempts kept then.
    isSolved: (questionId) => ctx.solved(questionId) || progress.isCorrect(exercise.id, questionId),
    attempts: (questionId) => graded?.attempts?.filter((a) => a.question === questionId) ?? [],
    draft: (questionId, answer) => graded && app.grading.draft(ctx.data, questionId, answer),
    // check(questionId, answer): the core's verdict, kept by the grading session when there is a learner.
    // Whether answers are kept per learner (the grading store) rather than by progress.js only.
    graded: !!graded,
    // After check(): null, or why the attempt was not saved ('full', 'unavailable').
    notSaved: null,
    check: async (questionId, answer) => {
      const options = { lab: { ...lab }, lang: lang() };
      if (graded) {
        const r = await pending.track(app.grading.check(ctx.data, questionId, answer, options));
        ctx.notSaved = r.notSaved ?? null;
        return r.result;
      }
      return core.call('checkAttempt', { exercise: ctx.data, question: questionId, answer, variant, ...options });
    },
    // A line shown in place on a question: practice answers to a question
    // whose values depend on the learner's variant are not carried over.
    questionNote: (questionId) => {
      if (!variantDependent(exercise, questionId)) return null;
      if (practice) return t('practice.redo_before');
      if (app.redo?.has(`${exercise.id}\n${questionId}`)) return t('practice.redo_after');
      return null;
    },
    widgets,
    lab: () => lab,
    // setLab(key, value): a widget's lab value (undefined removes it); the questions are refreshed.
    setLab: (key, value) => {
      if (value === undefined) {
        delete widgetLab[key];
        delete lab[key];
      } else {
        widgetLab[key] = value;
        lab[key] = value;
      }
      refreshTasks();
    },
    getUrl: (key) => app.state[key],
    setUrl: (key, value) => app.setState({ [key]: value }),
    questionNumber: (id) => qIds.indexOf(id) + 1,
    widgetTouched: (id) => touched.has(id),
    onProgress: () => app.onProgress(),
    // user: the student did something (tasks may then show their hint).
    changed: async (source, user = false) => {
      if (user) touched.add(source);
      await redraw([...widgets].filter(([id]) => id !== source && exercise.blocks.find((b) => b.id === id)?.tokens === source).map(([, w]) => w));
      refreshTasks();
    },
  };
  // Widgets redraw in two steps: all of them ask the core at once (prepare()
  // resolves with the widget's redraw once its answers are in, or with null
  // when nothing it shows has changed), then every redraw runs in one go, so
  // the page is laid out and painted once rather than once per widget. A
  // widget without prepare() just updates.
  const refreshTasks = () => pending.track(Promise.all(tasks.map((q) => q.refresh())));

  main = h('article', { class: 'exercise', 'data-exercise': exercise.id });
  // One highlighted token for the whole page (linked highlighting across widgets).
  ctx.highlight = createHighlight(main);
  // …and one highlighted position (the encoding table, the clocks, the lines' places).
  ctx.positionHighlight = createPositionHighlight(main);
  main.append(
    // Embedded in a course page (embed=1), the lab's numbering ("3 / 12") would
    // not be the course's: an iframe shows one exercise of the author's choice.
    h('div', { class: 'ex-head' }, app.state?.embed ? null : h('p', { class: 'crumb' }, t('ex.number', { n: index + 1, total: app.exercises.length })), h('h1', { tabindex: '-1', id: 'page-title' }, pick(exercise.title))),
    h('p', { class: 'summary' }, pick(exercise.summary)),
  );
  // Where answers are kept: before the questions (after the stage, when there is one).
  const practiceNote = practice ? h('p', { class: 'notice practice-note', role: 'note' }, t('practice.note')) : null;
  if (practiceNote && mainVisualIndex(exercise.blocks) < 0) main.append(practiceNote);
  const updateAll = async () => {
    const current = (lab = { ...labOf(exercise, app.state), ...widgetLab });
    // The tokens the page splits the sentence into (the browser's ICU, through the
    // core): kept with every attempt, so that `poslab grade` re-runs these very tokens.
    // Asked alongside the widgets' calls (no widget reads them), not before.
    const tokenized = core.call('tokenize', current.sentence).then(
      (tokens) => (current.tokens = tokens),
      // The widgets show the core's error for this sentence.
      () => {},
    );
    await updateWidgets(widgets, exercise.blocks);
    await tokenized;
    await refreshTasks();
  };
  const notes = storageNotes(app, graded);
  if (notes) main.append(notes);
  const ctl = controls(exercise, app, lab, updateAll);
  // The stage (issue 12): the exercise's main visual large on the first
  // screen, the controls and the text before it beside it at wide widths
  // (above it on a phone); the rest of the exercise below.
  const mainAt = mainVisualIndex(exercise.blocks);
  const stage = mainAt >= 0 ? { side: h('div', { class: 'lab-stage-side' }), visual: h('div', { class: 'lab-stage-visual' }), after: h('div', { class: 'lab-stage-after' }) } : null;
  // Up to three blocks right after the visual (its questions, a line of text)
  // sit under the side column, beside the visual they are about (the
  // visual's `beside: n` says n; the hand calculation keeps its steps' ten
  // beside its drawing, which stays in view while they are answered).
  // A widget right after the visual with next_to_previous joins it in the
  // stage, the two side by side on a wide screen (exercise 5: the lines and
  // the attention matrix, where the mask's zeros show), one under the other
  // on a phone; the blocks beside them are counted after it.
  const pairAt = stage && exercise.blocks[mainAt + 1]?.next_to_previous && WIDGETS[exercise.blocks[mainAt + 1].type] ? mainAt + 1 : -1;
  const visualEnd = pairAt >= 0 ? pairAt : mainAt;
  let afterEnd = visualEnd + 1;
  const besideMax = stage ? (exercise.blocks[mainAt].beside ?? 3) : 0;
  while (stage && afterEnd < exercise.blocks.length && afterEnd <= visualEnd + besideMax && !WIDGETS[exercise.blocks[afterEnd].type]) afterEnd++;
  if (pairAt >= 0) stage.visual.classList.add('visual-pair');
  if (stage) {
    // A question in the side column (a prediction) stays above the picture on a phone too (style.css).
    const predictFirst = exercise.blocks.slice(0, mainAt).some((b) => questions[b.type]);
    main.append(h('div', { class: predictFirst ? 'lab-stage predict-first' : 'lab-stage' }, stage.side, stage.visual, stage.after));
    if (practiceNote) main.append(practiceNote);
  }
  if (ctl) (stage ? stage.side : main).append(ctl);
  // The token chips the main visual is drawn from sit right above it.
  const chipsAt = mainAt >= 0 && exercise.blocks[mainAt].tokens ? exercise.blocks.findIndex((b) => b.id === exercise.blocks[mainAt].tokens) : -1;
  const where = (i) => {
    if (!stage || i >= afterEnd) return main;
    if (i === mainAt || i === chipsAt || i === pairAt) return stage.visual;
    return i > mainAt ? stage.after : stage.side;
  };

  for (const [i, block] of exercise.blocks.entries()) {
    const place = where(i);
    if (block.type === 'text') place.append(h('div', { class: 'text', html: richBlock(pick(block.body)) }));
    else if (block.type === 'note') place.append(h('aside', { class: 'note', html: richBlock(pick(block.body)) }));
    else if (block.type === 'math') place.append(h('div', { class: 'math-block', html: tex(block.tex, true) }));
    else if (block.type === 'table') {
      place.append(
        h(
          'div',
          { class: 'table-scroll', tabindex: '0' },
          h('table', { class: 'content-table' }, block.caption ? h('caption', {}, pick(block.caption)) : null, h('thead', {}, h('tr', {}, ...block.head.map((c) => h('th', { scope: 'col', html: richInline(pick(c)) })))), h('tbody', {}, ...block.rows.map((r) => h('tr', {}, ...r.map((c) => h('td', { html: richInline(pick(c)) })))))),
        ),
      );
    } else if (WIDGETS[block.type]) {
      const el = h('section', { class: `widget w-${block.type}`, 'data-widget': block.id, 'aria-label': t(`widget.${block.type}`), 'data-main-visual': i === mainAt ? '' : undefined });
      el.append(h('h2', { class: 'widget-title' }, t(`widget.${block.type}`)));
      // next_to_previous: this widget and the one placed just before it, side by side on a wide screen.
      const prevEl = place.lastElementChild;
      if (i === pairAt) place.append(el);
      else if (block.next_to_previous && prevEl?.matches('section.widget')) {
        const pair = h('div', { class: 'widget-pair' });
        prevEl.replaceWith(pair);
        pair.append(prevEl, el);
      } else if (block.next_to_previous && prevEl?.matches('.widget-pair')) prevEl.append(el);
      else place.append(el);
      // A widget whose readout answers a question opens once that question is settled (reveal-gate.js);
      // the hand calculation's vectors widget keeps its own gate.
      widgets.set(block.id, block.reveal_after && block.type !== 'vectors' ? gatedWidget(el, block, ctx, WIDGETS[block.type]) : WIDGETS[block.type](el, block, ctx));
    } else if (questions[block.type]) {
      const q = questions[block.type](block, ctx);
      if (q.refresh) tasks.push(q);
      place.append(q.el);
    }
  }

  // Questions beside the visual: the note on where answers are kept goes above them.
  // (A prediction beside the picture, in the side column: right above it.)
  const sideQuestion = stage?.side.querySelector(':scope > .question');
  if (practiceNote && sideQuestion) sideQuestion.before(practiceNote);
  else if (practiceNote && stage?.after.firstChild) stage.after.prepend(practiceNote);
  if (stage) placePrediction(stage, exercise.blocks[mainAt], main);
  if (stage) placeUnderPicture(stage, main, exercise.blocks.filter((b, i) => b.under_picture === true && i > mainAt && WIDGETS[b.type]).map((b) => main.querySelector(`[data-widget="${b.id}"]`)).filter(Boolean));

  const prev = app.exercises[index - 1];
  const next = app.exercises[index + 1];
  main.append(
    h(
      'nav',
      { class: 'pager', 'aria-label': t('nav.pager') },
      prev ? h('a', { href: app.linkTo(prev.id), class: 'prev' }, `← ${pick(prev.title)}`) : h('a', { href: app.linkTo(''), class: 'prev' }, `← ${t('nav.start')}`),
      next ? h('a', { href: app.linkTo(next.id), class: 'next' }, `${pick(next.title)} →`) : h('a', { href: app.linkTo(''), class: 'next' }, `${t('nav.start')} →`),
    ),
  );
  if (!current()) return;
  root.replaceChildren(main);
  await updateAll();
  // …and whatever the widgets and questions started on their own (each
  // question's attempts line, a widget's second view, the code editor).
  await pending.idle();
  // Ready means everything shown is drawn: a lazy block (lazy-draw.js) within
  // a screen of the viewport is drawn now, the others as they near it.
  if (current() && main.isConnected) drawNear(main);
  if (current() && main.isConnected) main.dataset.ready = 'true';
}
