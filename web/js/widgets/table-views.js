// The views of one position table (figures from the core's tableAnalyze /
// tableSummary): shape and wall, row norms, cosine row-similarity heatmap,
// mean neighbour similarity by distance, and the rows on the first two
// principal components coloured by position (the helix of a real W_p).
import { h, fmt } from '../dom.js';
import { t } from '../i18n.js';
import { heatmap, matrixRows, viridis } from './heatmap.js';
import { lineplot } from './lineplot.js';
import { maxAbs } from '../extent.js';

const SVG = 'http://www.w3.org/2000/svg';
function s(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

const pct = (x) => `${fmt(100 * x, 1)}%`;

// Points (pc1, pc2) of every row, coloured dark → yellow along the positions.
export function pcaScatter(summary, caption) {
  const [rows] = summary.shape;
  const proj = summary.pca.projection;
  const k = proj.shape[1];
  const xs = Array.from({ length: rows }, (_, p) => proj.data[p * k]);
  const ys = Array.from({ length: rows }, (_, p) => (k > 1 ? proj.data[p * k + 1] : 0));
  const W = 320;
  const pad = 14;
  // A loop, not Math.max(...xs): 65,536 rows would overflow the call stack.
  const span = Math.max(1e-12, maxAbs(xs), maxAbs(ys));
  const X = (x) => W / 2 + (x / span) * (W / 2 - pad);
  const Y = (y) => W / 2 - (y / span) * (W / 2 - pad);
  const svg = s('svg', { viewBox: `0 0 ${W} ${W}`, class: 'pca-scatter', role: 'img', 'aria-label': t('table.pca_aria', { n: rows }) });
  svg.append(s('line', { x1: pad, x2: W - pad, y1: W / 2, y2: W / 2, class: 'pca-axis' }), s('line', { y1: pad, y2: W - pad, x1: W / 2, x2: W / 2, class: 'pca-axis' }));
  const r = rows > 400 ? 2 : 3.5;
  for (let p = 0; p < rows; p++) {
    // Never a NaN coordinate: a point that cannot be placed is left out (the
    // projection is double, so a finite table always gives finite points).
    if (!Number.isFinite(X(xs[p])) || !Number.isFinite(Y(ys[p]))) continue;
    const c = s('circle', { cx: X(xs[p]).toFixed(2), cy: Y(ys[p]).toFixed(2), r, fill: viridis(rows > 1 ? p / (rows - 1) : 0).css, 'data-pos': p, 'data-pc1': xs[p], 'data-pc2': ys[p] });
    const title = s('title', {});
    title.textContent = `${t('table.pos')} ${p}: (${fmt(xs[p], 3)}, ${fmt(ys[p], 3)})`;
    c.append(title);
    svg.append(c);
  }
  return h('figure', { class: 'pca' }, h('figcaption', {}, caption), svg, h('div', { class: 'hm-legend', 'aria-hidden': 'true' }, h('span', {}, '0'), h('span', { class: 'hm-legend-bar' }), h('span', {}, String(rows - 1))));
}

// kind: 'table' | 'sinusoidal' (data-kind on the panel, for tests and styles).
// The similarity heatmap is lazy (heatmap.js): its grid is drawn when it nears
// the viewport, its table of numbers when first opened.
export function tableViews(summary, { title, kind, note }) {
  const [rows, cols] = summary.shape;
  const seq = (n, from = 0) => Array.from({ length: n }, (_, i) => i + from);
  const nb = summary.neighbour;
  const n = summary.heatmapRows.length;
  const explained = summary.pca.explained;
  const two = (explained[0] ?? 0) + (explained[1] ?? 0);
  const labels = summary.heatmapRows.map(String);
  return h(
    'section',
    { class: 'panel table-views', 'data-kind': kind, 'data-rows': rows, 'data-cols': cols },
    h('h4', { class: 'sub-title' }, title),
    note ? h('p', { class: 'muted table-source' }, note) : null,
    h('p', { class: 'table-shape' }, t('table.shape', { rows, cols, last: rows - 1 })),
    lineplot([{ label: t('table.norm'), xs: seq(rows), ys: summary.norms }], { caption: t('table.norms'), xLabel: t('table.pos'), yMin: 0, xMin: 0, xMax: Math.max(rows, Math.round(rows * 1.1)), wall: rows, wallLabel: t('wall.no_rows', { rows }), narrow: true }),
    heatmap(matrixRows(summary.similarity), { caption: n === rows ? t('table.heatmap_all', { n: rows }) : t('table.heatmap_some', { k: n, n: rows }), min: -1, max: 1, rowLabels: labels, colLabels: labels, rowTitle: t('table.pos'), colTitle: t('table.pos'), digits: 2, lazy: true }),
    nb.length ? lineplot([{ label: t('table.similarity'), xs: seq(nb.length, 1), ys: nb }], { caption: t('table.neighbour'), xLabel: t('table.distance'), narrow: true }) : null,
    pcaScatter(summary, t('table.pca', { explained: pct(two) })),
    h('p', { class: 'table-explained' }, t('table.explained', { list: explained.map((e, i) => `PC${i + 1} ${pct(e)}`).join(', ') })),
    // The PCA's sampling rule, said whenever it left rows out.
    summary.pca.rows.length < rows ? h('p', { class: 'table-pca-sample' }, t('table.pca_sampled', { m: summary.pca.rows.length, n: rows, n1: rows - 1, m1: summary.pca.rows.length - 1 })) : null,
    summary.pca.converged ? null : h('p', { class: 'table-pca-unsettled' }, t('table.pca_not_converged', { steps: summary.pca.iterations })),
  );
}
