// A heatmap with a colour-blind-safe palette (viridis), a legend, a text
// alternative, and a toggle that shows the same numbers as a table.
import { h, fmt } from '../dom.js';
import { t } from '../i18n.js';
import { deferDraw } from '../lazy-draw.js';

// Viridis, sampled at 9 points (matplotlib's values); linear in between.
const VIRIDIS = [
  [68, 1, 84], [71, 44, 122], [59, 81, 139], [44, 113, 142], [33, 144, 141],
  [39, 173, 129], [92, 200, 99], [170, 220, 50], [253, 231, 37],
];

export function viridis(u) {
  const x = Math.min(1, Math.max(0, Number.isFinite(u) ? u : 0)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x));
  const f = x - i;
  const c = VIRIDIS[i].map((v, k) => Math.round(v + f * (VIRIDIS[i + 1][k] - v)));
  // Dark text where it contrasts more than white (WCAG relative luminance).
  const lin = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  const L = 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
  return { css: `rgb(${c[0]},${c[1]},${c[2]})`, light: L > 0.179 };
}

// The diverging palette of the clocks (PuOr, clocks.js), for a quantity
// drawn there too: opts.diverging maps min…max onto −1…+1 of it, so that the
// same table has the same colours in both views.
const PUOR = [[179, 88, 6], [224, 130, 20], [253, 184, 99], [254, 224, 182], [247, 247, 247], [216, 218, 235], [178, 171, 210], [128, 115, 172], [84, 39, 136]];
export function puor(u) {
  const x = Math.min(1, Math.max(0, Number.isFinite(u) ? u : 0.5)) * (PUOR.length - 1);
  const i = Math.min(PUOR.length - 2, Math.floor(x));
  const f = x - i;
  const c = PUOR[i].map((v, k) => Math.round(v + f * (PUOR[i + 1][k] - v)));
  const lin = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  const L = 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
  return { css: `rgb(${c[0]},${c[1]},${c[2]})`, light: L > 0.179 };
}

let counter = 0;
// Above this many cells the grid of elements gets slow: draw on a canvas,
// and let the table show the top-left corner.
const MAX_CELLS = 6000;
const TABLE_CORNER = 48;

function bigHeatmap(values, opts) {
  const rows = values.length;
  const cols = values[0].length;
  const canvas = h('canvas', { width: cols, height: rows, class: 'hm-canvas', role: 'img', 'aria-label': t('heatmap.aria', { caption: opts.caption ?? '', rows, cols, min: fmt(opts.min, opts.digits), max: fmt(opts.max, opts.digits) }) });
  const g = canvas.getContext('2d');
  if (g) {
    const img = g.createImageData(cols, rows);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const m = /rgb\((\d+),(\d+),(\d+)\)/.exec((opts.diverging ? puor : viridis)((values[r][c] - opts.min) / opts.span).css);
        const k = (r * cols + c) * 4;
        img.data[k] = +m[1];
        img.data[k + 1] = +m[2];
        img.data[k + 2] = +m[3];
        img.data[k + 3] = 255;
      }
    }
    g.putImageData(img, 0, 0);
  }
  const nr = Math.min(rows, TABLE_CORNER);
  const nc = Math.min(cols, TABLE_CORNER);
  const corner = values.slice(0, nr).map((r) => r.slice(0, nc));
  const fig = heatmapTableOnly(corner, { ...opts, caption: `${opts.caption ?? ''} ${t('heatmap.corner', { rows: nr, cols: nc })}` });
  return h('figure', { class: 'heatmap big' }, opts.caption ? h('figcaption', {}, opts.caption) : null, canvas, h('div', { class: 'hm-legend', 'aria-hidden': 'true' }, h('span', {}, fmt(opts.min, opts.digits)), h('span', { class: opts.diverging ? 'hm-legend-bar diverging' : 'hm-legend-bar' }), h('span', {}, fmt(opts.max, opts.digits))), ...fig);
}

