// Questions checked in place: numbers (rtol/atol), choices, and "make the lab
// show X" tasks. Every check is the core's (checkAttempt, the same rules
// poslab grade applies to the downloaded submission); this file only shows
// what the core said. A task is watched live on its widget (evalCondition
// reads what the widget already got from the core) and then confirmed by the
// core with the learner's settings.
import { h, errorBox, withCode } from './dom.js';
import { t, pick, lang, has } from './i18n.js';
import { richBlock, richInline, tex, texToText, richToText } from './rich.js';
import { evalCondition, getPath } from './check.js';
import * as progress from './progress.js';
import { runPython, loadEditor } from './python/py-client.js';
import { NOT_AN_ATTEMPT } from './python/statuses.js';

// The learner's variant values in a question's text: {{name}} or {{name.i}}
// (the numbers are the core's, drawn from the learner's seed; this only prints them).
function fill(text, variant = {}) {
  return String(text).replace(/\{\{(\w+)(?:\.(\d+))?\}\}/g, (whole, name, index) => {
    const v = index === undefined ? variant[name] : variant[name]?.[Number(index)];
    return v === undefined ? whole : String(v);
  });
}

// The core's verdict (ctx.check: kept by the grading session when there is a learner id).
function coreCheck(ctx, block, answer) {
  return ctx.check(block.id, answer);
}

// The core's verdict on the options picked ({selected, g}), or null when
// nothing is picked or the core refuses (said in `feedback`; no attempt).
async function checkPicked(ctx, block, options, feedback) {
  const selected = options.filter((x) => x.input.checked).map((x) => x.o.id);
  if (!selected.length) {
    show(feedback, 'malformed', h('p', {}, t('q.choose_first')), h('p', { class: 'muted' }, t('q.no_attempt')));
    return null;
  }
  try {
    return { selected, g: await coreCheck(ctx, block, selected) };
  } catch (err) {
    show(feedback, 'error', errorBox(err));
    return null;
  }
}

async function hintsFor(ctx, block, wrong) {
  if (!block.hint && !block.hints) return [];
  const texts = await ctx.core.call('unlockedHints', { exercise: ctx.data, question: block.id, wrong });
  return texts.map((text) => h('div', { class: 'hint', html: `<strong>${t('q.hint')}</strong> ${richInline(pick(text))}` }));
}

// Every checked attempt is kept (progress.js) and announced as a
// 'poslab:answered' event on window, with the raw answer and the lab's
// settings, for whatever reports it (a submission file, an embedding host).
// Returns null when it was saved, else why not ('full', 'unavailable'): with a
// learner id the grading store is what counts (and progress.js then keeps
// nothing it did not keep), without one progress.js.
function recordAttempt(ctx, block, answer, correct) {
  const storeFailure = ctx.graded ? ctx.notSaved ?? null : null;
  const r = progress.record(ctx.exercise.id, block.id, { answer, correct }, { persist: !storeFailure });
  const notSaved = ctx.graded ? storeFailure : r.reason;
  window.dispatchEvent(
    new CustomEvent('poslab:answered', { detail: { exercise: ctx.exercise.id, question: block.id, kind: block.type, answer, correct, lab: { ...ctx.lab() }, lang: lang(), saved: !notSaved } }),
  );
  return notSaved;
}

// Beside the question: the attempt was checked but not kept.
function notSavedLine(reason) {
  return reason ? h('p', { class: 'not-saved', role: 'alert' }, t(`q.not_saved_${reason}`)) : null;
}

function shell(block, ctx, kind) {
  const n = ctx.questionNumber(block.id);
  const feedback = h('div', { class: 'feedback', role: 'status', 'aria-live': 'polite' });
  const el = h('section', { class: `question q-${kind}`, 'data-question': block.id, 'aria-labelledby': `${block.id}-title` });
  const head = h('h2', { id: `${block.id}-title`, class: 'q-title' }, h('span', { class: 'q-kind' }, block.heading ? pick(block.heading) : t(`q.${kind}`, { n })), ' ', h('span', { class: 'q-state' }));
  el.append(head, h('div', { class: 'prompt', html: richBlock(fill(pick(block.prompt), ctx.variant)) }));
  const note = ctx.questionNote?.(block.id);
  if (note) el.append(h('p', { class: 'notice practice-redo' }, note));
  const setDone = (done) => {
    el.classList.toggle('done', done);
    head.querySelector('.q-state').textContent = done ? t('q.done_badge') : '';
  };
  // With a learner id, only what the grading store kept counts (progress.js is not per learner).
  setDone(ctx.graded ? !!ctx.solved?.(block.id) : progress.isCorrect(ctx.exercise.id, block.id));
  return { el, feedback, setDone };
}

