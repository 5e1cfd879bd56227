// Questions checked in place: numbers (rtol/atol), choices, and "make the lab
// show X" tasks. Every check is the core's (checkAttempt, the same rules
// poslab grade applies to the downloaded submission); this file only shows
// what the core said. A task is watched live on its widget (evalCondition
// reads what the widget already got from the core) and then confirmed by the
// core with the learner's settings.
import { h, errorBox } from './dom.js';
import { t, pick, lang } from './i18n.js';
import { richBlock, richInline, tex, texToText, richToText } from './rich.js';
import { evalCondition, getPath } from './check.js';
import * as progress from './progress.js';

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

async function hintsFor(ctx, block, wrong) {
  if (!block.hint && !block.hints) return [];
  const texts = await ctx.core.call('unlockedHints', { exercise: ctx.data, question: block.id, wrong });
  return texts.map((text) => h('div', { class: 'hint', html: `<strong>${t('q.hint')}</strong> ${richInline(pick(text))}` }));
}

// Every checked attempt is kept (progress.js) and announced as a
// 'poslab:answered' event on window, with the raw answer and the lab's
// settings, for whatever reports it (a submission file, an embedding host).
function recordAttempt(ctx, block, answer, correct) {
  progress.record(ctx.exercise.id, block.id, { answer, correct });
  window.dispatchEvent(
    new CustomEvent('poslab:answered', { detail: { exercise: ctx.exercise.id, question: block.id, kind: block.type, answer, correct, lab: { ...ctx.lab() }, lang: lang() } }),
  );
}

function shell(block, ctx, kind) {
  const n = ctx.questionNumber(block.id);
  const feedback = h('div', { class: 'feedback', role: 'status', 'aria-live': 'polite' });
  const el = h('section', { class: `question q-${kind}`, 'data-question': block.id, 'aria-labelledby': `${block.id}-title` });
  const head = h('h3', { id: `${block.id}-title`, class: 'q-title' }, h('span', { class: 'q-kind' }, block.heading ? pick(block.heading) : t(`q.${kind}`, { n })), ' ', h('span', { class: 'q-state' }));
  el.append(head, h('div', { class: 'prompt', html: richBlock(fill(pick(block.prompt), ctx.variant)) }));
  const note = ctx.questionNote?.(block.id);
  if (note) el.append(h('p', { class: 'notice practice-redo' }, note));
  const setDone = (done) => {
    el.classList.toggle('done', done);
    head.querySelector('.q-state').textContent = done ? t('q.done_badge') : '';
  };
  setDone(ctx.solved?.(block.id) || progress.isCorrect(ctx.exercise.id, block.id));
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

export function numeric(block, ctx) {
  const { el, feedback, setDone } = shell(block, ctx, 'numeric');
  let attempts = 0;
  let wrong = 0;
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
  el.append(form, feedback);
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
    recordAttempt(ctx, block, values, g.status === 'correct');
    if (g.status === 'correct') {
      setDone(true);
      show(feedback, 'correct', h('p', {}, t('q.correct')), block.explain ? h('div', { html: richBlock(pick(block.explain)) }) : null, attemptsLine(attempts));
    } else {
      wrong += 1;
      const okCount = g.parts.filter(Boolean).length;
      show(
        feedback,
        'wrong',
        h('p', {}, block.fields.length > 1 ? t('q.wrong_some', { count: okCount, n: block.fields.length }) : t('q.wrong')),
        g.feedback ? h('div', { class: 'mistake', html: richBlock(pick(g.feedback)) }) : null,
        ...(await hintsFor(ctx, block, wrong)),
        attemptsLine(attempts),
      );
    }
    ctx.onProgress();
  });
  return { el };
}

export function choice(block, ctx) {
  const { el, feedback, setDone } = shell(block, ctx, 'choice');
  let attempts = 0;
  let wrong = 0;
  const kind = block.multiple ? 'checkbox' : 'radio';
  const options = block.options.map((o) => {
    const id = `${block.id}-${o.id}`;
    const input = h('input', { type: kind, name: block.id, id, value: o.id, 'aria-label': richToText(pick(o.label)) });
    return { o, input, wrap: h('div', { class: 'option' }, input, h('label', { for: id, html: richInline(pick(o.label)) })) };
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
  el.append(form, feedback);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const selected = options.filter((x) => x.input.checked).map((x) => x.o.id);
    if (!selected.length) {
      show(feedback, 'malformed', h('p', {}, t('q.choose_first')), h('p', { class: 'muted' }, t('q.no_attempt')));
      return;
    }
    let g;
    try {
      g = await coreCheck(ctx, block, selected);
    } catch (err) {
      show(feedback, 'error', errorBox(err));
      return;
    }
    attempts += 1;
    recordAttempt(ctx, block, selected, g.status === 'correct');
    // parts[i]: whether option i is chosen as it should be (the core knows the answer).
    const wrongChosen = [];
    const missed = [];
    options.forEach((x, i) => {
      const chosen = x.input.checked;
      if (chosen && !g.parts[i]) wrongChosen.push(x.o.id);
      if (!chosen && !g.parts[i]) missed.push(x.o.id);
      x.wrap.dataset.state = chosen ? (g.parts[i] ? 'ok' : 'wrong') : '';
    });
    g.correct = g.status === 'correct';
    g.wrongChosen = wrongChosen;
    g.missed = missed;
    if (g.correct) {
      setDone(true);
      show(feedback, 'correct', h('p', {}, t('q.correct')), block.explain ? h('div', { html: richBlock(pick(block.explain)) }) : null, attemptsLine(attempts));
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
        attemptsLine(attempts),
      );
    }
    ctx.onProgress();
  });
  return { el };
}

export function task(block, ctx) {
  const { el, feedback, setDone } = shell(block, ctx, 'task');
  let reached = progress.isCorrect(ctx.exercise.id, block.id);
  const status = h('p', { class: 'task-status', 'aria-live': 'polite' });
  el.append(status, feedback);
  const render = () => {
    status.textContent = reached ? t('q.task_done') : t('q.task_open');
    status.classList.toggle('reached', reached);
    if (reached) {
      if (block.explain) show(feedback, 'correct', h('div', { html: richBlock(pick(block.explain)) }));
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
            recordAttempt(ctx, block, answer, true);
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