// The numbers as a table, hidden behind a toggle: [toggle, its scroll box].
// With opts.lazy only the table's caption is made here and its rows on first
// opening (a 50 × 50 table is 2,650 elements nobody reads until they ask).
function heatmapTableOnly(values, opts) {
  const cols = values[0].length;
  const tableBody = () => [
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, `${opts.rowTitle ?? ''} \\ ${opts.colTitle ?? ''}`), ...Array.from({ length: cols }, (_, c) => h('th', { scope: 'col' }, opts.colLabels ? opts.colLabels[c] : String(c))))),
    h('tbody', {}, ...values.map((r, i) => h('tr', {}, h('th', { scope: 'row' }, opts.rowLabels ? opts.rowLabels[i] : String(i)), ...r.map((v) => h('td', {}, fmt(v, opts.digits)))))),
  ];
  const tableBuilt = h('table', { class: 'data-table', id: `${opts.id}-table`, hidden: true, 'data-rows-drawn': opts.lazy ? 'false' : undefined }, h('caption', {}, opts.caption ?? ''), ...(opts.lazy ? [] : tableBody()));
  const toggle = h('button', { type: 'button', class: 'table-toggle', 'aria-expanded': 'false', 'aria-controls': `${opts.id}-table` }, t('heatmap.show_table'));
  toggle.addEventListener('click', () => {
    // The table it names (a redraw in place may have put another there, morph.js).
    const table = toggle.ownerDocument.getElementById(toggle.getAttribute('aria-controls')) ?? tableBuilt;
    const open = table.hidden;
    if (open && table === tableBuilt && table.dataset.rowsDrawn === 'false') {
      table.append(...tableBody());
      delete table.dataset.rowsDrawn;
    }
    table.hidden = !open;
    toggle.setAttribute('aria-expanded', String(open));
    toggle.textContent = t(open ? 'heatmap.hide_table' : 'heatmap.show_table');
  });
  return [toggle, h('div', { class: 'table-scroll', tabindex: '0' }, tableBuilt)];
}