function show(feedback, cls, ...children) {
  feedback.className = `feedback ${cls}`;
  // As h() does: an absent part (no explain, no matched mistake) is left out, not shown as "null".
  feedback.replaceChildren(...children.filter((c) => c !== null && c !== undefined && c !== false));
}

function attemptsLine(n) {
  return h('p', { class: 'attempts' }, t('q.attempts', { n }));
}

// What the next attempt costs, by the core's rule (attemptStatus: the file's
// max_attempts and credit list): shown under the form before every attempt.
// Returns {left, nextCredit} (left null: no limit), or null when attempts are free.
async function attemptStatus(ctx, block, made) {
  if (!block.max_attempts && !block.credit) return null;
  return ctx.core.call('attemptStatus', { exercise: ctx.data, question: block.id, made });
}

function costText(status) {
  const pct = Math.round(status.nextCredit * 100);
  if (status.left === 0) return t('q.no_attempts_left', { max: status.maxAttempts });
  const left = status.left === null ? '' : t(status.left === 1 ? 'q.attempts_left_one' : 'q.attempts_left', { n: status.left });
  return `${left}${t('q.next_credit', { pct })}`;
}

// The line under a question's form; disables the form (or just `controls`)
// once no attempt is left.
async function showCost(ctx, block, made, line, form, solved, controls = form.querySelectorAll('input, button, textarea')) {
  let status = null;
  try {
    status = await attemptStatus(ctx, block, made);
  } catch {
    status = null;
  }
  line.hidden = !status || solved;
  if (status && !solved) line.textContent = costText(status);
  const over = !!status && status.left === 0 && !solved;
  for (const el of controls) el.disabled = over;
  line.classList.toggle('over', over);
  return status;
}

export function numeric(block, ctx) {
  const { el, feedback, setDone } = shell(block, ctx, 'numeric');
  let attempts = ctx.attemptsMade?.(block.id) ?? 0;
  let wrong = 0;
  let solved = ctx.solved?.(block.id) || progress.isCorrect(ctx.exercise.id, block.id);
  const inputs = block.fields.map((f, i) => {
    const id = `${block.id}-f${i}`;
    const input = h('input', { id, type: 'text', inputmode: 'decimal', autocomplete: 'off', spellcheck: 'false', class: 'answer', 'data-field': i, 'aria-label': texToText(fill(f.label, ctx.variant)) });
    return { input, wrap: h('div', { class: 'field' }, h('label', { for: id, html: tex(fill(f.label, ctx.variant)) }), input, h('span', { class: 'mark', 'aria-hidden': 'true' })) };
  });
  // A reload restores what the learner had typed or last checked; typing is kept as a draft.
  const before = ctx.restored?.(block.id);
  if (Array.isArray(before)) inputs.forEach((x, i) => (x.input.value = typeof before[i] === 'string' ? before[i] : ''));
  inputs.forEach((x) => x.input.addEventListener('input', () => ctx.draft?.(block.id, inputs.map((y) => y.input.value))));
  const button = h('button', { type: 'submit' }, t('q.check'));
  const form = h('form', { class: 'answer-form', novalidate: true }, h('div', { class: 'fields' }, ...inputs.map((x) => x.wrap)), button);
  const cost = h('p', { class: 'attempt-cost', hidden: true });
  el.append(form, cost, feedback);
  showCost(ctx, block, attempts, cost, form, solved);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const values = inputs.map((x) => x.input.value);
    let g;
    try {
      g = await coreCheck(ctx, block, values);
    } catch (err) {
      show(feedback, 'error', errorBox(err));
      return;
    }
    inputs.forEach((x, i) => {
      const state = g.status === 'malformed' ? (g.parts[i] ? '' : 'malformed') : g.parts[i] ? 'ok' : 'wrong';
      x.wrap.dataset.state = state;
      x.input.setAttribute('aria-invalid', String(state !== 'ok' && state !== ''));
      x.wrap.querySelector('.mark').textContent = state === 'ok' ? '✓' : state === 'wrong' ? '✗' : state === 'malformed' ? '?' : '';
    });
    if (g.status === 'malformed') {
      const bad = g.parts.map((ok, i) => (ok ? null : i)).filter((i) => i !== null);
      show(
        feedback,
        'malformed',
        h('p', {}, t('q.malformed')),
        h('ul', {}, ...bad.map((i) => h('li', {}, h('span', { html: tex(fill(block.fields[i].label, ctx.variant)) }), ': ', values[i].trim() === '' ? t('q.empty') : t('q.not_a_number', { value: values[i] })))),
        h('p', { class: 'muted' }, t('q.no_attempt')),
      );
      return;
    }
    attempts += 1;
    const notSaved = recordAttempt(ctx, block, values, g.status === 'correct');
    solved ||= g.status === 'correct';
    await showCost(ctx, block, attempts, cost, form, solved);
    if (g.status === 'correct') {
      setDone(true);
      show(feedback, 'correct', h('p', {}, t('q.correct')), block.explain ? h('div', { html: richBlock(pick(block.explain)) }) : null, attemptsLine(attempts), notSavedLine(notSaved));
    } else {
      wrong += 1;
      const okCount = g.parts.filter(Boolean).length;
      show(
        feedback,
        'wrong',
        h('p', {}, block.fields.length > 1 ? t('q.wrong_some', { count: okCount, n: block.fields.length }) : t('q.wrong')),
        g.feedback ? h('div', { class: 'mistake', html: richBlock(pick(g.feedback)) }) : null,
        ...(await hintsFor(ctx, block, wrong)),
        attemptsLine(attempts), notSavedLine(notSaved),
      );
    }
    ctx.onProgress();
  });
  return { el };
}

