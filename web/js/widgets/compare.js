// The same sentence under each scheme: head 1's attention weights.
import { h, errorBox } from '../dom.js';
import { t } from '../i18n.js';
import { heatmap, matrixRows } from './heatmap.js';
import { forwardArgs } from './common.js';

export function mount(el, block, ctx) {
  const w = { state: {}, result: null, error: null };
  const body = h('div', { class: 'heads-grid' });
  el.append(h('p', { class: 'muted' }, t('compare.note')), body);
  w.update = async () => {
    const lab = ctx.lab();
    const results = await ctx.core.batch(block.schemes.map((pe) => ({ method: 'forward', args: forwardArgs(lab, { pe }) })));
    body.replaceChildren(
      ...results.map((r, i) => {
        const name = t(`scheme.${block.schemes[i]}`);
        if (!r.ok) return h('section', { class: 'panel' }, h('h3', { class: 'sub-title' }, name), errorBox(r.error));
        const S = r.result.tokens.length;
        const labels = r.result.tokens.map((x, j) => `${j + 1} ${x}`);
        return h('section', { class: 'panel', 'data-scheme': block.schemes[i] }, heatmap(matrixRows(r.result.attention, 0, S, S), { caption: name, rowLabels: labels, colLabels: labels.map((_, j) => String(j + 1)), rowTitle: t('attention.query'), colTitle: t('attention.key'), min: 0, max: 1, showValues: false }));
      }),
    );
  };
  return w;
}