// values: rows of numbers. opts: { caption, rowLabels, colLabels, rowTitle, colTitle, min, max, showValues, digits, highlightRows,
//   rowTokens, colTokens: the token (highlight.js) each row and column stands for: headers and cells
//     then take part in linked highlighting, the row headers are in the Tab order, and every cell
//     is keyed by its tokens so that a reorder slides it (motion.js, key prefix opts.flip);
//   masked(r, c): cells the causal mask hides (greyed),
//   diverging: the clocks' diverging palette (PuOr) instead of viridis,
//   colPositions: the columns are positions 0, 1, …: each column's label and cells carry
//     data-hl-pos (the position highlight, highlight.js),
//   lazy: the grid is drawn when it nears the viewport (lazy-draw.js) and the table's rows
//     when first opened; for heatmaps drawn anew, not redrawn in place (morph.js) }
export function heatmap(values, opts = {}) {
  const id = `hm${++counter}`;
  const rows = values.length;
  const cols = rows ? values[0].length : 0;
  let min = opts.min;
  let max = opts.max;
  if (min === undefined || max === undefined) {
    let lo = Infinity;
    let hi = -Infinity;
    for (const r of values) for (const v of r) if (Number.isFinite(v)) (lo = Math.min(lo, v)), (hi = Math.max(hi, v));
    if (min === undefined) min = lo;
    if (max === undefined) max = hi;
  }
  const span = max - min || 1;
  const digits = opts.digits ?? 3;
  if (rows * cols > MAX_CELLS) return bigHeatmap(values, { ...opts, min, max, span, digits, id });
  const showValues = opts.showValues ?? rows * cols <= 100;
  const linked = !!opts.rowTokens && !!opts.colTokens;
  const flip = opts.flip ?? id;
  const grid = h('div', {
    class: `heatmap-grid${showValues ? ' with-values' : ''}`,
    style: `grid-template-columns: max-content repeat(${cols}, minmax(var(--hm-min), 1fr))`,
    // Linked, the row headers are focusable: a group (an image's parts are not).
    role: linked ? 'group' : 'img',
    'data-flip-root': linked ? flip : undefined,
    'aria-label': t('heatmap.aria', { caption: opts.caption ?? '', rows, cols, min: fmt(min, digits), max: fmt(max, digits) }),
  });
  // The cells, drawn at once or (opts.lazy) when the grid nears the viewport (lazy-draw.js).
  const fillGrid = () => {
    grid.append(h('div', { class: 'hm-corner', 'aria-hidden': 'true' }));
    // Token labels ("5 追いかけ") are turned sideways as one line on a narrow screen rather than
    // overlap (style.css); a label cut short there ends in "…", its whole text in the title.
    const words = !!opts.colLabels && opts.colLabels.some((l) => !/^\d+$/.test(String(l)));
    const posOf = (c) => (opts.colPositions ? String(c) : undefined);
    for (let c = 0; c < cols; c++) grid.append(h('div', { class: `hm-col-label${words ? ' words' : ''}`, 'aria-hidden': 'true', title: words ? String(opts.colLabels[c]) : undefined, 'data-hl-pos': posOf(c), 'data-hl-token': linked ? String(opts.colTokens[c]) : undefined, 'data-flip': linked ? `${flip}:c${opts.colTokens[c]}` : undefined }, opts.colLabels ? opts.colLabels[c] : showValues || c % 8 === 0 ? String(c) : ''));
    for (let r = 0; r < rows; r++) {
      const hl = opts.highlightRows?.includes(r);
      const rowLabel = opts.rowLabels ? opts.rowLabels[r] : String(r);
      grid.append(
        linked
          ? h('div', { class: 'hm-row-label', tabindex: '0', role: 'button', 'aria-label': t('hl.row_aria', { label: rowLabel }), 'data-hl-token': String(opts.rowTokens[r]), 'data-flip': `${flip}:r${opts.rowTokens[r]}` }, rowLabel)
          : h('div', { class: `hm-row-label${hl ? ' hl' : ''}`, 'aria-hidden': 'true' }, rowLabel),
      );
      for (let c = 0; c < cols; c++) {
        const v = values[r][c];
        const col = (opts.diverging ? puor : viridis)((v - min) / span);
        const masked = !!opts.masked?.(r, c);
        grid.append(
          h(
            'div',
            {
              class: `hm-cell${col.light && !masked ? ' light' : ''}${masked ? ' masked' : ''}`,
              style: masked ? undefined : `background:${col.css}`,
              title: `${opts.rowLabels ? opts.rowLabels[r] : r}, ${opts.colLabels ? opts.colLabels[c] : c}: ${fmt(v, digits)}`,
              'aria-hidden': 'true',
              'data-hl-pos': posOf(c),
              'data-hl-row': linked ? String(opts.rowTokens[r]) : undefined,
              'data-hl-col': linked ? String(opts.colTokens[c]) : undefined,
              'data-flip': linked ? `${flip}:${opts.rowTokens[r]}:${opts.colTokens[c]}` : undefined,
            },
            // Numbers sit on a pale label so they stay readable on every colour.
            showValues && !masked ? h('span', { class: 'hm-value' }, fmt(v, digits === 3 && Math.abs(v) < 10 ? 2 : digits)) : '',
          ),
        );
      }
    }
  };
  const legend = h(
    'div',
    { class: 'hm-legend', 'aria-hidden': 'true' },
    h('span', {}, fmt(min, digits)),
    h('span', { class: opts.diverging ? 'hm-legend-bar diverging' : 'hm-legend-bar' }),
    h('span', {}, fmt(max, digits)),
  );
  const numbers = heatmapTableOnly(values, { ...opts, digits, id });
  const scroll = h('div', { class: 'hm-scroll', tabindex: '0' }, grid);
  if (opts.lazy) {
    // Until drawn, the empty grid keeps about the room the rows will take.
    grid.style.minHeight = `${rows + 1}rem`;
    deferDraw(scroll, () => {
      fillGrid();
      grid.style.minHeight = '';
    });
  } else fillGrid();
  return h(
    'figure',
    { class: 'heatmap' },
    opts.caption ? h('figcaption', {}, opts.caption) : null,
    opts.colTitle ? h('div', { class: 'hm-axis' }, `${opts.rowTitle ?? ''} ↓ / ${opts.colTitle} →`) : null,
    scroll,
    legend,
    ...numbers,
  );
}

// Rows of a [.., S, S] or [S, D] Matrix as plain arrays.
export function matrixRows(matrix, offset = 0, rows = matrix.shape[matrix.shape.length - 2], cols = matrix.shape[matrix.shape.length - 1]) {
  return Array.from({ length: rows }, (_, r) => Array.from(matrix.data.subarray(offset + r * cols, offset + (r + 1) * cols)));
}
