// Add or concatenate? The seed's superposition claim made visible, every
// number from the core's superposition experiment: (1) the cosine of two
// random vectors, a histogram per width D on one scale, narrowing as 1/√D;
// (2) how often a token and a position are both read back out of their sum,
// rising with D; (3) the width budget of concatenation at GPT-2 small's 768:
// two halves of 384, each with the wider spread of the narrower space.
import { h, errorBox, fmt } from '../dom.js';
import { t } from '../i18n.js';
import { lineplot } from './lineplot.js';

const SVG = 'http://www.w3.org/2000/svg';
function s(tag, attrs = {}) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

const DIMS = [2, 8, 32, 128, 384, 768];

function histogram(row, peak) {
  const W = 200;
  const H = 90;
  const n = row.histogram.length;
  const total = row.histogram.reduce((a, b) => a + b, 0);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H + 16}`, class: 'cos-hist', 'aria-hidden': 'true' });
  row.histogram.forEach((c, b) => {
    const frac = c / total;
    const bh = (frac / peak) * H;
    svg.append(s('rect', { x: (b * W) / n + 0.5, y: H - bh, width: W / n - 1, height: bh, class: 'cos-bar' }));
  });
  svg.append(s('line', { x1: W / 2, y1: 0, x2: W / 2, y2: H, class: 'cos-zero' }));
  for (const [x, label] of [[0, '−1'], [W / 2, '0'], [W, '+1']]) {
    const tx = s('text', { x, y: H + 13, 'text-anchor': x === 0 ? 'start' : x === W ? 'end' : 'middle', class: 'cos-tick' });
    tx.textContent = label;
    svg.append(tx);
  }
  return h('figure', { class: 'cos-fig', 'data-d': String(row.dModel), 'data-std': String(row.cosineStd) }, h('figcaption', {}, t('super.hist_caption', { D: row.dModel, std: fmt(row.cosineStd) })), svg);
}

export function mount(el, block, ctx) {
  const w = { state: {}, result: null, error: null };
  const body = h('div', { class: 'superposition' });
  el.append(h('p', { class: 'widget-lead' }, t('super.lead')), body);
  let done = null;
  w.update = async () => {
    // The experiment does not depend on the lab's settings: run it once.
    if (done) return;
    try {
      const seed = block.seed ?? 0;
      const r = await ctx.core.call('callCore', { call: 'superposition', args: { dims: DIMS, vocab: 256, positions: 64, trials: 300, pairs: 3000, bins: 40, seed } });
      const rows = r.rows;
      const peak = Math.max(...rows.flatMap((row) => row.histogram.map((c) => c / row.histogram.reduce((a, b) => a + b, 0))));
      const at = (D) => rows.find((row) => row.dModel === D);
      const xs = rows.map((_, i) => i);
      w.result = { rows };
      body.replaceChildren(
        h('h3', {}, t('super.hist_title')),
        h('div', { class: 'cos-grid', role: 'img', 'aria-label': t('super.hist_aria', { list: rows.map((row) => `D = ${row.dModel}: ${fmt(row.cosineStd)}`).join(', ') }) }, ...rows.map((row) => histogram(row, peak))),
        h('p', {}, t('super.hist_note')),
        h('h3', {}, t('super.recover_title')),
        lineplot(
          [
            { label: t('super.token_series'), xs, ys: rows.map((row) => row.tokenRecovery) },
            { label: t('super.position_series'), xs, ys: rows.map((row) => row.positionRecovery) },
          ],
          { caption: t('super.recover_caption'), xLabel: t('super.width'), yLabel: t('super.rate'), yMin: 0, yMax: 1, xTicks: xs, xTickLabel: (i) => String(rows[i].dModel), sampleEvery: 1 },
        ),
        h('p', { class: 'readout', 'aria-live': 'polite' }, t('super.recover_text', { small: rows[1].dModel, smallTok: fmt(rows[1].tokenRecovery * 100, 0), big: at(768).dModel, bigTok: fmt(at(768).tokenRecovery * 100, 0), bigPos: fmt(at(768).positionRecovery * 100, 0) })),
        h('h3', {}, t('super.budget_title')),
        h(
          'div',
          { class: 'budget' },
          h('div', { class: 'budget-row' }, h('span', { class: 'budget-label' }, t('super.budget_add')), h('span', { class: 'budget-bar add' }, h('span', {}, t('super.budget_shared', { D: 768 })))),
          h('div', { class: 'budget-row' }, h('span', { class: 'budget-label' }, t('super.budget_concat')), h('span', { class: 'budget-bar concat' }, h('span', { class: 'half tok' }, t('super.budget_tok', { D: 384 })), h('span', { class: 'half pos' }, t('super.budget_pos', { D: 384 })))),
        ),
        h('p', {}, t('super.budget_text', { s768: fmt(at(768).cosineStd), s384: fmt(at(384).cosineStd) })),
      );
      done = true;
      w.error = null;
    } catch (e) {
      w.result = null;
      w.error = e;
      body.replaceChildren(errorBox(e));
    }
  };
  return w;
}
