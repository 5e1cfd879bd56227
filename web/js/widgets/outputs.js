// Both orders' per-token outputs and sentence vectors side by side, and the
// live readout max|Attention(PX) − P·Attention(X)| (from the core's
// permutationCheck).
import { h, fmtSmall, errorBox } from '../dom.js';
import { t } from '../i18n.js';
import { tex } from '../rich.js';
import { forwardArgs, vectorTable, outputRows, hue, joinTokens } from './common.js';
import { snapshot, play } from './motion.js';
import { morphChildren } from './morph.js';

export function mount(el, block, ctx) {
  const w = { state: {}, result: null, error: null };
  const body = h('div', { class: 'outputs' });
  el.append(body);
  // Fast reordering starts updates that overlap: only the latest may draw.
  let seq = 0;
  let drawnOrder = null;
  // The readout's formula, typeset once (KaTeX) rather than on every update.
  let formula = null;
  const formulaHtml = () => {
    if (formula) return formula;
    const html = tex('\\max\\lvert \\mathrm{Attention}(PX) - P\\cdot\\mathrm{Attention}(X) \\rvert =');
    if (!html.includes('tex-pending')) formula = html;
    return html;
  };
  // Asks the core; resolves with the redraw (runner.js draws every widget in one go).
  w.prepare = async () => {
    const mine = ++seq;
    const lab = ctx.lab();
    const chips = ctx.widgets.get(block.tokens);
    if (!chips || chips.error || !chips.state.tokens.length) {
      return () => {
        body.replaceChildren(h('p', { class: 'muted' }, t('outputs.need_tokens')));
        w.result = null;
      };
    }
    const { tokens } = chips.state;
    const order = chips.state.order.slice();
    let check;
    try {
      // The weights are not shown here: skip the S×S matrices.
      check = await ctx.core.call('permutationCheck', forwardArgs(lab, { permutation: order, returnAttention: false }));
    } catch (e) {
      return () => {
        if (mine !== seq) return;
        w.result = null;
        w.error = e;
        body.replaceChildren(errorBox(e));
      };
    }
    return () => {
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
      // Each token's output row travels with its token (motion.js); when the
      // order is the one drawn, nothing moves (and the page is not measured).
      const moved = drawnOrder?.join() !== order.join();
      drawnOrder = order;
      const before = moved ? snapshot(body) : null;
      const panel = (title, sentence, matrix, ord, mean, key) =>
        h(
          'section',
          { class: 'panel', 'data-order': key },
          h('h3', { class: 'sub-title' }, title),
          h('p', { class: 'sentence' }, sentence),
          vectorTable(outputRows(matrix, tokens, ord, hue), { caption: t('outputs.caption', { sentence }), footer: mean ? [{ label: t('outputs.mean'), values: mean }] : null, flip: `out-${key}` }),
        );
      // In place: the tables' cells keep their elements, only the numbers change.
      morphChildren(body, [
        h(
          'div',
          { class: 'side-by-side' },
          panel(t('outputs.order_a'), nameA, check.original.output, identity, meanA, 'a'),
          panel(t('outputs.order_b'), nameB, check.permuted.output, order, meanB, 'b'),
        ),
        h(
          'p',
          { class: `readout ${tiny ? 'same' : 'differ'}`, 'data-readout': 'maxAbsDiff', 'aria-live': 'polite' },
          h('span', { html: formulaHtml() }),
          ' ',
          h('strong', { 'data-value': String(check.maxAbsDiff) }, fmtSmall(check.maxAbsDiff)),
          h('span', { class: 'verdict' }, t(order.every((v, i) => v === i) ? 'outputs.identity' : tiny ? 'outputs.same' : 'outputs.differ')),
        ),
      ]);
      if (before) play(body, before);
      ctx.highlight?.refresh();
    };
  };
  w.update = async () => (await w.prepare())?.();
  return w;
}
