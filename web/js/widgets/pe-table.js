// The position table of the chosen scheme as a heatmap (dimensions × positions)
// and a few of its columns across positions, where the wavelengths show.
import { h, errorBox, fmt } from '../dom.js';
import { t } from '../i18n.js';
import { richInline } from '../rich.js';
import { heatmap } from './heatmap.js';
import { lineplot } from './lineplot.js';

// The shared colour scale and y range: sinusoidal's values span [−1, 1]; the
// clocks' diverging palette (one table, one palette on the page).
const SCALE = 1;

export function mount(el, block, ctx) {
  const w = { state: {}, result: null, error: null };
  const body = h('div');
  // The highlighted position (highlight.js): which column lights, said in words.
  const posLine = h('p', { class: 'muted pe-hl-line', 'aria-live': 'polite' });
  el.append(body, posLine);
  ctx.positionHighlight?.onChange((p) => {
    const text = p === null ? '' : t('pe.hl_pos', { pos: p, n: Number(p) + 1 });
    if (posLine.textContent !== text) posLine.textContent = text;
  });
  // The drawings already made, by what they show (scheme, D, seed): switching
  // the position information back and forth puts the same elements back
  // rather than building them again. A few only.
  const drawn = new Map();
  let shown = null;
  const put = (key, result, nodes) => {
    if (drawn.size >= 6) drawn.delete(drawn.keys().next().value);
    drawn.set(key, { result, nodes });
    shown = key;
    w.result = result;
    w.error = null;
    body.replaceChildren(...nodes);
    ctx.positionHighlight?.refresh();
  };
  const keyOf = (lab) => JSON.stringify([lab.pe, block.length ?? 32, lab.d, lab.seed]);
  // Asks the core; resolves with the redraw (runner.js draws every widget in one go).
  w.prepare = async () => {
    const lab = ctx.lab();
    const length = block.length ?? 32;
    const key = keyOf(lab);
    if (key === shown && !w.error) return null;
    // Only the latest settings draw.
    const draw = (result, nodes) => () => keyOf(ctx.lab()) === key && put(key, result, nodes);
    if (drawn.has(key)) {
      const { result, nodes } = drawn.get(key);
      return draw(result, nodes);
    }
    if (lab.pe !== 'sinusoidal' && lab.pe !== 'learned') return draw({ scheme: lab.pe }, [h('p', { class: 'notice' }, t('pe.no_table', { scheme: t(`scheme.${lab.pe}`) }))]);
    try {
      const { encoding, wavelengths } = await ctx.core.call('encoding', { scheme: lab.pe, length, dModel: lab.d, seed: lab.seed });
      const [S, D] = encoding.shape;
      // Transposed for display: one row per dimension, positions along the x axis.
      const byDim = Array.from({ length: D }, (_, d) => Array.from({ length: S }, (_, p) => encoding.data[p * D + d]));
      const dims = (block.plot_dims ?? [0, 2]).filter((d) => d < D);
      const xs = Array.from({ length: S }, (_, p) => p);
      // One colour scale and one y range, −1 to 1, for every table (sinusoidal
      // spans it): a learned table ~20× weaker looks that much fainter rather
      // than as strong. The range is said in words, with this table's own.
      let lo = Infinity;
      let hi = -Infinity;
      for (const v of encoding.data) (lo = Math.min(lo, v)), (hi = Math.max(hi, v));
      const learned = lab.pe === 'learned';
      return draw({ scheme: lab.pe, shape: encoding.shape, range: [lo, hi], scale: [-SCALE, SCALE] }, [
        h('p', { class: 'shape' }, t('pe.shape', { scheme: t(`scheme.${lab.pe}`), S, D })),
        learned ? h('p', { class: 'notice pe-kind' }, t('pe.learned_kind')) : null,
        heatmap(byDim, { caption: t('pe.heatmap_caption', { scheme: t(`scheme.${lab.pe}`) }), rowLabels: byDim.map((_, d) => String(d)), colLabels: xs.map((p) => (p % 8 === 0 ? String(p) : '')), rowTitle: t('pe.dim'), colTitle: t('pe.pos'), showValues: false, min: -SCALE, max: SCALE, colPositions: true, diverging: true }),
        h('p', { class: 'muted pe-scale' }, t('pe.scale', { min: fmt(-SCALE, 0), max: fmt(SCALE, 0), lo: fmt(lo, 3), hi: fmt(hi, 3) })),
        lineplot(
          dims.map((d) => ({ label: t('pe.dim_label', { d }), xs, ys: byDim[d] })),
          { caption: t(learned ? 'pe.plot_caption_learned' : 'pe.plot_caption'), xLabel: t('pe.pos'), yMin: -SCALE, yMax: SCALE, narrow: true },
        ),
        // Sinusoidal only: each (sin, cos) pair's wavelength 2π·10000^{2i/D}, from the core.
        wavelengths
          ? h(
              'div',
              { class: 'table-scroll', tabindex: '0' },
              h(
                'table',
                { class: 'vec-table pe-wavelengths' },
                h('caption', { html: richInline(t('pe.wavelengths_caption')) }),
                h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('pe.pair')), ...Array.from(wavelengths.data, (_, i) => h('th', { scope: 'col' }, `${2 * i}, ${2 * i + 1}`)))),
                h('tbody', {}, h('tr', {}, h('th', { scope: 'row' }, t('pe.wavelength')), ...Array.from(wavelengths.data, (v) => h('td', {}, v < 1000 ? v.toFixed(1) : Math.round(v).toLocaleString('en-US'))))),
              ),
            )
          : null,
      ].filter(Boolean));
    } catch (e) {
      return () => {
        shown = null;
        w.result = null;
        w.error = e;
        body.replaceChildren(errorBox(e));
      };
    }
  };
  w.update = async () => (await w.prepare())?.();
  return w;
}
