// Exercise 2's one line of algebra, softmax(PQKᵀPᵀ)·PV = P·softmax(QKᵀ)·V,
// with its P factors lit while the tokens are reordered, the permutation
// matrix P the learner has made drawn beside it, and the check that both
// sides agree, from the core's own numbers (its permutationCheck: Attention
// of PX computed afresh, and Attention(X) reordered by P).
import { h, fmtSmall } from '../dom.js';
import { t } from '../i18n.js';
import { hue } from './common.js';
import { tex } from '../rich.js';

// \htmlClass only (the line is this file's own, not an exercise's text).
// Two halves that wrap on a phone rather than scroll.
const LEFT = String.raw`\mathrm{softmax}\!\left(\htmlClass{alg-p}{P}\,QK^{\top}\htmlClass{alg-p}{P^{\top}}\right)\htmlClass{alg-p}{P}\,V`;
const RIGHT = String.raw`=\; \htmlClass{alg-p}{P}\cdot\mathrm{softmax}\!\left(QK^{\top}\right)V`;
const texHtml = (src) => tex(src, false, { htmlClass: true });

// Largest |Attention(PX)_pq − Attention(X)_{order[p], order[q]}| over heads:
// softmax(PQKᵀPᵀ) = P·softmax(QKᵀ)·Pᵀ, cell by cell.
export function weightsGap(check, order) {
  const a = check.original.attention;
  const b = check.permuted.attention;
  const [H, S] = a.shape;
  let m = 0;
  for (let hd = 0; hd < H; hd++)
    for (let p = 0; p < S; p++)
      for (let q = 0; q < S; q++) m = Math.max(m, Math.abs(b.data[(hd * S + p) * S + q] - a.data[(hd * S + order[p]) * S + order[q]]));
  return m;
}

export function algebra(check, order, tokens) {
  const S = order.length;
  const identity = order.every((v, i) => v === i);
  const wGap = weightsGap(check, order);
  const agree = check.maxAbsDiff < 1e-4 && wGap < 1e-4;
  // P's row p has its 1 in column order[p]: row p of PX is row order[p] of X.
  const matrix = h(
    'div',
    {
      class: 'p-matrix',
      style: `grid-template-columns: auto repeat(${S}, 1.5rem)`,
      role: 'img',
      'aria-label': t('algebra.p_aria', { rows: order.map((i, p) => t('algebra.p_row', { p: p + 1, i: i + 1, token: tokens[i] })).join(t('algebra.sep')) }),
    },
    h('span', {}),
    ...tokens.map((x, j) => h('span', { class: 'p-col', 'data-hl-token': String(j), title: x }, x)),
    ...order.flatMap((i, p) => [
      h('span', { class: 'p-row', 'data-hl-token': String(i), title: tokens[i] }, `${p + 1} ${tokens[i]}`),
      ...tokens.map((_, j) => h('span', { class: `p-cell${j === i ? ' one' : ''}${j === i && i !== p ? ' moved' : ''}`, style: j === i ? `--chip-hue:${hue(i)}` : undefined, 'data-hl-row': String(i), 'data-hl-col': String(j) }, j === i ? '1' : '0')),
    ]),
  );
  return h(
    'div',
    { class: `algebra${identity ? '' : ' permuted'}`, 'data-identity': String(identity) },
    h('p', { class: 'algebra-title' }, t('algebra.title')),
    h('div', { class: 'algebra-line' }, h('span', { html: texHtml(LEFT) }), h('span', { html: texHtml(RIGHT) })),
    h('p', { class: 'muted' }, t('algebra.why')),
    h('div', { class: 'algebra-p' }, matrix, h('p', { class: 'algebra-p-text' }, t(identity ? 'algebra.p_identity' : 'algebra.p_now', { order: order.map((i) => i + 1).join(', ') }))),
    h(
      'p',
      { class: `readout ${agree ? 'same' : 'differ'}`, 'data-readout': 'algebra' },
      h('span', { 'data-value': String(wGap) }, t('algebra.check_weights', { value: fmtSmall(wGap) })),
      ' ',
      h('span', { 'data-value': String(check.maxAbsDiff) }, t('algebra.check_outputs', { value: fmtSmall(check.maxAbsDiff) })),
      ' ',
      h('span', { class: 'verdict' }, t(agree ? 'algebra.agree' : 'algebra.disagree')),
    ),
  );
}
