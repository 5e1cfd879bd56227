// The hand calculation's input vectors, and (on request) what the core gets
// for both orders: the weights of x₁'s row and x₁'s output.
import { h, errorBox, row } from '../dom.js';
import { t } from '../i18n.js';
import { tex, texToUnicode } from '../rich.js';
import { vectorTable } from './common.js';
import { heatmap, matrixRows } from './heatmap.js';

export function mount(el, block, ctx) {
  const w = { state: {}, result: null, error: null };
  const labels = block.labels;
  el.append(
    h('div', { class: 'vec-inputs' }, ...block.vectors.map((v, i) => h('span', { class: 'vec-input', html: tex(`${labels[i]} = (${v.join(', ')})`) }))),
  );
  // The core's result gives the answers of the steps named in reveal_after:
  // it opens only once they are all answered correctly, or after the student
  // gives up on them (kept as an attempt {gave_up: true} per unsolved step:
  // the core takes it as a malformed answer, worth nothing, costing nothing,
  // and the instructor sees it in the submission).
  const gates = block.reveal_after ?? [];
  const solved = new Set(gates.filter((id) => ctx.isSolved?.(id)));
  let gaveUp = gates.some((id) => ctx.attempts?.(id).some((a) => a.answer?.gave_up === true));
  const open = () => gaveUp || gates.every((id) => solved.has(id));
  const details = h('details', { class: 'reveal' }, h('summary', {}, t('vectors.reveal')));
  const body = h('div');
  details.append(body);
  const giveUp = h('button', { type: 'button', class: 'secondary give-up' }, t('vectors.give_up'));
  const locked = h('div', { class: 'reveal-locked' }, h('p', { class: 'muted' }, t('vectors.locked')), giveUp);
  const slot = h('div', { class: 'reveal-slot', 'aria-live': 'polite' });
  el.append(slot);
  const showGate = () => slot.replaceChildren(open() ? details : locked);
  giveUp.addEventListener('click', async () => {
    giveUp.disabled = true;
    for (const id of gates) if (!solved.has(id)) await ctx.check(id, { gave_up: true });
    gaveUp = true;
    // The drawing of the calculation (handcalc.js) shows these steps' numbers now.
    window.dispatchEvent(new CustomEvent('poslab:gave-up', { detail: { exercise: ctx.exercise.id, questions: gates.filter((id) => !solved.has(id)) } }));
    showGate();
    details.open = true;
  });
  const onAnswered = (e) => {
    if (!el.isConnected) return window.removeEventListener('poslab:answered', onAnswered);
    if (e.detail?.exercise !== ctx.exercise.id || !e.detail.correct || !gates.includes(e.detail.question)) return;
    solved.add(e.detail.question);
    showGate();
  };
  window.addEventListener('poslab:answered', onAnswered);
  showGate();
  w.update = async () => {
    try {
      const orders = [block.vectors.map((_, i) => i), block.vectors.map((_, i) => i).reverse()];
      const parts = [];
      for (const [k, ord] of orders.entries()) {
        const r = await ctx.core.call('forward', { vectors: ord.map((i) => block.vectors[i]), weights: ctx.lab().weights });
        const names = ord.map((i) => texToUnicode(labels[i]));
        const S = ord.length;
        const x1Row = ord.indexOf(0);
        parts.push(
          h(
            'section',
            { class: 'panel' },
            h('h3', { class: 'sub-title' }, t(k === 0 ? 'vectors.order_a' : 'vectors.order_b', { order: names.join(', ') })),
            heatmap(matrixRows(r.attention, 0, S, S), { caption: t('attention.caption_plain'), rowLabels: names, colLabels: names, rowTitle: t('attention.query'), colTitle: t('attention.key'), min: 0, max: 1 }),
            vectorTable([{ label: t('vectors.x1_output'), values: row(r.output, x1Row) }], { labelTitle: '' }),
          ),
        );
      }
      body.replaceChildren(h('div', { class: 'side-by-side' }, ...parts));
    } catch (e) {
      body.replaceChildren(errorBox(e));
    }
  };
  return w;
}
