// The 1024 wall as one picture (issue 24): a position axis 0 … max shared by
// three lanes — the learned table, sinusoidal, RoPE — each drawing the same few
// dimensions across positions. The learned lane's rows end at its last row
// (1023 for GPT-2): past it the lane is hatched, "no rows", and a wall runs
// down through every lane there. The slider's position is a cursor through all
// three, with a dot where it meets each line (a cross where the table has no
// row). Every value is the core's (wall.js computes them); this only draws.
// Also the attention outputs of the GPT-2-shaped run, drawn as bars.
import { scaleLinear } from 'd3-scale';
import { h, fmt } from '../dom.js';
import { t } from '../i18n.js';

const SVG = 'http://www.w3.org/2000/svg';
const COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7'];
const DASHES = ['', '6 3', '2 3', '8 3 2 3'];

function s(tag, attrs, text) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

const phone = () => typeof matchMedia === 'function' && matchMedia('(max-width: 560px)').matches;

// curves: { rows, learned, sinusoidal, rope } as wall.js's computeCurves (each a
// list of { label, xs, ys }); pos: the slider's position; max: the axis's end.
export function wallPicture(curves, { pos, max, id }) {
  const narrow = phone();
  const W = narrow ? 360 : 800;
  const laneH = narrow ? 62 : 78;
  const gap = narrow ? 30 : 30;
  // Room above the lanes for the cursor's label, clear of the first lane's title.
  const pad = { l: narrow ? 40 : 48, r: 12, t: 44, b: 34 };
  // On a phone the short titles, so that none runs past the picture's edge.
  const short = narrow ? '_short' : '';
  const lanes = [
    { key: 'learned', title: t(`wall.pic_lane_learned${short}`, { rows: curves.rows }), series: curves.learned, end: curves.rows - 1 },
    { key: 'sinusoidal', title: t(`wall.pic_lane_sinusoidal${short}`), series: curves.sinusoidal, end: max },
    { key: 'rope', title: t(`wall.pic_lane_rope${short}`), series: curves.rope, end: max },
  ];
  const H = pad.t + lanes.length * (laneH + gap) - gap + pad.b;
  const X = scaleLinear().domain([0, max]).range([pad.l, W - pad.r]);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'wall-svg', role: 'img', 'aria-label': t('wall.pic_aria', { rows: curves.rows, last: curves.rows - 1, pos, max }) });
  const defs = s('defs', {});
  const pattern = s('pattern', { id: `${id}-nohatch`, width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' });
  pattern.append(s('rect', { width: 6, height: 6, fill: '#fbecea' }), s('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: '#a3261b', 'stroke-width': 1.5, 'stroke-opacity': 0.45 }));
  defs.append(pattern);
  svg.append(defs);
  const xWall = X(curves.rows - 0.5);
  lanes.forEach((lane, k) => {
    const top = pad.t + k * (laneH + gap);
    const g = s('g', { class: `wall-lane wall-lane-${lane.key}`, 'data-scheme': lane.key, 'data-last': lane.end });
    svg.append(g);
    // A fixed range per lane from its own values (symmetric about 0), labelled at its ends.
    let m = 0;
    for (const q of lane.series) for (const v of q.ys) if (Number.isFinite(v)) m = Math.max(m, Math.abs(v));
    m = m || 1;
    const Y = scaleLinear().domain([-m, m]).range([top + laneH, top]);
    g.append(s('text', { x: pad.l, y: top - 7, class: 'wall-lane-title' }, lane.title));
    g.append(s('rect', { x: pad.l, y: top, width: W - pad.l - pad.r, height: laneH, class: 'lp-frame' }));
    g.append(s('line', { x1: pad.l, x2: W - pad.r, y1: Y(0), y2: Y(0), class: 'lp-grid' }));
    for (const v of [m, -m]) g.append(s('text', { x: pad.l - 4, y: Y(v) + (v > 0 ? 10 : -2), 'text-anchor': 'end', class: 'lp-tick' }, fmt(v, m < 0.1 ? 3 : 1).replace('-', '−')));
    if (lane.end < max) {
      // No rows past the table's last one.
      g.append(s('rect', { x: xWall, y: top, width: X(max) - xWall, height: laneH, fill: `url(#${id}-nohatch)`, class: 'wall-norows' }));
      g.append(s('text', { x: (xWall + X(max)) / 2, y: top + laneH / 2 + 5, 'text-anchor': 'middle', class: 'wall-norows-label' }, t(narrow ? 'wall.pic_no_rows_short' : 'wall.no_rows', { rows: curves.rows })));
    }
    lane.series.forEach((q, j) => {
      const pts = [];
      for (let i = 0; i < q.xs.length; i++) if (Number.isFinite(q.ys[i])) pts.push(`${X(q.xs[i]).toFixed(1)},${Y(q.ys[i]).toFixed(1)}`);
      g.append(s('polyline', { points: pts.join(' '), fill: 'none', stroke: COLOURS[j % COLOURS.length], 'stroke-width': 1.2, 'stroke-dasharray': DASHES[j % DASHES.length], 'data-dim': q.label }));
    });
    // Where the cursor meets each line: the value there, or a cross where there is no row.
    if (pos <= lane.end) {
      lane.series.forEach((q, j) => {
        // The nearest drawn position (RoPE is drawn every other position).
        let best = 0;
        for (let i = 0; i < q.xs.length; i++) if (Math.abs(q.xs[i] - pos) < Math.abs(q.xs[best] - pos)) best = i;
        if (Number.isFinite(q.ys[best])) g.append(s('circle', { cx: X(pos), cy: Y(q.ys[best]), r: 3.5, fill: COLOURS[j % COLOURS.length], stroke: '#fff', 'stroke-width': 1, class: 'wall-dot' }));
      });
    } else {
      const cy = top + laneH / 2;
      const d = 7;
      g.append(s('path', { d: `M${X(pos) - d},${cy - d}L${X(pos) + d},${cy + d}M${X(pos) - d},${cy + d}L${X(pos) + d},${cy - d}`, class: 'wall-cross' }));
    }
  });
  // The wall itself, down through every lane, and the table's last row named.
  const yTop = pad.t - 4;
  const yBottom = pad.t + lanes.length * (laneH + gap) - gap;
  svg.append(s('line', { x1: xWall, x2: xWall, y1: yTop, y2: yBottom + 4, class: 'wall-line' }));
  const lastLabel = s('text', { x: xWall - 4, y: yBottom + 16, 'text-anchor': 'end', class: 'wall-line-label' }, t('wall.pic_last_row', { last: curves.rows - 1 }));
  svg.append(lastLabel);
  // The shared position axis.
  const ticks = narrow ? [0, curves.rows, max] : [0, 512, curves.rows, 1536, max];
  for (const x of [...new Set(ticks)].filter((x) => x <= max && Math.abs(X(x) - xWall) > 30)) svg.append(s('text', { x: X(x), y: yBottom + 16, 'text-anchor': x === max ? 'end' : x === 0 ? 'start' : 'middle', class: 'lp-tick' }, String(x)));
  svg.append(s('text', { x: (W + pad.l) / 2, y: H - 3, 'text-anchor': 'middle', class: 'lp-label' }, t('pe.pos')));
  // The cursor through all lanes, its position above them.
  const past = pos >= curves.rows;
  svg.append(s('line', { x1: X(pos), x2: X(pos), y1: yTop, y2: yBottom, class: `wall-cursor${past ? ' past' : ''}` }));
  const anchor = X(pos) > W - 120 ? 'end' : X(pos) < pad.l + 60 ? 'start' : 'middle';
  svg.append(s('text', { x: X(pos), y: 16, 'text-anchor': anchor, class: `wall-cursor-label${past ? ' past' : ''}` }, t('wall.pic_cursor', { pos })));
  const legend = h('ul', { class: 'lp-legend' }, ...curves.sinusoidal.map((q, j) => h('li', {}, h('span', { class: `lp-swatch wall-swatch-${j}`, 'aria-hidden': 'true' }), q.label)));
  return h('figure', { class: 'wall-picture', 'data-pos': String(pos), 'data-rows': String(curves.rows) }, h('figcaption', {}, t('wall.pic_caption', { rows: curves.rows, last: curves.rows - 1 })), svg, legend);
}

// The GPT-2-shaped run's outputs (the last token's first columns per scheme)
// as bars on one fixed scale; a scheme that failed at this length is a
// hatched box saying why. rowsOut: [{ pe, ok, last: [numbers], … }].
export function outputBars(rowsOut, { S, label, failedText, id }) {
  const narrow = phone();
  const W = narrow ? 360 : 800;
  const groupW = (W - 60) / rowsOut.length;
  const H = 170;
  const pad = { l: 48, t: 12, b: 40 };
  let m = 0;
  for (const r of rowsOut) if (r.ok) for (const v of r.last) m = Math.max(m, Math.abs(v));
  m = m || 1;
  const Y = scaleLinear().domain([-m, m]).range([H - pad.b, pad.t]);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'gpt2-bars', role: 'img', 'aria-label': t('wall.gpt2_bars_aria', { S }) });
  const defs = s('defs', {});
  const pattern = s('pattern', { id: `${id}-barhatch`, width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' });
  pattern.append(s('rect', { width: 6, height: 6, fill: '#fbecea' }), s('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: '#a3261b', 'stroke-width': 1.5, 'stroke-opacity': 0.45 }));
  defs.append(pattern);
  svg.append(defs);
  svg.append(s('line', { x1: pad.l, x2: W - 8, y1: Y(0), y2: Y(0), class: 'lp-frame' }));
  for (const v of [m, 0, -m]) svg.append(s('text', { x: pad.l - 4, y: Y(v) + 4, 'text-anchor': 'end', class: 'lp-tick' }, fmt(v, 2).replace('-', '−')));
  rowsOut.forEach((r, k) => {
    const x0 = pad.l + 8 + k * groupW;
    const g = s('g', { class: 'gpt2-bar-group', 'data-scheme': r.pe, 'data-ok': String(r.ok) });
    svg.append(g);
    g.append(s('text', { x: x0 + (groupW - 16) / 2, y: H - 10, 'text-anchor': 'middle', class: 'lp-label' }, label(r.pe)));
    if (!r.ok) {
      g.append(s('rect', { x: x0, y: pad.t, width: groupW - 16, height: H - pad.t - pad.b, fill: `url(#${id}-barhatch)`, class: 'wall-norows' }));
      g.append(s('text', { x: x0 + (groupW - 16) / 2, y: (H - pad.b + pad.t) / 2 + 5, 'text-anchor': 'middle', class: 'wall-norows-label' }, failedText(r)));
      return;
    }
    const bw = (groupW - 16) / r.last.length;
    r.last.forEach((v, j) => {
      const y = Math.min(Y(v), Y(0));
      g.append(s('rect', { x: x0 + j * bw + 2, y, width: bw - 4, height: Math.max(1, Math.abs(Y(v) - Y(0))), fill: COLOURS[j % COLOURS.length], class: 'gpt2-bar', 'data-dim': j, 'data-value': v }));
      if (!narrow) g.append(s('text', { x: x0 + j * bw + bw / 2, y: v >= 0 ? y - 3 : y + Math.abs(Y(v) - Y(0)) + 12, 'text-anchor': 'middle', class: 'lp-tick gpt2-bar-value' }, fmt(v, 3).replace('-', '−')));
    });
  });
  return svg;
}
