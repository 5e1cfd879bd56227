// The hand calculation's input vectors, and (on request) what the core gets
// for both orders: the weights of x₁'s row and x₁'s output.
import { h, errorBox, row } from '../dom.js';
import { t } from '../i18n.js';
import { tex } from '../rich.js';
import { vectorTable } from './common.js';
import { heatmap, matrixRows } from './heatmap.js';

export function mount(el, block, ctx) {
  const w = { state: {}, result: null, error: null };
  const labels = block.labels;
  el.append(
    h('div', { class: 'vec-inputs' }, ...block.vectors.map((v, i) => h('span', { class: 'vec-input', html: tex(`${labels[i]} = (${v.join(', ')})`) }))),
  );
  const details = h('details', { class: 'reveal' }, h('summary', {}, t('vectors.reveal')));
  const body = h('div');
  details.append(body);
  el.append(details);
  w.update = async () => {
    try {
      const orders = [block.vectors.map((_, i) => i), block.vectors.map((_, i) => i).reverse()];
      const parts = [];
      for (const [k, ord] of orders.entries()) {
        const r = await ctx.core.call('forward', { vectors: ord.map((i) => block.vectors[i]), weights: ctx.lab().weights });
        const names = ord.map((i) => labels[i]);
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