export function choice(block, ctx) {
  const { el, feedback, setDone } = shell(block, ctx, 'choice');
  let attempts = ctx.attemptsMade?.(block.id) ?? 0;
  let wrong = 0;
  let solved = ctx.solved?.(block.id) || progress.isCorrect(ctx.exercise.id, block.id);
  const kind = block.multiple ? 'checkbox' : 'radio';
  // Shown in this learner's order (the core's, from the variant seed); `index`
  // is the option's place in the file, which the core's parts[] follow.
  const order = ctx.optionOrder?.(block.id);
  const inOrder = Array.isArray(order) && order.length === block.options.length ? order.map((id) => block.options.find((o) => o.id === id)) : block.options;
  const options = (inOrder.every(Boolean) ? inOrder : block.options).map((o) => {
    const id = `${block.id}-${o.id}`;
    const input = h('input', { type: kind, name: block.id, id, value: o.id, 'aria-label': richToText(pick(o.label)) });
    return { o, index: block.options.indexOf(o), input, wrap: h('div', { class: 'option', 'data-option': o.id }, input, h('label', { for: id, html: richInline(pick(o.label)) })) };
  });
  const chosenBefore = ctx.restored?.(block.id);
  if (Array.isArray(chosenBefore)) options.forEach((x) => (x.input.checked = chosenBefore.includes(x.o.id)));
  options.forEach((x) => x.input.addEventListener('change', () => ctx.draft?.(block.id, options.filter((y) => y.input.checked).map((y) => y.o.id))));
  const legend = h('legend', { class: 'sr-only' }, richToText(fill(pick(block.prompt), ctx.variant)));
  const form = h(
    'form',
    { class: 'answer-form', novalidate: true },
    h('fieldset', {}, legend, block.multiple ? h('p', { class: 'muted' }, t('q.pick_all')) : null, ...options.map((x) => x.wrap)),
    h('button', { type: 'submit' }, t('q.check')),
  );
  const cost = h('p', { class: 'attempt-cost', hidden: true });
  // A question on the learner's own run (answer_from.extend_run) is locked
  // until the run widget has a finished run (lab.runSeeds); the core grades
  // it for those seeds.
  const readsRun = !!block.answer_from?.extend_run;
  const runNote = readsRun ? h('p', { class: 'run-note', role: 'status' }) : null;
  const applyLock = () => {
    if (!readsRun) return;
    const seeds = ctx.lab().runSeeds;
    runNote.classList.toggle('locked', !seeds);
    runNote.textContent = seeds ? t('q.run_seeds', { seeds: seeds.join(', ') }) : t('q.needs_run');
    if (!seeds) for (const x of form.querySelectorAll('input, button')) x.disabled = true;
  };
  const applyCost = async () => {
    await showCost(ctx, block, attempts, cost, form, solved);
    applyLock();
  };
  if (runNote) el.append(runNote);
  el.append(form, cost, feedback);
  applyLock();
  applyCost();
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (readsRun && !ctx.lab().runSeeds) return;
    const picked = await checkPicked(ctx, block, options, feedback);
    if (!picked) return;
    const { selected, g } = picked;
    attempts += 1;
    const notSaved = recordAttempt(ctx, block, selected, g.status === 'correct');
    solved ||= g.status === 'correct';
    await applyCost();
    // parts[i]: whether the file's option i is chosen as it should be (the core knows the answer).
    const wrongChosen = [];
    const missed = [];
    options.forEach((x) => {
      const chosen = x.input.checked;
      const ok = g.parts[x.index];
      if (chosen && !ok) wrongChosen.push(x.o.id);
      if (!chosen && !ok) missed.push(x.o.id);
      x.wrap.dataset.state = chosen ? (ok ? 'ok' : 'wrong') : '';
    });
    g.correct = g.status === 'correct';
    g.wrongChosen = wrongChosen;
    g.missed = missed;
    if (g.correct) {
      setDone(true);
      show(feedback, 'correct', h('p', {}, t('q.correct')), block.explain ? h('div', { html: richBlock(pick(block.explain)) }) : null, attemptsLine(attempts), notSavedLine(notSaved));
    } else {
      wrong += 1;
      const whys = g.wrongChosen.map((id) => block.options.find((o) => o.id === id)).filter((o) => o.why);
      show(
        feedback,
        'wrong',
        h('p', {}, t('q.wrong')),
        block.multiple && g.missed.length ? h('p', {}, t('q.missed', { count: g.missed.length })) : null,
        block.multiple && g.wrongChosen.length ? h('p', {}, t('q.extra', { count: g.wrongChosen.length })) : null,
        ...whys.map((o) => h('div', { class: 'mistake', html: `${richInline(pick(o.label))}: ${richInline(pick(o.why))}` })),
        ...(await hintsFor(ctx, block, wrong)),
        attemptsLine(attempts), notSavedLine(notSaved),
      );
    }
    ctx.onProgress();
  });
  // refresh: the page calls it when a widget changed (the run finished).
  return readsRun ? { el, refresh: applyCost } : { el };
}

