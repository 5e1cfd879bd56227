// A histogram as a small SVG (no library), with its data table beside it:
// the numbers a chart shows are always readable as text too.
import { h } from './h.js';
import { t } from '../i18n.js';

const SVG = 'http://www.w3.org/2000/svg';
function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

const num = (x, d = 2) => (x == null ? '—' : Number.isInteger(x) ? String(x) : x.toFixed(d));

// bins: [{from, to, count}]; stats: {n, mean, median, sd}.
export function histogramFigure({ id, title, bins, stats, max }) {
  const W = 320;
  const H = 150;
  const pad = { l: 30, r: 8, t: 8, b: 26 };
  const top = Math.max(1, ...bins.map((b) => b.count));
  const bw = (W - pad.l - pad.r) / bins.length;
  const y = (c) => pad.t + (H - pad.t - pad.b) * (1 - c / top);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'hist', role: 'img', 'aria-labelledby': `${id}-cap` });
  svg.append(s('line', { x1: pad.l, y1: H - pad.b, x2: W - pad.r, y2: H - pad.b, stroke: '#555' }));
  svg.append(s('text', { x: pad.l - 4, y: y(top) + 4, 'text-anchor': 'end', 'font-size': 10 }, String(top)));
  svg.append(s('text', { x: pad.l - 4, y: H - pad.b, 'text-anchor': 'end', 'font-size': 10 }, '0'));
  bins.forEach((b, i) => {
    const x = pad.l + i * bw;
    if (b.count) svg.append(s('rect', { x: x + 1, y: y(b.count), width: bw - 2, height: H - pad.b - y(b.count), fill: '#3b6fb6' }));
  });
  svg.append(s('text', { x: pad.l, y: H - 8, 'font-size': 10 }, '0'));
  svg.append(s('text', { x: W - pad.r, y: H - 8, 'font-size': 10, 'text-anchor': 'end' }, num(max)));
  if (stats.mean != null && max > 0) {
    const mx = pad.l + ((W - pad.l - pad.r) * stats.mean) / max;
    svg.append(s('line', { x1: mx, y1: pad.t, x2: mx, y2: H - pad.b, stroke: '#c0392b', 'stroke-dasharray': '4 3' }));
  }
  const table = h(
    'table',
    { class: 'data-table' },
    h('caption', {}, t('instructor.hist_table', { title })),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('instructor.bin')), h('th', { scope: 'col' }, t('instructor.learners')))),
    h('tbody', {}, ...bins.map((b, i) => h('tr', {}, h('th', { scope: 'row' }, `${num(b.from)}–${num(b.to)}${i === bins.length - 1 ? '' : '⁻'}`), h('td', {}, String(b.count))))),
  );
  return h(
    'figure',
    { class: 'hist-figure' },
    h('figcaption', { id: `${id}-cap` }, `${title}: ${t('instructor.stats_line', { count: stats.n, mean: num(stats.mean), median: num(stats.median), sd: num(stats.sd) })}`),
    svg,
    h('details', {}, h('summary', {}, t('instructor.data_table')), h('div', { class: 'table-scroll', tabindex: '0', role: 'region', 'aria-label': t('instructor.hist_table', { title }) }, table)),
  );
}
