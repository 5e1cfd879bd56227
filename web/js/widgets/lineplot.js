// Line plot in SVG (Okabe–Ito colours plus dash patterns, so lines differ
// without colour), with a table toggle of sampled values.
import { scaleLinear } from 'd3-scale';
import { h, fmt } from '../dom.js';
import { t } from '../i18n.js';
import { extent } from '../extent.js';

const COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9'];
const DASHES = ['', '6 3', '2 3', '8 3 2 3', '', '4 4'];
const SVG = 'http://www.w3.org/2000/svg';

function s(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

let counter = 0;

// A series' key mark (its colour, solid or dashed), as the legend draws it: for lists that name the series elsewhere.
export const swatch = (k) => h('span', { class: 'lp-swatch', style: `border-top: 3px ${DASHES[k % DASHES.length] ? 'dashed' : 'solid'} ${COLOURS[k % COLOURS.length]}`, 'aria-hidden': 'true' });

// series: [{ label, xs, ys, style?, key? }] (key: a method name, linked by method-link.js) (style: an index into the palette, so a
// series keeps its colour when others are left out; default its own index); opts: { caption, xLabel, yLabel, xMin, xMax, yMin, yMax, cursor, wall, sampleEvery,
//   xTicks: [x…] (default: the ends and the middle), xTickLabel: x → text (ticks and the table), shade: { from, to, label } (a band, e.g. the lengths a model was trained on), note: a line in the middle of the frame,
//   height: the drawing's height in its units (default 240 on a phone, 300 wide; the width stays, so the type keeps its size) }
export function lineplot(series, opts = {}) {
  const id = `lp${++counter}`;
  // Drawn narrower on a phone, so that the same font sizes come out large
  // enough there (ticks ≥ 11 px, labels ≥ 12 px at 390 px wide).
  // opts.narrow: a plot that stays narrow at any page width (a half-width panel).
  const phone = !!opts.narrow || (typeof matchMedia === 'function' && matchMedia('(max-width: 560px)').matches);
  const W = phone ? 340 : 800;
  const H = opts.height ?? (phone ? 240 : 300);
  const pad = { l: phone ? 46 : 52, r: 12, t: 10, b: 38 };
  const allX = series.flatMap((q) => q.xs);
  const allY = series.flatMap((q) => q.ys);
  // Ranges by a loop (a spread over 65,536 values overflows the call stack),
  // over finite values only: a non-finite value is left out of the line (the
  // line breaks there) and never becomes a NaN coordinate.
  const ex = extent(allX);
  const ey = extent(allY);
  const xMin = opts.xMin ?? (ex.finite ? ex.min : 0);
  const xMax = opts.xMax ?? (ex.finite ? ex.max : 1);
  const yMin = opts.yMin ?? (ey.finite ? ey.min : 0);
  const yMax = opts.yMax ?? (ey.finite ? ey.max : 1);
  const X = scaleLinear().domain([xMin, xMax === xMin ? xMin + 1 : xMax]).range([pad.l, W - pad.r]);
  const Y = scaleLinear().domain([yMin, yMax === yMin ? yMin + 1 : yMax]).range([H - pad.b, pad.t]);
  // A range taken from the data ends on round numbers, so the ends have ticks too.
  // Fewer ticks on a low drawing (a phone's live chart), so their labels keep apart.
  const yCount = H < 200 ? 2 : phone ? 4 : 5;
  if (opts.yMin === undefined && opts.yMax === undefined) Y.nice(yCount);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'lineplot', role: 'img', 'aria-label': t('plot.aria', { caption: opts.caption ?? '', count: series.length }) });
  svg.append(s('rect', { x: pad.l, y: pad.t, width: W - pad.l - pad.r, height: H - pad.t - pad.b, class: 'lp-frame' }));
  // Round-numbered ticks (d3's nice steps) inside the range, with grid lines.
  const yTicks = Y.ticks(yCount);
  const yFormat = Y.tickFormat(yCount);
  for (const yv of yTicks) {
    svg.append(s('line', { x1: pad.l, x2: W - pad.r, y1: Y(yv), y2: Y(yv), class: 'lp-grid' }));
    const tx = s('text', { x: pad.l - 5, y: Y(yv) + 4, class: 'lp-tick', 'text-anchor': 'end' });
    tx.textContent = yFormat(yv).replace('-', '−');
    svg.append(tx);
  }
  const xFormat = X.tickFormat(phone ? 4 : 6);
  for (const xv of opts.xTicks ?? X.ticks(phone ? 4 : 6)) {
    // The last tick ends at the plot's right edge rather than running past it (clipped).
    const tx = s('text', { x: X(xv), y: H - pad.b + 15, class: 'lp-tick', 'text-anchor': X(xv) > W - pad.r - 24 ? 'end' : 'middle' });
    tx.textContent = opts.xTickLabel ? opts.xTickLabel(xv) : opts.xTicks ? String(xv) : xFormat(xv);
    svg.append(tx);
  }
  if (opts.xLabel) {
    const tx = s('text', { x: (W + pad.l) / 2, y: H - 3, class: 'lp-label', 'text-anchor': 'middle' });
    tx.textContent = opts.xLabel;
    svg.append(tx);
  }
  if (opts.wall !== undefined && opts.wall <= xMax) {
    svg.append(s('rect', { x: X(opts.wall), y: pad.t, width: Math.max(0, X(xMax) - X(opts.wall)), height: H - pad.t - pad.b, class: 'lp-wall' }));
    // In the band past the wall when it fits there (14 px bold: about 8.4 units a Latin
    // character, 14 a CJK one); else ending at the wall, pointing into the band, so that it is
    // never cut at the plot's edge (a table's norms end 10 % past the wall: "no r…").
    const label = opts.wallLabel ?? '';
    const width = [...label].reduce((w, c) => w + (c.codePointAt(0) >= 0x2e80 ? 14 : 8.4), 0);
    const fits = X(xMax) - X(opts.wall) - 8 >= width;
    const tx = s('text', { x: fits ? X(opts.wall) + 4 : X(opts.wall) - 4, y: pad.t + 14, class: 'lp-wall-label', 'text-anchor': fits ? 'start' : 'end' });
    tx.textContent = fits || !label ? label : `${label} →`;
    svg.append(tx);
  }
  if (opts.shade) {
    const x0 = X(Math.max(xMin, opts.shade.from));
    const x1 = X(Math.min(xMax, opts.shade.to));
    svg.append(s('rect', { x: x0, y: pad.t, width: Math.max(0, x1 - x0), height: H - pad.t - pad.b, class: 'lp-shade' }));
    const tx = s('text', { x: x0 + 4, y: H - pad.b - 6, class: 'lp-shade-label' });
    tx.textContent = opts.shade.label ?? '';
    svg.append(tx);
  }
  series.forEach((q, i) => {
    const k = q.style ?? i;
    // One polyline per run of drawable points (both coordinates finite on screen).
    let run = [];
    const flush = () => {
      if (run.length) {
        const line = s('polyline', { points: run.join(' '), fill: 'none', stroke: COLOURS[k % COLOURS.length], 'stroke-width': 1.6, 'stroke-dasharray': DASHES[k % DASHES.length] });
        if (q.key !== undefined) line.setAttribute('data-method-key', q.key);
        svg.append(line);
      }
      run = [];
    };
    for (let j = 0; j < q.xs.length; j++) {
      const px = X(q.xs[j]);
      const py = Y(q.ys[j]);
      if (Number.isFinite(px) && Number.isFinite(py)) run.push(`${px.toFixed(1)},${py.toFixed(1)}`);
      else flush();
    }
    flush();
  });
  // opts.note: a line in the middle of the frame (an empty plot says what will be drawn there).
  // Lines split at "\n" (SVG text does not wrap), centred on the frame.
  if (opts.note) {
    const lines = String(opts.note).split('\n');
    const cx = (pad.l + W - pad.r) / 2;
    const tx = s('text', { x: cx, y: (pad.t + H - pad.b) / 2 - ((lines.length - 1) * 18) / 2 + 5, class: 'lp-note', 'text-anchor': 'middle' });
    lines.forEach((line, i) => {
      const span = s('tspan', { x: cx, dy: i ? 18 : 0 });
      span.textContent = line;
      tx.append(span);
    });
    svg.append(tx);
  }
  if (opts.cursor !== undefined) svg.append(s('line', { x1: X(opts.cursor), x2: X(opts.cursor), y1: pad.t, y2: H - pad.b, class: 'lp-cursor' }));

  const legend = h(
    'ul',
    { class: 'lp-legend' },
    ...series.map((q, i) => {
      const k = q.style ?? i;
      // A series with a key (q.key) links to its method elsewhere on the page (method-link.js): focusable, so Tab reaches it.
      return h('li', q.key !== undefined ? { 'data-method-key': q.key, tabindex: '0' } : {}, swatch(k), q.label);
    }),
  );
  // The table samples the x axis so it stays readable.
  const every = opts.sampleEvery ?? Math.max(1, Math.ceil((series[0]?.xs.length ?? 1) / 24));
  const sampleIdx = (series[0]?.xs ?? []).map((_, j) => j).filter((j) => j % every === 0);
  const tableBuilt = h(
    'table',
    { class: 'data-table', id: `${id}-table`, hidden: true },
    h('caption', {}, opts.caption ?? ''),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, opts.xLabel ?? 'x'), ...series.map((q) => h('th', { scope: 'col' }, q.label)))),
    h('tbody', {}, ...sampleIdx.map((j) => h('tr', {}, h('th', { scope: 'row' }, opts.xTickLabel ? opts.xTickLabel(series[0].xs[j]) : String(series[0].xs[j])), ...series.map((q) => h('td', {}, q.ys[j] === undefined ? '—' : fmt(q.ys[j], 3)))))),
  );
  const toggle = h('button', { type: 'button', class: 'table-toggle', 'aria-expanded': 'false', 'aria-controls': `${id}-table` }, t('heatmap.show_table'));
  toggle.addEventListener('click', () => {
    // The table it names (a redraw in place may have put another there, morph.js).
    const table = toggle.ownerDocument.getElementById(toggle.getAttribute('aria-controls')) ?? tableBuilt;
    const open = table.hidden;
    table.hidden = !open;
    toggle.setAttribute('aria-expanded', String(open));
    toggle.textContent = t(open ? 'heatmap.hide_table' : 'heatmap.show_table');
  });
  return h('figure', { class: 'lineplot-figure' }, opts.caption ? h('figcaption', {}, opts.caption) : null, svg, legend, toggle, h('div', { class: 'table-scroll', tabindex: '0' }, tableBuilt));
}