export function task(block, ctx) {
  const { el, feedback, setDone } = shell(block, ctx, 'task');
  let reached = ctx.graded ? !!ctx.solved?.(block.id) : progress.isCorrect(ctx.exercise.id, block.id);
  let notSaved = null;
  const status = h('p', { class: 'task-status', 'aria-live': 'polite' });
  el.append(status, feedback);
  const render = () => {
    status.textContent = reached ? t('q.task_done') : t('q.task_open');
    status.classList.toggle('reached', reached);
    if (reached) {
      if (block.explain || notSaved) show(feedback, 'correct', block.explain ? h('div', { html: richBlock(pick(block.explain)) }) : null, notSavedLine(notSaved));
      else show(feedback, '');
    } else if (block.hint && !reached && ctx.widgetTouched(block.condition.widget)) show(feedback, 'hint', h('div', { class: 'hint', html: `<strong>${t('q.hint')}</strong> ${richInline(pick(block.hint))}` }));
  };
  render();
  // The settings the core re-runs the task with, read where the file says:
  // '<widget id>.<path>' or 'lab.<key>'.
  const settings = () => {
    const free = block.condition.check?.free ?? {};
    const lab = ctx.lab();
    return Object.fromEntries(
      Object.entries(free).map(([key, spec]) => {
        const where = typeof spec === 'string' ? spec : spec.path;
        const [head, ...rest] = where.split('.');
        return [key, head === 'lab' ? getPath(lab, rest.join('.')) : getPath(ctx.widgets.get(head), rest.join('.'))];
      }),
    );
  };
  let confirming = false;
  return {
    el,
    // Called whenever a widget changes: the task is watched live, then confirmed by the core.
    async refresh() {
      const seen = evalCondition(block.condition, ctx.widgets.get(block.condition.widget));
      if (seen && !reached && !confirming) {
        confirming = true;
        const answer = settings();
        try {
          const g = await coreCheck(ctx, block, answer);
          if (g.status === 'correct' && !reached) {
            reached = true;
            notSaved = recordAttempt(ctx, block, answer, true);
            setDone(true);
            ctx.onProgress();
          }
        } catch (err) {
          show(feedback, 'error', errorBox(err));
        } finally {
          confirming = false;
        }
      }
      render();
    },
  };
}

