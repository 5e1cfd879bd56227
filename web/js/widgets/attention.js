// The attention weights as a heatmap (head 1). Linked to a tokens widget it
// shows Attention(X) and Attention(PX) side by side; alone it shows the lab
// sentence, and the causal mask's effect above the diagonal.
import { h, fmtSmall, errorBox } from '../dom.js';
import { t } from '../i18n.js';
import { tex } from '../rich.js';
import { heatmap, matrixRows } from './heatmap.js';
import { forwardArgs } from './common.js';
import { snapshot, play } from './motion.js';
import { morphChildren } from './morph.js';
import { algebra } from './algebra.js';

export function aboveDiagonalMax(attention) {
  const [, S] = attention.shape;
  let m = 0;
  for (let i = 0; i < S; i++) for (let j = i + 1; j < S; j++) m = Math.max(m, attention.data[i * S + j]);
  return m;
}

export function mount(el, block, ctx) {
  const w = { state: {}, result: null, error: null };
  const body = h('div', { class: 'attention' });
  el.append(body);
  // Fast reordering starts updates that overlap: only the latest may draw.
  let seq = 0;
  let drawnOrder = null;
  const fail = (mine) => (e) => () => {
    if (mine !== seq) return;
    w.result = null;
    w.error = e;
    body.replaceChildren(errorBox(e));
  };
  // Asks the core; resolves with the redraw (runner.js draws every widget in
  // one go), which updates the heatmaps in place (morph.js).
  w.prepare = async () => {
    const mine = ++seq;
    const lab = ctx.lab();
    if (block.tokens) {
      const chips = ctx.widgets.get(block.tokens);
      if (!chips || chips.error || !chips.state.tokens.length) return () => body.replaceChildren(h('p', { class: 'muted' }, t('outputs.need_tokens')));
      const { tokens } = chips.state;
      const order = chips.state.order.slice();
      let check;
      try {
        check = await ctx.core.call('permutationCheck', forwardArgs(lab, { permutation: order }));
      } catch (e) {
        return fail(mine)(e);
      }
      return () => {
        if (mine !== seq) return;
        const S = tokens.length;
        const labelsA = tokens.map((x, i) => `${i + 1} ${x}`);
        const labelsB = order.map((i, p) => `${p + 1} ${tokens[i]}`);
        w.result = { maxAbsDiff: check.maxAbsDiff, aboveDiagonalMax: aboveDiagonalMax(check.original.attention) };
        const identity = tokens.map((_, i) => i);
        const masked = lab.causal ? (r, c) => c > r : undefined;
        // Attention(PX)'s cells travel with their tokens (motion.js); when the
        // order is the one drawn, nothing moves (and the page is not measured).
        const moved = drawnOrder?.join() !== order.join();
        drawnOrder = order;
        const before = moved ? snapshot(body) : null;
        morphChildren(body, [
          block.algebra ? algebra(check, order, tokens) : '',
          h(
            'div',
            { class: 'side-by-side' },
            heatmap(matrixRows(check.original.attention, 0, S, S), { caption: t('attention.caption_x'), rowLabels: labelsA, colLabels: labelsA, rowTitle: t('attention.query'), colTitle: t('attention.key'), min: 0, max: 1, rowTokens: identity, colTokens: identity, flip: 'x', masked }),
            heatmap(matrixRows(check.permuted.attention, 0, S, S), { caption: t('attention.caption_px'), rowLabels: labelsB, colLabels: labelsB, rowTitle: t('attention.query'), colTitle: t('attention.key'), min: 0, max: 1, rowTokens: order, colTokens: order, flip: 'px', masked }),
          ),
          h(
            'p',
            { class: `readout ${check.maxAbsDiff < 1e-4 ? 'same' : 'differ'}`, 'data-readout': 'maxAbsDiff', 'aria-live': 'polite' },
            h('span', { html: tex('\\max\\lvert \\mathrm{Attention}(PX) - P\\cdot\\mathrm{Attention}(X) \\rvert =') }),
            ' ',
            h('strong', { 'data-value': String(check.maxAbsDiff) }, fmtSmall(check.maxAbsDiff)),
          ),
        ]);
        if (before) play(body, before);
        // The P factors pulse again at every reorder (kept elements do not restart a CSS animation by themselves).
        if (moved) for (const el of body.querySelectorAll('.algebra.permuted .alg-p')) for (const a of el.getAnimations?.() ?? []) (a.cancel(), a.play());
        ctx.highlight?.refresh();
        w.error = null;
      };
    }
    let r;
    try {
      r = await ctx.core.call('forward', forwardArgs(lab));
    } catch (e) {
      return fail(mine)(e);
    }
    return () => {
      if (mine !== seq) return;
      const S = r.tokens.length;
      const labels = r.tokens.map((x, i) => `${i + 1} ${x}`);
      const above = aboveDiagonalMax(r.attention);
      w.result = { aboveDiagonalMax: above, attention: r.attention };
      const ids = r.tokens.map((_, i) => i);
      morphChildren(body, [
        // With the mask, the hidden triangle (key after query) is greyed.
        heatmap(matrixRows(r.attention, 0, S, S), { caption: t(lab.causal ? 'attention.caption_masked' : 'attention.caption_plain'), rowLabels: labels, colLabels: labels, rowTitle: t('attention.query'), colTitle: t('attention.key'), min: 0, max: 1, rowTokens: ids, colTokens: ids, flip: 'm', masked: lab.causal ? (i, j) => j > i : undefined }),
        lab.causal ? h('p', { class: 'muted masked-key' }, h('span', { class: 'masked-swatch', 'aria-hidden': 'true' }), t('attention.masked_key', { n: (S * (S - 1)) / 2 })) : '',
        h('p', { class: `readout ${above === 0 ? 'same' : 'differ'}`, 'data-readout': 'aboveDiagonal', 'aria-live': 'polite' }, t('attention.above', { value: fmtSmall(above) }), h('span', { class: 'verdict' }, t(above === 0 ? 'attention.above_zero' : 'attention.above_nonzero'))),
      ]);
      ctx.highlight?.refresh();
      w.error = null;
    };
  };
  w.update = async () => (await w.prepare())?.();
  return w;
}
