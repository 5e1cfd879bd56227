// Add versus concatenate: the width attention sees, from the core's results.
import { h, errorBox } from '../dom.js';
import { t } from '../i18n.js';
import { heatmap, matrixRows } from './heatmap.js';

export function mount(el, block, ctx) {
  const w = { state: {}, result: null, error: null };
  const body = h('div');
  el.append(body);
  w.update = async () => {
    const lab = ctx.lab();
    const pe = lab.pe === 'learned' ? 'learned' : 'sinusoidal';
    try {
      const panels = [];
      const shapes = {};
      for (const combine of ['add', 'concat']) {
        const r = await ctx.core.call('forward', { text: lab.sentence, pe, combine, dModel: lab.d, seed: lab.seed });
        const [S, Dp] = r.hidden.shape;
        shapes[combine] = r.hidden.shape;
        panels.push(
          h(
            'section',
            { class: 'panel', 'data-combine': combine },
            h('h3', { class: 'sub-title' }, t(`combine.${combine}`)),
            h('p', { class: 'shape' }, t('combine.shape', { S, D: Dp })),
            heatmap(matrixRows(r.hidden, 0, S, Dp), { caption: t('combine.caption', { how: t(`combine.${combine}`) }), rowLabels: r.tokens, rowTitle: t('vec.token'), colTitle: t('pe.dim'), showValues: false }),
          ),
        );
      }
      w.result = { shapes };
      body.replaceChildren(h('p', { class: 'muted' }, t('combine.note', { scheme: t(`scheme.${pe}`), D: lab.d })), h('div', { class: 'side-by-side' }, ...panels));
    } catch (e) {
      w.error = e;
      body.replaceChildren(errorBox(e));
    }
  };
  return w;
}
