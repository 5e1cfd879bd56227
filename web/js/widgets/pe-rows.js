// The guide's point: "The" at position 0 and "the" at position 3 are one
// token, so one vector, until position information is added. Drawn as LLM
// Visualization draws it: per token three stacked blocks, token embedding +
// position vector = hidden state, one cell per dimension on a fixed colour
// scale; and a ruler on which the two tokens sit on one spot before and are
// pulled apart after, by the distance the core's vectors have. The numbers
// are in the tables beside (a toggle).
import { h, errorBox, row, fmt } from '../dom.js';
import { t } from '../i18n.js';
import { vectorTable, tableToggle } from './common.js';
import { rowsDiffer } from '../check.js';
import { diverging } from './clocks.js';
import { morphChildren } from './morph.js';

const DOMAIN = 2; // the colour scale's ends: −2 … +2 (clamped beyond)

const norm = (a, b) => Math.sqrt(a.reduce((s, v, i) => s + (v - b[i]) ** 2, 0));

function strip(values, label) {
  return h(
    'div',
    { class: 'sum-strip' },
    h('span', { class: 'sum-label' }, label),
    h(
      'span',
      { class: 'sum-cells', style: `grid-template-columns: repeat(${values.length}, minmax(0, 1fr))` },
      ...values.map((v) => {
        const [r, g, b] = diverging(v / DOMAIN);
        return h('span', { class: 'sum-cell', style: `background: rgb(${r},${g},${b})`, title: fmt(v), 'data-value': String(v) });
      }),
    ),
  );
}

export function mount(el, block, ctx) {
  const w = { state: {}, result: null, error: null };
  const body = h('div');
  const tables = h('div', { hidden: true });
  const toggle = tableToggle(tables);
  // The ruler's dots are kept, so a change of scheme slides them (CSS transition).
  const dotA = h('span', { class: 'ruler-dot a', 'aria-hidden': 'true' });
  const dotB = h('span', { class: 'ruler-dot b', 'aria-hidden': 'true' });
  const ruler = h('div', { class: 'ruler', 'aria-hidden': 'true' }, h('span', { class: 'ruler-line' }), dotA, dotB);
  const rulerText = h('p', { class: 'ruler-text', 'aria-live': 'polite' });
  el.append(body, h('div', { class: 'ruler-box' }, h('p', { class: 'ruler-title' }, t('perows.ruler_title')), ruler, rulerText), toggle, tables);
  // What is drawn: the settings it was drawn for (the sentence is the block's own).
  let shown = null;
  // Asks the core; resolves with the redraw (runner.js draws every widget in one go).
  w.prepare = async () => {
    const lab = ctx.lab();
    const [a, b] = block.rows;
    const key = JSON.stringify([lab.pe, lab.d, lab.seed]);
    if (key === shown && !w.error) return null;
    let r;
    try {
      r = await ctx.core.call('forward', { text: block.sentence, pe: lab.pe, dModel: lab.d, seed: lab.seed });
    } catch (e) {
      return () => {
        shown = null;
        w.error = e;
        body.replaceChildren(errorBox(e));
      };
    }
    return () => {
      const now = ctx.lab();
      if (JSON.stringify([now.pe, now.d, now.seed]) !== key) return; // a later update draws
      const same = (m) => !rowsDiffer(row(m, a), row(m, b), 0);
      const inputSame = same(r.input);
      const hiddenSame = same(r.hidden);
      const before = norm(row(r.input, a), row(r.input, b));
      const after = norm(row(r.hidden, a), row(r.hidden, b));
      w.result = { inputSame, hiddenSame, before, after };
      const name = (i) => `${i}: ${r.tokens[i]}`;
      const stack = (i) =>
        h(
          'figure',
          { class: 'sum-stack', 'data-row': String(i) },
          h('figcaption', {}, t('perows.stack_title', { token: r.tokens[i], pos: i })),
          strip(row(r.input, i), t('perows.token_part')),
          h('span', { class: 'sum-op', 'aria-hidden': 'true' }, '+'),
          strip(row(r.positional, i), t('perows.pos_part', { scheme: t(`scheme.${lab.pe}`) })),
          h('span', { class: 'sum-op', 'aria-hidden': 'true' }, '='),
          strip(row(r.hidden, i), t('perows.sum_part')),
        );
      // In place: the blocks' cells keep their elements, only colours and numbers change.
      morphChildren(body, [
        h('p', { class: 'sentence' }, block.sentence),
        h('div', { class: 'sum-stacks', role: 'img', 'aria-label': t(hiddenSame ? 'perows.aria_same' : 'perows.aria_differ', { a: name(a), b: name(b) }) }, stack(a), stack(b)),
        h('div', { class: 'hm-legend', 'aria-hidden': 'true' }, h('span', {}, `−${DOMAIN}`), h('span', { class: 'clock-legend-bar' }), h('span', {}, `+${DOMAIN}`)),
        h('p', { class: `readout ${inputSame ? 'same' : 'differ'}` }, t(inputSame ? 'perows.token_same' : 'perows.token_differ')),
        h('p', { class: `readout ${hiddenSame ? 'same' : 'differ'}` }, t(hiddenSame ? 'perows.same' : 'perows.differ')),
      ]);
      // The farthest two sinusoidal rows can be: every pair opposite, √(2D).
      const scale = Math.sqrt(2 * lab.d);
      dotB.style.left = `${8 + 84 * Math.min(1, after / scale)}%`;
      dotA.style.left = '8%';
      morphChildren(tables, [
        vectorTable(
          [
            { label: t('perows.before', { pos: name(a) }), values: row(r.input, a) },
            { label: t('perows.before', { pos: name(b) }), values: row(r.input, b) },
          ],
          { caption: t('perows.before_caption'), labelTitle: '' },
        ),
        vectorTable(
          [
            { label: t('perows.after', { pos: name(a) }), values: row(r.hidden, a) },
            { label: t('perows.after', { pos: name(b) }), values: row(r.hidden, b) },
          ],
          { caption: t('perows.after_caption', { scheme: t(`scheme.${lab.pe}`) }), labelTitle: '' },
        ),
      ]);
      const text = t('perows.ruler_text', { before: fmt(before), after: fmt(after), scheme: t(`scheme.${lab.pe}`) }) + (lab.pe === 'learned' ? ` ${t('perows.learned_note')}` : '');
      if (rulerText.textContent !== text) rulerText.textContent = text;
      shown = key;
      w.error = null;
    };
  };
  w.update = async () => (await w.prepare())?.();
  return w;
}
