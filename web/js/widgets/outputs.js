// Both orders' per-token outputs and sentence vectors side by side, and the
// live readout max|Attention(PX) − P·Attention(X)| (from the core's
// permutationCheck).
import { h, fmtSmall, errorBox } from '../dom.js';
import { t } from '../i18n.js';
import { tex } from '../rich.js';
import { forwardArgs, vectorTable, outputRows, hue, joinTokens } from './common.js';
import { snapshot, play } from './motion.js';

export function mount(el, block, ctx) {
  const w = { state: {}, result: null, error: null };
  const body = h('div', { class: 'outputs' });
  el.append(body);
  // Fast reordering starts updates that overlap: only the latest may draw.
  let seq = 0;
  w.update = async () => {
    const mine = ++seq;
    const lab = ctx.lab();
    const chips = ctx.widgets.get(block.tokens);
    if (!chips || chips.error || !chips.state.tokens.length) {
      body.replaceChildren(h('p', { class: 'muted' }, t('outputs.need_tokens')));
      w.result = null;
      return;
    }
    const { tokens, order } = chips.state;
    try {
      // The weights are not shown here: skip the S×S matrices.
      const check = await ctx.core.call('permutationCheck', forwardArgs(lab, { permutation: order, returnAttention: false }));
      if (mine !== seq) return;
      const identity = tokens.map((_, i) => i);
      const spaced = lab.sentence.trim().includes(' ');
      const nameA = joinTokens(identity.map((i) => tokens[i]), spaced);
      const nameB = joinTokens(order.map((i) => tokens[i]), spaced);
      let meanA = null;
      let meanB = null;
      if (block.mean) {
        // The sentence vector: the core's mean of the output rows.
        meanA = Array.from(check.original.outputMean.data);
        meanB = Array.from(check.permuted.outputMean.data);
      }
      w.result = { maxAbsDiff: check.maxAbsDiff, original: check.original, permuted: check.permuted, meanA, meanB };
      w.error = null;
      const tiny = check.maxAbsDiff < 1e-4;
      // Each token's output row travels with its token (motion.js).
      const before = snapshot(body);
      const panel = (title, sentence, matrix, ord, mean, key) =>
        h(
          'section',
          { class: 'panel', 'data-order': key },
          h('h3', { class: 'sub-title' }, title),
          h('p', { class: 'sentence' }, sentence),
          vectorTable(outputRows(matrix, tokens, ord, hue), { caption: t('outputs.caption', { sentence }), footer: mean ? [{ label: t('outputs.mean'), values: mean }] : null, flip: `out-${key}` }),
        );
      body.replaceChildren(
        h(
          'div',
          { class: 'side-by-side' },
          panel(t('outputs.order_a'), nameA, check.original.output, identity, meanA, 'a'),
          panel(t('outputs.order_b'), nameB, check.permuted.output, order, meanB, 'b'),
        ),
        h(
          'p',
          { class: `readout ${tiny ? 'same' : 'differ'}`, 'data-readout': 'maxAbsDiff', 'aria-live': 'polite' },
          h('span', { html: tex('\\max\\lvert \\mathrm{Attention}(PX) - P\\cdot\\mathrm{Attention}(X) \\rvert =') }),
          ' ',
          h('strong', { 'data-value': String(check.maxAbsDiff) }, fmtSmall(check.maxAbsDiff)),
          h('span', { class: 'verdict' }, t(order.every((v, i) => v === i) ? 'outputs.identity' : tiny ? 'outputs.same' : 'outputs.differ')),
        ),
      );
      play(body, before);
      ctx.highlight?.refresh();
    } catch (e) {
      w.result = null;
      w.error = e;
      body.replaceChildren(errorBox(e));
    }
  };
  return w;
}