// A prediction: one option, recorded once and never marked right or wrong
// (the core's status "recorded"). The first recorded prediction is the one
// that counts (max_attempts 1); a widget (e.g. extrapolate) compares it with
// what a run measured.
export function prediction(block, ctx) {
  const { el, feedback, setDone } = shell(block, ctx, 'prediction');
  const options = block.options.map((o) => {
    const id = `${block.id}-${o.id}`;
    const input = h('input', { type: 'radio', name: block.id, id, value: o.id });
    return { o, input, wrap: h('div', { class: 'option', 'data-option': o.id }, input, h('label', { for: id, html: richInline(pick(o.label)) })) };
  });
  const legend = h('legend', { class: 'sr-only' }, richToText(fill(pick(block.prompt), ctx.variant)));
  const button = h('button', { type: 'submit' }, t('q.predict'));
  const form = h('form', { class: 'answer-form', novalidate: true }, h('fieldset', {}, legend, ...options.map((x) => x.wrap)), button);
  el.append(form, feedback);
  const lock = (answer) => {
    options.forEach((x) => {
      x.input.checked = answer.includes(x.o.id);
      x.input.disabled = true;
    });
    button.disabled = true;
    const label = block.options.find((o) => o.id === answer[0])?.label;
    show(feedback, 'recorded', h('p', { class: 'prediction-recorded', 'data-prediction': answer[0] ?? '' }, t('q.prediction_recorded', { choice: label ? richToText(pick(label)) : '' })), block.explain ? h('div', { html: richBlock(pick(block.explain)) }) : null);
    setDone(true);
  };
  // A prediction is made before the result is seen: once a run it predicts
  // has started (or one is shown) with nothing recorded, it closes for good
  // (the widget says so with a 'poslab:prediction-closed' event, and keeps an
  // attempt {ran_before_prediction: true} for the instructor, which the core
  // takes as a malformed answer: no points, no attempt spent).
  let closed = false;
  const close = () => {
    if (closed || button.disabled) return;
    closed = true;
    options.forEach((x) => (x.input.disabled = true));
    button.disabled = true;
    el.dataset.closed = 'true';
    show(feedback, 'closed', h('p', { class: 'prediction-closed' }, t('q.prediction_closed')), ctx.graded ? h('p', { class: 'muted' }, t('q.prediction_closed_kept')) : null);
  };
  const first = ctx.firstAnswer?.(block.id);
  if (Array.isArray(first) && typeof first[0] === 'string' && block.options.some((o) => o.id === first[0])) lock(first);
  else if ((ctx.attempts?.(block.id) ?? []).some((a) => a.answer?.ran_before_prediction === true)) close();
  const onClosed = (e) => {
    if (!el.isConnected) return window.removeEventListener('poslab:prediction-closed', onClosed);
    if (e.detail?.exercise === ctx.exercise.id && e.detail.question === block.id) close();
  };
  window.addEventListener('poslab:prediction-closed', onClosed);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (closed) return;
    const picked = await checkPicked(ctx, block, options, feedback);
    if (!picked) return;
    const { selected, g } = picked;
    // Closed while the core was asked (a run started meanwhile): not a prediction.
    if (closed) return close();
    if (g.status !== 'recorded') {
      show(feedback, 'malformed', h('p', {}, t('q.choose_first')));
      return;
    }
    recordAttempt(ctx, block, selected, true);
    lock(selected);
    ctx.onProgress();
  });
  return { el };
}

// A free-text explanation: saved with the submission for the instructor
// (an attempt, and a draft while typing), never scored. Length is capped by
// the file's max_length (default 2000 characters), checked by the core too.
export const EXPLAIN_MAX = 2000;
export function explain(block, ctx) {
  const feedback = h('div', { class: 'feedback', role: 'status', 'aria-live': 'polite' });
  const max = Math.min(block.max_length ?? EXPLAIN_MAX, 5000);
  const id = `${block.id}-text`;
  const el = h('section', { class: 'question q-explain', 'data-question': block.id, 'aria-labelledby': `${block.id}-title` });
  el.append(
    h('h3', { id: `${block.id}-title`, class: 'q-title' }, h('span', { class: 'q-kind' }, block.heading ? pick(block.heading) : t('q.explain'))),
    h('div', { class: 'prompt', id: `${block.id}-prompt`, html: richBlock(fill(pick(block.prompt), ctx.variant)) }),
  );
  const area = h('textarea', { id, class: 'explain-text', rows: 4, maxlength: max, 'aria-describedby': `${block.id}-prompt ${block.id}-note` });
  const count = h('span', { class: 'explain-count muted', 'aria-hidden': 'true' });
  const note = h('p', { class: 'muted', id: `${block.id}-note` }, t('q.explain_note', { max }));
  const before = ctx.restored?.(block.id) ?? progress.answers(ctx.exercise.id, block.id).at(-1);
  if (typeof before === 'string') area.value = before.slice(0, max);
  const length = () => [...area.value].length;
  const updateCount = () => (count.textContent = t('q.explain_count', { n: length(), max }));
  updateCount();
  area.addEventListener('input', () => {
    updateCount();
    ctx.draft?.(block.id, area.value);
  });
  const form = h('form', { class: 'answer-form explain-form', novalidate: true }, h('label', { for: id, class: 'sr-only' }, t('q.explain_label')), area, h('div', { class: 'inline' }, h('button', { type: 'submit' }, t('q.explain_save')), count), note);
  el.append(form, feedback);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const text = area.value;
    if (!text.trim()) {
      show(feedback, 'malformed', h('p', {}, t('q.explain_empty')));
      return;
    }
    if (length() > max) {
      show(feedback, 'malformed', h('p', {}, t('q.explain_too_long', { n: length(), max })));
      return;
    }
    let g;
    try {
      g = await coreCheck(ctx, block, text);
    } catch (err) {
      show(feedback, 'error', errorBox(err));
      return;
    }
    if (g.status !== 'recorded') {
      show(feedback, 'malformed', h('p', {}, t('q.explain_rejected', { max })));
      return;
    }
    recordAttempt(ctx, block, text, false);
    show(feedback, 'recorded', h('p', {}, t(ctx.learnerId?.() ? 'q.explain_saved' : 'q.explain_saved_practice')));
  });
  return { el };
}

