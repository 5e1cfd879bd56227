// Add versus concatenate: the width attention sees, from the core's results.
import { h, errorBox } from '../dom.js';
import { t } from '../i18n.js';
import { heatmap, matrixRows } from './heatmap.js';
import { morphChildren } from './morph.js';

export function mount(el, block, ctx) {
  const w = { state: {}, result: null, error: null };
  const body = h('div');
  el.append(body);
  // What is drawn: the settings it was drawn for. Only the sentence, D, the
  // seed and learned-or-not matter ("none" shows sinusoidal's), so most
  // switches of the position information leave it as it is.
  let shown = null;
  const keyOf = (lab) => JSON.stringify([lab.sentence, lab.pe === 'learned' ? 'learned' : 'sinusoidal', lab.d, lab.seed]);
  // Asks the core; resolves with the redraw (runner.js draws every widget in one go).
  w.prepare = async () => {
    const lab = ctx.lab();
    const key = keyOf(lab);
    if (key === shown && !w.error) return null;
    const pe = lab.pe === 'learned' ? 'learned' : 'sinusoidal';
    let results;
    try {
      results = await Promise.all(['add', 'concat'].map((combine) => ctx.core.call('forward', { text: lab.sentence, pe, combine, dModel: lab.d, seed: lab.seed })));
    } catch (e) {
      return () => {
        shown = null;
        w.error = e;
        body.replaceChildren(errorBox(e));
      };
    }
    return () => {
      if (keyOf(ctx.lab()) !== key) return; // a later update draws
      const shapes = {};
      const panels = ['add', 'concat'].map((combine, k) => {
        const r = results[k];
        const [S, Dp] = r.hidden.shape;
        shapes[combine] = r.hidden.shape;
        return h(
          'section',
          { class: 'panel', 'data-combine': combine },
          h('h3', { class: 'sub-title' }, t(`combine.${combine}`)),
          h('p', { class: 'shape' }, t('combine.shape', { S, D: Dp })),
          heatmap(matrixRows(r.hidden, 0, S, Dp), { caption: t('combine.caption', { how: t(`combine.${combine}`) }), rowLabels: r.tokens, rowTitle: t('vec.token'), colTitle: t('pe.dim'), showValues: false }),
        );
      });
      w.result = { shapes };
      w.error = null;
      shown = key;
      // In place: the heatmaps' cells keep their elements, only their colours change.
      morphChildren(body, [h('p', { class: 'muted' }, t('combine.note', { scheme: t(`scheme.${pe}`), D: lab.d })), h('div', { class: 'side-by-side' }, ...panels)]);
    };
  };
  w.update = async () => (await w.prepare())?.();
  return w;
}
