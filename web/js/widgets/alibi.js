// ALiBi: the slope of each head (core), head 1's distance bias (core's
// similarity for alibi), and each head's attention weights on the sentence.
// Then a sequence long enough for locality to show (a slider, 8–32): with
// every q·k equal (zero vectors, identity weights, causal), the last token's
// weights are softmax(−m_h·distance) alone, the "recent tokens matter more"
// fall-off, plotted per head from the core's forward; and each head's bias
// −m_h·|i − j| as a heatmap (the core's alibiBias).
import { h, errorBox, fmt } from '../dom.js';
import { t } from '../i18n.js';
import { richInline } from '../rich.js';
import { heatmap, matrixRows } from './heatmap.js';
import { lineplot } from './lineplot.js';
import { forwardArgs } from './common.js';
import { morphChildren } from './morph.js';

// The last query's weight on the key `distance` tokens back, per head:
// attention [H, L, L], row L−1, key L−1−distance.
export function falloff(attention) {
  const [H, L] = attention.shape;
  return Array.from({ length: H }, (_, hd) => Array.from({ length: L }, (_, dist) => attention.data[(hd * L + (L - 1)) * L + (L - 1 - dist)]));
}

function distanceView(block, ctx, H, slopes, L) {
  return Promise.all([
    ctx.core.call('forward', { vectors: Array.from({ length: L }, () => new Array(H * 2).fill(0)), pe: 'alibi', heads: H, weights: 'identity', causal: true }),
    ctx.core.call('alibiBias', { length: L, heads: H }),
  ]).then(([r, b]) => {
    const curves = falloff(r.attention);
    const xs = Array.from({ length: L }, (_, d) => d);
    // One colour scale for every head (the steepest head's far corner to 0),
    // so a gentle slope looks gentle.
    // A loop, not Math.min(...data): H·L² values would overflow the call stack at long L.
    let lowest = Infinity;
    for (const v of b.bias.data) lowest = Math.min(lowest, v);
    return {
      curves,
      el: h(
        'div',
        { class: 'alibi-distance' },
        lineplot(
          curves.map((ys, hd) => ({ label: t('alibi.curve_label', { h: hd + 1, slope: fmt(slopes[hd], 4) }), xs, ys })),
          { caption: t('alibi.falloff_caption', { L }), xLabel: t('alibi.distance'), yLabel: t('alibi.weight'), yMin: 0 },
        ),
        h(
          'div',
          { class: 'heads-grid' },
          ...Array.from({ length: H }, (_, hd) =>
            heatmap(matrixRows(b.bias, hd * L * L, L, L), { caption: t('alibi.bias_head_caption', { h: hd + 1, slope: fmt(slopes[hd], 4) }), rowLabels: xs.map((i) => (i % 4 === 0 ? String(i + 1) : '')), colLabels: xs.map((i) => (i % 4 === 0 ? String(i + 1) : '')), rowTitle: t('attention.query'), colTitle: t('attention.key'), showValues: false, min: lowest, max: 0 }),
          ),
        ),
      ),
    };
  });
}

export function mount(el, block, ctx) {
  const w = { state: { length: 24 }, result: null, error: null };
  const body = h('div');
  const lengthId = `${block.id}-length`;
  const lengthInput = h('input', { type: 'range', id: lengthId, min: 8, max: 32, step: 1, value: w.state.length, class: 'clock-slider' });
  const lengthOut = h('output', { for: lengthId, class: 'clock-out' }, String(w.state.length));
  const distance = h('div');
  lengthInput.addEventListener('input', () => {
    w.state.length = Number(lengthInput.value);
    lengthOut.textContent = lengthInput.value;
    w.update();
  });
  el.append(
    body,
    h('h3', { class: 'alibi-distance-title' }, t('alibi.distance_title')),
    h('p', {}, t('alibi.distance_lead')),
    h('div', { class: 'clock-control' }, h('label', { for: lengthId }, t('alibi.length')), lengthInput, lengthOut),
    distance,
  );
  // The sentence's part (slopes, bias, each head's weights) depends on the
  // lab's settings, the distance part on the length alone: a move of the
  // slider redraws only the distance part, in place (morph.js).
  let sentenceKey = null;
  let slopesOf = null; // { H, slopes }
  let seq = 0;
  const sentenceView = async (lab, H, slopes) => {
    const r = await ctx.core.call('forward', forwardArgs(lab, { pe: 'alibi', heads: H }));
    const S = r.tokens.length;
    const bias = await ctx.core.call('similarity', { scheme: 'alibi', length: S, heads: H });
    const labels = r.tokens.map((x, i) => `${i + 1} ${x}`);
    return [
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
    ];
  };
  // Asks the core; resolves with the redraw (runner.js draws every widget in one go).
  w.prepare = async () => {
    const mine = ++seq;
    const lab = ctx.lab();
    const H = block.heads ?? lab.heads;
    const key = JSON.stringify([forwardArgs(lab, { pe: 'alibi', heads: H }), H]);
    const sentenceToo = key !== sentenceKey || !!w.error;
    try {
      const slopes = slopesOf?.H === H ? slopesOf.slopes : await ctx.core.call('alibiSlopes', H);
      slopesOf = { H, slopes };
      const [far, top] = await Promise.all([distanceView(block, ctx, H, slopes, w.state.length), sentenceToo ? sentenceView(lab, H, slopes) : null]);
      return () => {
        if (mine !== seq) return;
        morphChildren(distance, [far.el]);
        if (top) morphChildren(body, top);
        sentenceKey = key;
        w.result = { slopes, falloff: far.curves };
        w.error = null;
      };
    } catch (e) {
      return () => {
        if (mine !== seq) return;
        sentenceKey = null;
        w.error = e;
        // The error replaces every figure: the fall-off curves of the last
        // accepted head count must not stay beside it.
        distance.replaceChildren();
        body.replaceChildren(errorBox(e));
      };
    }
  };
  w.update = async () => (await w.prepare())?.();
  return w;
}