// A programming question: the student writes a Python function in a code
// editor (CodeMirror, loaded on demand); "Run" runs it in the sandbox
// (web/js/python/) on the file's visible cases and shows the core's values;
// "Check" runs it on the learner's hidden cases (from the variant) and the
// core grades the results (checkAttempt): which case failed and how, or the
// named mistake — never the hidden expected values. The attempt kept is
// {code, status, results, message}; scripts/grade-code.mjs re-runs the code.
// The attempt store keeps strings up to 10000 characters (attempt-store.js).
const CODE_MAX = 10000;
function describeArgs(block, args) {
  return block.params.map((p, i) => `${p}=${JSON.stringify(args[i])}`).join(', ').slice(0, 300);
}
// A value as the results table shows it: numbers to 6 significant digits
// (what the tolerance can tell apart), lists as lists, odd values by their
// Python type (the runtime reports {type, repr?} for those).
export function showValue(v, depth = 0) {
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6)));
  if (Array.isArray(v)) return depth > 6 ? '[…]' : `[${v.map((x) => showValue(x, depth + 1)).join(', ')}]`;
  if (v && typeof v === 'object') return typeof v.repr === 'string' ? v.repr : `<${String(v.type ?? '?')}>`;
  return JSON.stringify(v) ?? String(v);
}
// The value at path `at` ([i, j, …]) inside `v`, or undefined.
function valueAt(v, at) {
  let x = v;
  for (const i of at ?? []) {
    if (!Array.isArray(x)) return undefined;
    x = x[i];
  }
  return x;
}
function failureText(block, d, expected) {
  const at = (d.at ?? []).map((i) => `[${i}]`).join('');
  switch (d.kind) {
    case 'shape': return t('code.fail_shape', { at: at || t('code.top'), want: d.expected_len, got: d.got_len });
    case 'type': return t('code.fail_type', { at: at || t('code.top'), want: t(`code.type_${d.want}`), got: d.got });
    case 'value': {
      const got = typeof d.got === 'number' ? showValue(d.got) : String(d.got);
      const want = valueAt(expected, d.at);
      if (typeof want === 'number') return t('code.fail_value_want', { at: at || t('code.top'), got, want: showValue(want) });
      return t('code.fail_value', { at: at || t('code.top'), got });
    }
    case 'exception': return t('code.fail_exception', { error: d.error, message: d.message ?? '' });
    case 'no_raise': return t('code.fail_no_raise', { want: block.cases?.find((c) => c.raises)?.raises ?? 'ValueError' });
    case 'wrong_exception': return t('code.fail_wrong_exception', { want: d.want, error: d.error });
    default: return '';
  }
}
// Runs that are not attempts (NOT_AN_ATTEMPT: the code imports a module
// other than math, or uses a method MicroPython lacks): the page tells the
// student what to change and records nothing (the re-grade never sees them).
function gapText(feature) {
  const key = `code.gap.${feature}`;
  return has(key) ? t(key) : t('code.gap.other');
}
function runStatusText(block, r) {
  if (r.status === 'timeout') return t('code.timeout', { s: (block.time_limit_ms ?? 2000) / 1000 });
  if (r.status === 'syntax_error') return t('code.syntax_error');
  if (r.status === 'load_error') return t('code.load_error');
  if (r.status === 'no_function') return t('code.no_function', { fn: block.function });
  if (r.status === 'memory') return t('code.memory');
  if (r.status === 'import_refused') return t('code.import_refused', { module: String(r.module ?? '?').slice(0, 80) });
  if (r.status === 'unsupported') return t('code.unsupported', { feature: String(r.feature ?? '?').slice(0, 80), instead: gapText(String(r.feature ?? '')) });
  return t('code.crashed');
}
function outputBlock(r) {
  const parts = [];
  if (r.message && r.status !== 'timeout' && r.status !== 'no_function') parts.push(h('pre', { class: 'code-trace' }, r.message));
  if (r.output) parts.push(h('details', {}, h('summary', {}, t('code.printed')), h('pre', { class: 'code-out' }, r.output + (r.dropped ? `\n${t('code.dropped', { n: r.dropped })}` : ''))));
  return parts;
}

