// A widget whose readout answers a question of its exercise (the file's
// `reveal_after: [question ids]`) is not drawn at all until every one of
// those questions is settled: answered right, out of attempts, or given up
// on. Not drawn, rather than hidden, so that neither the page's text nor its
// aria labels hold the answer before then. Giving up is kept as an attempt
// {gave_up: true} per unsettled question (the core takes it as a malformed
// answer: worth nothing, costing nothing) and the instructor sees it in the
// submission, as the hand calculation's give-up does (widgets/vectors.js).
import { h } from './dom.js';
import { t, pick } from './i18n.js';

// ctx: the exercise's (runner.js); mount: the widget's own mount function.
// Returns the widget object the runner keeps: a stand-in while closed, whose
// update() does nothing, replaced in ctx.widgets by the real widget on opening.
export function gatedWidget(el, block, ctx, mount) {
  const gates = block.reveal_after;
  const blockOf = (id) => ctx.exercise.blocks.find((b) => b.id === id);
  const made = new Map(gates.map((id) => [id, ctx.attemptsMade?.(id) ?? 0]));
  const settled = new Set(gates.filter((id) => ctx.isSolved?.(id) || outOfAttempts(id)));
  let gaveUp = gates.some((id) => (ctx.attempts?.(id) ?? []).some((a) => a.answer?.gave_up === true));
  function outOfAttempts(id) {
    const max = blockOf(id)?.max_attempts;
    return !!max && made.get(id) >= max;
  }
  const isOpen = () => gaveUp || gates.every((id) => settled.has(id));

  const names = gates.map((id) => {
    const q = blockOf(id);
    return q?.heading ? pick(q.heading) : t('gate.question', { n: ctx.questionNumber?.(id) ?? '?' });
  });
  const giveUp = h('button', { type: 'button', class: 'secondary give-up' }, t('gate.give_up'));
  const locked = h('div', { class: 'reveal-locked', 'data-gate': block.id }, h('p', { class: 'muted' }, t('gate.locked', { questions: names.join(t('gate.and')) })), giveUp);
  const body = h('div', { class: 'gate-body', 'aria-live': 'polite' });
  el.append(locked, body);

  const standIn = { state: {}, result: {}, error: null, locked: true, update: async () => {} };
  let real = null;
  async function open() {
    if (real) return;
    locked.remove();
    el.dataset.revealed = 'true';
    real = mount(body, block, ctx);
    ctx.widgets?.set(block.id, real);
    try {
      if (real.prepare) (await real.prepare())?.();
      else await real.update?.();
    } finally {
      ctx.highlight?.refresh?.();
    }
  }
  giveUp.addEventListener('click', async () => {
    giveUp.disabled = true;
    for (const id of gates) {
      if (settled.has(id)) continue;
      try {
        await ctx.check(id, { gave_up: true });
      } catch {
        // Kept or not, the student chose to see it: the view opens.
      }
    }
    gaveUp = true;
    open();
  });
  const onAnswered = (e) => {
    if (!el.isConnected) return window.removeEventListener('poslab:answered', onAnswered);
    const d = e.detail;
    if (d?.exercise !== ctx.exercise.id || !gates.includes(d.question)) return;
    made.set(d.question, made.get(d.question) + 1);
    if (d.correct || outOfAttempts(d.question)) settled.add(d.question);
    if (isOpen()) open();
  };
  window.addEventListener('poslab:answered', onAnswered);
  if (isOpen()) {
    // Opened already (an earlier visit): drawn as any widget, by the runner's first update.
    locked.remove();
    el.dataset.revealed = 'true';
    real = mount(body, block, ctx);
    return real;
  }
  el.dataset.revealed = 'false';
  return standIn;
}
