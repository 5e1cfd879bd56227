// ALiBi: the slope of each head (core), head 1's distance bias (core's
// similarity for alibi), and each head's attention weights on the sentence.
import { h, errorBox, fmt } from '../dom.js';
import { t } from '../i18n.js';
import { richInline } from '../rich.js';
import { heatmap, matrixRows } from './heatmap.js';
import { forwardArgs } from './common.js';

export function mount(el, block, ctx) {
  const w = { state: {}, result: null, error: null };
  const body = h('div');
  el.append(body);
  w.update = async () => {
    const lab = ctx.lab();
    const H = block.heads ?? lab.heads;
    try {
      const slopes = await ctx.core.call('alibiSlopes', H);
      const r = await ctx.core.call('forward', forwardArgs(lab, { pe: 'alibi', heads: H }));
      const S = r.tokens.length;
      const bias = await ctx.core.call('similarity', { scheme: 'alibi', length: S, heads: H });
      const labels = r.tokens.map((x, i) => `${i + 1} ${x}`);
      w.result = { slopes };
      body.replaceChildren(
        h(
          'div',
          { class: 'table-scroll', tabindex: '0' },
          h(
            'table',
            { class: 'vec-table' },
            h('caption', { html: richInline(t('alibi.slopes_caption', { H })) }),
            h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('alibi.head')), ...slopes.map((_, i) => h('th', { scope: 'col' }, String(i + 1))))),
            h('tbody', {}, h('tr', {}, h('th', { scope: 'row', html: richInline(t('alibi.slope')) }), ...slopes.map((v) => h('td', {}, fmt(v, 4))))),
          ),
        ),
        heatmap(matrixRows(bias.similarity, 0, S, S), { caption: t('alibi.bias_caption'), rowLabels: labels, colLabels: labels, rowTitle: t('attention.query'), colTitle: t('attention.key') }),
        h(
          'div',
          { class: 'heads-grid' },
          ...Array.from({ length: H }, (_, hd) =>
            heatmap(matrixRows(r.attention, hd * S * S, S, S), { caption: t('alibi.head_caption', { h: hd + 1, slope: fmt(slopes[hd], 4) }), rowLabels: labels, colLabels: labels.map((_, i) => String(i + 1)), rowTitle: t('attention.query'), colTitle: t('attention.key'), min: 0, max: 1, showValues: false }),
          ),
        ),
      );
    } catch (e) {
      w.error = e;
      body.replaceChildren(errorBox(e));
    }
  };
  return w;
}