export function code(block, ctx) {
  const { el, feedback, setDone } = shell(block, ctx, 'code');
  const editorId = `${block.id}-editor`;
  // How to leave the editor: said once per page, beside the first editor (the
  // seventh editor of exercise 12 once repeated it seven times). Every editor
  // still carries it as its accessible description (code-editor.js: a hidden
  // note inside the editor's shadow root, as an id reference cannot reach out
  // of a shadow root to this one).
  const note = ctx.codeKeysShown ? null : h('p', { class: 'muted code-keys', id: `${block.id}-keys` }, t('code.keys'));
  ctx.codeKeysShown = true;
  const host = h('div', { class: 'code-editor', id: editorId });
  const loading = h('p', { class: 'muted' }, t('code.loading_editor'));
  const runBtn = h('button', { type: 'button', class: 'code-run' }, t('code.run'));
  const checkBtn = h('button', { type: 'button', class: 'code-check' }, t('code.check'));
  const resetBtn = h('button', { type: 'button', class: 'code-reset secondary' }, t('code.reset'));
  const runOut = h('div', { class: 'code-results', role: 'status', 'aria-live': 'polite' });
  // As the other questions: the attempts left and what the next check can earn.
  // Only Check counts as an attempt, so only Check closes when none is left.
  const costLine = h('p', { class: 'attempt-cost', hidden: true });
  const form = h('div', { class: 'answer-form code-form' }, h('p', { class: 'code-label', id: `${block.id}-label` }, ...withCode('code.editor_label', { fn: block.function }, 'fn')), loading, host, note, h('div', { class: 'inline' }, runBtn, checkBtn, resetBtn), costLine);
  el.append(form, runOut, feedback);
  let attempts = ctx.attemptsMade?.(block.id) ?? 0;
  let solved = ctx.solved?.(block.id) || progress.isCorrect(ctx.exercise.id, block.id);
  let closed = false;
  const updateCost = async () => {
    const status = await showCost(ctx, block, attempts, costLine, form, solved, [checkBtn]);
    closed = !!status && status.left === 0 && !solved;
  };
  updateCost();
  const before = ctx.restored?.(block.id) ?? progress.answers(ctx.exercise.id, block.id).at(-1);
  let text = typeof before?.code === 'string' ? before.code : block.starter;
  let ed = null;
  const current = () => (ed ? ed.get() : text);
  // The page is not ready (data-ready) before the editor is there, or its error.
  const editorLoaded = loadEditor().then((E) => {
    ed = E.create({ host, doc: text, label: t('code.editor_label', { fn: block.function }), description: t('code.keys'), onChange: (v) => ctx.draft?.(block.id, { code: v }) });
    loading.remove();
  }, (err) => loading.replaceWith(errorBox(err)));
  ctx.track?.(editorLoaded);
  // Like show(), keeping the results box's own class.
  const showRun = (cls, ...children) => {
    show(runOut, cls, ...children);
    runOut.className = `code-results ${cls}`;
  };
  const busy = (on) => {
    runBtn.disabled = on;
    checkBtn.disabled = on || closed;
    el.classList.toggle('running', on);
  };
  const limit = block.time_limit_ms ?? 2000;
  const tooLong = (src) => {
    if (src.length <= CODE_MAX) return false;
    show(feedback, 'malformed', h('p', {}, t('code.too_long', { max: CODE_MAX })));
    return true;
  };
  resetBtn.addEventListener('click', () => {
    if (ed) ed.set(block.starter);
  });
  runBtn.addEventListener('click', async () => {
    const src = current();
    if (tooLong(src)) return;
    busy(true);
    showRun('running', h('p', {}, t('code.running')));
    try {
      const cases = block.cases.map((c) => c.args);
      const r = await runPython({ code: src, fn: block.function, cases, timeLimitMs: limit });
      if (r.status !== 'ok') {
        showRun('incorrect', h('p', {}, runStatusText(block, r)), ...outputBlock(r));
        return;
      }
      const verdict = await ctx.core.call('codeRun', { exercise: ctx.data, question: block.id, results: r.results });
      const rows = verdict.cases.map((c, i) => {
        const args = describeArgs(block, block.cases[i].args);
        const res = r.results[i];
        const got = res.ok ? showValue(res.value) : `${res.error}: ${res.message}`;
        const want = block.cases[i].raises ? t('code.raises', { error: block.cases[i].raises }) : showValue(c.expected);
        return h('tr', { class: c.ok ? 'ok' : 'bad' }, h('td', {}, c.ok ? '✓' : '✗', h('span', { class: 'sr-only' }, c.ok ? t('code.case_ok') : t('code.case_bad'))), h('td', {}, h('code', {}, `${block.function}(${args})`)), h('td', {}, h('code', { class: 'clip' }, got.slice(0, 400))), h('td', {}, h('code', { class: 'clip' }, String(want).slice(0, 400))), h('td', {}, c.ok ? '' : failureText(block, c, c.expected)));
      });
      showRun(
        verdict.passed === verdict.total ? 'correct' : 'incorrect',
        h('p', {}, t('code.run_summary', { passed: verdict.passed, total: verdict.total })),
        h('div', { class: 'table-scroll', tabindex: '0' }, h('table', { class: 'code-table' }, h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, ''), h('th', { scope: 'col' }, t('code.col_call')), h('th', { scope: 'col' }, t('code.col_got')), h('th', { scope: 'col' }, t('code.col_want')), h('th', { scope: 'col' }, t('code.col_why')))), h('tbody', {}, ...rows))),
        ...outputBlock(r),
      );
    } catch (err) {
      showRun('error', errorBox(err));
    } finally {
      busy(false);
    }
  });
  checkBtn.addEventListener('click', async () => {
    const src = current();
    if (tooLong(src)) return;
    busy(true);
    show(feedback, 'running', h('p', {}, t('code.checking')));
    try {
      const hidden = ctx.variant?.[`code:${block.id}`]?.hidden ?? [];
      const r = await runPython({ code: src, fn: block.function, cases: hidden.map((c) => c.args), timeLimitMs: limit });
      if (NOT_AN_ATTEMPT.has(r.status)) {
        show(feedback, 'incorrect', h('p', {}, runStatusText(block, r)), h('p', { class: 'not-counted' }, t('code.not_counted')), ...outputBlock(r));
        return;
      }
      const answer = { code: src, status: r.status };
      if (r.status === 'ok') answer.results = r.results;
      else answer.message = String(r.message ?? '').slice(0, 1500);
      const g = await coreCheck(ctx, block, answer);
      if (g.status === 'malformed') {
        show(feedback, 'malformed', h('p', {}, g.message));
        return;
      }
      attempts += 1;
      const notSaved = recordAttempt(ctx, block, answer, g.status === 'correct');
      solved ||= g.status === 'correct';
      await updateCost();
      const d = g.detail ?? {};
      const parts = [];
      if (r.status !== 'ok') parts.push(h('p', {}, runStatusText(block, r)), ...outputBlock(r));
      else {
        parts.push(h('p', {}, g.status === 'correct' ? t('code.all_passed', { total: d.total }) : t('code.passed', { passed: d.passed, total: d.total })));
        if (d.failed) parts.push(h('p', {}, ...withCode('code.failed_case', { n: d.failed.case + 1, call: `${block.function}(${describeArgs(block, d.failed.args)})` }, 'call'), ' ', failureText(block, d.failed)));
        if (g.feedback) parts.push(h('p', { class: 'mistake', html: `<strong>${t('code.mistake')}</strong> ${richInline(pick(g.feedback))}` }));
        if (r.output) parts.push(...outputBlock({ output: r.output, dropped: r.dropped }));
      }
      if (g.status === 'correct' && block.explain) parts.push(h('div', { class: 'explain', html: richBlock(pick(block.explain)) }));
      const hints = g.status === 'correct' ? [] : await hintsFor(ctx, block, attempts);
      show(feedback, g.status, ...parts, ...hints, attemptsLine(attempts), notSavedLine(notSaved));
      if (g.status === 'correct') setDone(true);
      ctx.onProgress?.();
    } catch (err) {
      show(feedback, 'error', errorBox(err));
    } finally {
      busy(false);
    }
  });
  return { el };
}
