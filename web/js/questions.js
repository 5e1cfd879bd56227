// Questions checked in place: numbers (rtol/atol), choices, and "make the lab
// show X" tasks. Expected values come from live core calls (expected.js);
// the comparison is check.js.
import { h, errorBox } from './dom.js';
import { t, pick, lang } from './i18n.js';
import { richBlock, richInline, tex, texToText, richToText } from './rich.js';
import { gradeNumeric, gradeChoice, evalCondition, DEFAULT_TOLERANCE } from './check.js';
import { swapEffect } from './widgets/swaps.js';
import * as progress from './progress.js';

const HINT_AFTER = 2;

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
  el.append(head, h('div', { class: 'prompt', html: richBlock(pick(block.prompt)) }));
  const setDone = (done) => {
    el.classList.toggle('done', done);
    head.querySelector('.q-state').textContent = done ? t('q.done_badge') : '';
  };
  setDone(progress.isCorrect(ctx.exercise.id, block.id));
  return { el, feedback, setDone };
}

function show(feedback, cls, ...children) {
  feedback.className = `feedback ${cls}`;
  feedback.replaceChildren(...children);
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
    const input = h('input', { id, type: 'text', inputmode: 'decimal', autocomplete: 'off', spellcheck: 'false', class: 'answer', 'data-field': i, 'aria-label': texToText(f.label) });
    return { input, wrap: h('div', { class: 'field' }, h('label', { for: id, html: tex(f.label) }), input, h('span', { class: 'mark', 'aria-hidden': 'true' })) };
  });
  const button = h('button', { type: 'submit' }, t('q.check'));
  const form = h('form', { class: 'answer-form', novalidate: true }, h('div', { class: 'fields' }, ...inputs.map((x) => x.wrap)), button);
  el.append(form, feedback);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const lab = ctx.lab();
    let expected;
    let mistakes;
    try {
      expected = await Promise.all(block.fields.map((f) => ctx.resolve(f.expect, lab)));
      mistakes = await Promise.all(
        (block.mistakes ?? []).map(async (m) => ({ values: await Promise.all(m.expect.map((x) => (x === null ? null : ctx.resolve(x, lab)))), feedback: m.feedback })),
      );
    } catch (err) {
      show(feedback, 'error', errorBox(err));
      return;
    }
    const values = inputs.map((x) => x.input.value);
    const g = gradeNumeric(values, expected, mistakes, { ...DEFAULT_TOLERANCE, ...(block.tolerance ?? {}) });
    inputs.forEach((x, i) => {
      const f = g.fields[i];
      const state = f.malformed ? 'malformed' : f.ok ? 'ok' : 'wrong';
      x.wrap.dataset.state = state;
      x.input.setAttribute('aria-invalid', String(state !== 'ok'));
      x.wrap.querySelector('.mark').textContent = state === 'ok' ? '✓' : state === 'wrong' ? '✗' : '?';
    });
    if (g.status === 'malformed') {
      const bad = g.fields.map((f, i) => (f.malformed ? { i, f } : null)).filter(Boolean);
      show(
        feedback,
        'malformed',
        h('p', {}, t('q.malformed')),
        h('ul', {}, ...bad.map(({ i, f }) => h('li', {}, h('span', { html: tex(block.fields[i].label) }), ': ', f.reason === 'empty' ? t('q.empty') : t('q.not_a_number', { value: values[i] })))),
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
      const okCount = g.fields.filter((f) => f.ok).length;
      show(
        feedback,
        'wrong',
        h('p', {}, block.fields.length > 1 ? t('q.wrong_some', { ok: okCount, n: block.fields.length }) : t('q.wrong')),
        g.mistake ? h('div', { class: 'mistake', html: richBlock(pick(g.mistake.feedback)) }) : null,
        block.hint && wrong >= HINT_AFTER ? h('div', { class: 'hint', html: `<strong>${t('q.hint')}</strong> ${richInline(pick(block.hint))}` }) : null,
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
  const legend = h('legend', { class: 'sr-only' }, richToText(pick(block.prompt)));
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
    let answer = block.answer;
    if (block.answer_from) {
      try {
        answer = [];
        const lab = ctx.lab();
        const sw = ctx.exercise.blocks.find((b) => b.id === block.answer_from.swaps_changing);
        for (const o of block.options) {
          const [, a, b] = o.id.match(/^s(\d+)-(\d+)$/).map(Number);
          if ((await swapEffect(ctx.core, lab, sw.token, a, b)).changed) answer.push(o.id);
        }
      } catch (err) {
        show(feedback, 'error', errorBox(err));
        return;
      }
    }
    const g = gradeChoice(selected, answer);
    attempts += 1;
    recordAttempt(ctx, block, selected, g.correct);
    options.forEach((x) => {
      const chosen = x.input.checked;
      const right = answer.includes(x.o.id);
      x.wrap.dataset.state = chosen ? (right ? 'ok' : 'wrong') : '';
    });
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
        block.multiple && g.missed.length ? h('p', {}, t('q.missed', { n: g.missed.length })) : null,
        block.multiple && g.wrongChosen.length ? h('p', {}, t('q.extra', { n: g.wrongChosen.length })) : null,
        ...whys.map((o) => h('div', { class: 'mistake', html: `${richInline(pick(o.label))}: ${richInline(pick(o.why))}` })),
        block.hint && wrong >= HINT_AFTER ? h('div', { class: 'hint', html: `<strong>${t('q.hint')}</strong> ${richInline(pick(block.hint))}` }) : null,
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
  return {
    el,
    // Called whenever a widget changes: tasks are checked live.
    refresh() {
      const ok = evalCondition(block.condition, ctx.widgets.get(block.condition.widget));
      if (ok && !reached) {
        reached = true;
        recordAttempt(ctx, block, ctx.widgets.get(block.condition.widget)?.state ?? null, true);
        setDone(true);
        ctx.onProgress();
      }
      render();
    },
  };
}
