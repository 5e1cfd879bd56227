// RoPE: q and k of one pair of dimensions (2i, 2i+1) drawn as 2-D arrows
// that turn with their positions m and n; a shift s moves both, so both
// arrows turn by s·θ_i and the angle between them — and the score — stay put.
// Every number is the core's: ropeCheck gives q, k and the full scores
// ⟨R_m q, R_n k⟩ and ⟨R_{m+s} q, R_{n+s} k⟩; ropeRotate gives the rotated
// vectors. The page only turns a pair (x, y) into an arrow and an angle, and
// adds up the pair's two products for its share of the score.
import { h, errorBox, fmt, fmtSmall } from '../dom.js';
import { t } from '../i18n.js';
import { tex } from '../rich.js';
import { tableToggle } from './common.js';

const SVG = 'http://www.w3.org/2000/svg';
function s(tag, attrs = {}) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) el.setAttribute(k, String(v));
  return el;
}

const Q_COLOUR = '#0072B2';
const K_COLOUR = '#D55E00';
const R = 92; // the longest arrow, in viewBox units
const DEG = 180 / Math.PI;

// The angle of (x, y), counter-clockwise from the x axis, in radians.
const angleOf = (x, y) => Math.atan2(y, x);
// a − b folded into (−180°, 180°].
const between = (a, b) => {
  let d = ((a - b) * DEG) % 360;
  if (d > 180) d -= 360;
  if (d <= -180) d += 360;
  return d;
};
const deg = (d) => `${d.toFixed(1)}°`;

// The arc from angle a0 to a1 (radians, counter-clockwise, the short way) at radius r.
function arcPath(a0, a1, r) {
  let sweep = a1 - a0;
  sweep = Math.atan2(Math.sin(sweep), Math.cos(sweep));
  const e = a0 + sweep;
  // SVG's y points down: a counter-clockwise turn on screen is sweep-flag 0.
  return `M ${r * Math.cos(a0)} ${-r * Math.sin(a0)} A ${r} ${r} 0 0 ${sweep >= 0 ? 0 : 1} ${r * Math.cos(e)} ${-r * Math.sin(e)}`;
}

// Where the angle's value goes (viewBox units): a box of w × h around (x, y) that
// covers none of the drawing's strokes (`strokes`: segments [x0, y0, x1, y1, half
// width]) by 1.5 units, the nearest such to the arc's middle just outside it (radius
// 50), looked for on rings around the hub (every 4 units, every 2.5°); failing that
// (never seen), the one that covers least.
function placeLabel(strokes, mid, w, h) {
  // The distance from a point to a segment, and from a segment to the box (0 when they meet).
  const toSegment = (px, py, x0, y0, x1, y1) => {
    const dx = x1 - x0;
    const dy = y1 - y0;
    const u = Math.max(0, Math.min(1, ((px - x0) * dx + (py - y0) * dy) / (dx * dx + dy * dy || 1)));
    return Math.hypot(px - x0 - u * dx, py - y0 - u * dy);
  };
  const crosses = (x0, y0, x1, y1, l, t, r, b) => {
    // Liang–Barsky: does the segment meet the box [l, r] × [t, b]?
    let u0 = 0;
    let u1 = 1;
    const dx = x1 - x0;
    const dy = y1 - y0;
    for (const [p, q] of [[-dx, x0 - l], [dx, r - x0], [-dy, y0 - t], [dy, b - y0]]) {
      if (p === 0) {
        if (q < 0) return false;
      } else {
        const u = q / p;
        if (p < 0) u0 = Math.max(u0, u);
        else u1 = Math.min(u1, u);
        if (u0 > u1) return false;
      }
    }
    return true;
  };
  const clear = (x, y) => {
    const [l, t, r, b] = [x - w / 2, y - h / 2, x + w / 2, y + h / 2];
    let worst = Infinity;
    for (const [x0, y0, x1, y1, half] of strokes) {
      let d = 0;
      if (!crosses(x0, y0, x1, y1, l, t, r, b)) {
        d = Math.min(toSegment(l, t, x0, y0, x1, y1), toSegment(r, t, x0, y0, x1, y1), toSegment(l, b, x0, y0, x1, y1), toSegment(r, b, x0, y0, x1, y1));
        for (const [ex, ey] of [[x0, y0], [x1, y1]]) d = Math.min(d, Math.hypot(Math.max(l - ex, 0, ex - r), Math.max(t - ey, 0, ey - b)));
      }
      worst = Math.min(worst, d - half);
      if (worst < 1.5) break;
    }
    return worst;
  };
  // The places nearest the arc's middle first: the first clear one is taken.
  const want = { x: 50 * Math.cos(mid), y: -50 * Math.sin(mid) };
  const places = [];
  for (let r = 22; r <= 80; r += 4) {
    for (let j = 0; j < 144; j++) {
      const a = (j / 144) * 2 * Math.PI;
      const x = r * Math.cos(a);
      const y = -r * Math.sin(a);
      // Inside the circle, the box's corners too.
      if (Math.hypot(Math.abs(x) + w / 2, Math.abs(y) + h / 2) > R - 3) continue;
      places.push({ x, y, far: Math.hypot(x - want.x, y - want.y) });
    }
  }
  places.sort((p, q) => p.far - q.far);
  let best = null;
  for (const p of places) {
    const c = clear(p.x, p.y);
    if (c >= 1.5) return p;
    if (!best || c > best.c) best = { ...p, c };
  }
  return best;
}

// The drawing is built once; each arrow is a line along the x axis inside a
// group turned by CSS (rotate), so a change of m, n or s turns the arrows
// smoothly (180 ms, none with prefers-reduced-motion), the short way round.
function makeDrawing() {
  const svg = s('svg', { viewBox: '-120 -120 240 240', class: 'rope-drawing', role: 'img' });
  const defs = s('defs');
  for (const [id, colour] of [['rope-head-q', Q_COLOUR], ['rope-head-k', K_COLOUR]]) {
    const m = s('marker', { id, viewBox: '0 0 10 10', refX: 8, refY: 5, markerWidth: 13, markerHeight: 13, markerUnits: 'userSpaceOnUse', orient: 'auto-start-reverse' });
    m.append(s('path', { d: 'M0,0 L10,5 L0,10 z', fill: colour }));
    defs.append(m);
  }
  svg.append(defs);
  svg.append(s('circle', { cx: 0, cy: 0, r: R, class: 'rope-circle' }));
  svg.append(s('line', { x1: -112, y1: 0, x2: 112, y2: 0, class: 'rope-axis' }));
  svg.append(s('line', { x1: 0, y1: -112, x2: 0, y2: 112, class: 'rope-axis' }));
  const arc = s('path', { class: 'rope-angle' });
  const arcShifted = s('path', { class: 'rope-angle shifted' });
  const label = s('text', { class: 'rope-angle-label', 'text-anchor': 'middle' });
  const arrows = {};
  const turned = {};
  const arrow = (cls, head, role) => {
    const g = s('g', { class: 'rope-rot' });
    const line = s('line', { x1: 0, y1: 0, x2: 0, y2: 0, class: `rope-arrow ${cls}`, 'marker-end': head ? `url(#${head})` : undefined });
    line.dataset.role = role;
    g.append(line);
    arrows[role] = { g, line };
    return g;
  };
  svg.append(arrow('rope-q rope-origin', null, 'q0'), arrow('rope-k rope-origin', null, 'k0'), arc, arcShifted);
  svg.append(arrow('rope-q shifted', 'rope-head-q', 'q-shifted'), arrow('rope-k shifted', 'rope-head-k', 'k-shifted'));
  svg.append(arrow('rope-q', 'rope-head-q', 'q'), arrow('rope-k', 'rope-head-k', 'k'), label);
  const set = ({ vectors, scale, pair, shift }) => {
    svg.setAttribute('aria-label', t('rope.drawing_aria', { a: 2 * pair, b: 2 * pair + 1 }));
    for (const [role, v] of Object.entries(vectors)) {
      const { g, line } = arrows[role];
      // The angle on screen, clockwise in degrees (SVG's y points down), unwrapped from the last one.
      const target = -angleOf(...v) * DEG;
      const prev = turned[role];
      const shown = prev === undefined ? target : prev + ((((target - prev + 180) % 360) + 360) % 360) - 180;
      turned[role] = shown;
      line.setAttribute('x2', (Math.hypot(...v) * scale).toFixed(4));
      g.style.transform = `rotate(${shown}deg)`;
    }
    const { q: rq, k: rk, 'q-shifted': sq, 'k-shifted': sk } = vectors;
    for (const role of ['q-shifted', 'k-shifted']) arrows[role].g.style.display = shift ? '' : 'none';
    arc.setAttribute('d', arcPath(angleOf(...rk), angleOf(...rq), 34));
    arcShifted.setAttribute('d', shift ? arcPath(angleOf(...sk), angleOf(...sq), 52) : '');
    // The angle's value next to its arc, clear of every arrow (the dotted ones of position 0 too),
    // the arcs, the axes and the circle.
    const a0 = angleOf(...rk);
    const mid = a0 + Math.atan2(Math.sin(angleOf(...rq) - a0), Math.cos(angleOf(...rq) - a0)) / 2;
    const text = deg(between(angleOf(...rq), angleOf(...rk)));
    const strokes = [
      [-112, 0, 112, 0, 0.5],
      [0, -112, 0, 112, 0.5],
    ];
    for (const [role, v] of Object.entries(vectors)) {
      if (!shift && role.endsWith('-shifted')) continue;
      const len = Math.hypot(...v) * scale;
      const [c, sn] = [Math.cos(angleOf(...v)), -Math.sin(angleOf(...v))];
      if (role.endsWith('0')) {
        strokes.push([0, 0, len * c, len * sn, 1.5]); // position 0's, dotted, 2 wide
        continue;
      }
      // The shaft (4 or 3 wide, round caps), and the head: 13 units long, 6.5 either side, from 10.4 before the end to 2.6 past it.
      strokes.push([0, 0, len * c, len * sn, 2.5]);
      strokes.push([(len - 10.4) * c, (len - 10.4) * sn, (len + 2.6) * c, (len + 2.6) * sn, 6.5]);
    }
    const arcStrokes = (b0, b1, r) => {
      const sweep = Math.atan2(Math.sin(b1 - b0), Math.cos(b1 - b0));
      for (let j = 0; j < 12; j++) {
        const u0 = b0 + (sweep * j) / 12;
        const u1 = b0 + (sweep * (j + 1)) / 12;
        strokes.push([r * Math.cos(u0), -r * Math.sin(u0), r * Math.cos(u1), -r * Math.sin(u1), 1]);
      }
    };
    arcStrokes(angleOf(...rk), angleOf(...rq), 34);
    if (shift) arcStrokes(angleOf(...sk), angleOf(...sq), 52);
    for (let j = 0; j < 36; j++) {
      const u0 = (j / 36) * 2 * Math.PI;
      const u1 = ((j + 1) / 36) * 2 * Math.PI;
      strokes.push([R * Math.cos(u0), -R * Math.sin(u0), R * Math.cos(u1), -R * Math.sin(u1), 0.75]);
    }
    // 13 px mono: 7.8 units a character, the line 15 units high; the halo (stroke 4) a little more.
    const box = { w: text.length * 7.8 + 3, h: 16 };
    const at = placeLabel(strokes, mid, box.w, box.h);
    label.setAttribute('x', at.x.toFixed(2));
    // (the baseline: the box's middle plus a third of the font size)
    label.setAttribute('y', (at.y + 4.5).toFixed(2));
    label.textContent = text;
  };
  return { svg, set };
}

export function mount(el, block, ctx) {
  const dHead = block.d_head ?? 8;
  const pairs = dHead / 2;
  const maxPos = 64;
  const maxShift = 64;
  const w = { state: { m: 3, n: 1, shift: 0, pair: 0 }, result: null, error: null };
  const limits = { m: maxPos, n: maxPos, shift: maxShift, pair: pairs - 1 };
  for (const [key, urlKey] of [['m', 'm'], ['n', 'n'], ['shift', 'k'], ['pair', 'pair']]) {
    const v = ctx.getUrl(urlKey);
    if (Number.isInteger(v) && v >= 0 && v <= limits[key]) w.state[key] = v;
  }
  const slider = (key, urlKey) => {
    const id = `${block.id}-${key}`;
    const input = h('input', { type: 'range', id, min: 0, max: limits[key], step: 1, value: w.state[key], class: 'rope-slider' });
    const out = h('output', { for: id, class: 'rope-out' }, String(w.state[key]));
    input.addEventListener('input', () => {
      w.state[key] = Number(input.value);
      out.textContent = input.value;
      ctx.setUrl(urlKey, w.state[key]);
      w.update(true);
    });
    return h('div', { class: 'rope-control' }, h('label', { for: id }, t(`rope.field_${key}`)), input, out);
  };
  const pairId = `${block.id}-pair`;
  const picker = h(
    'select',
    { id: pairId, class: 'rope-pair' },
    ...Array.from({ length: pairs }, (_, i) => h('option', { value: String(i), selected: i === w.state.pair ? true : undefined }, t('rope.pair_option', { i, a: 2 * i, b: 2 * i + 1 }))),
  );
  picker.addEventListener('change', () => {
    w.state.pair = Number(picker.value);
    ctx.setUrl('pair', w.state.pair);
    w.update(true);
  });
  const errorSlot = h('div');
  const picture = makeDrawing();
  const legendSlot = h('div');
  const figure = h('div', { class: 'rope-figure', hidden: true }, picture.svg, legendSlot);
  const readout = h('div', { class: 'rope-readout', 'aria-live': 'polite' });
  const tableBox = h('div', { class: 'table-scroll', tabindex: '0', hidden: true });
  el.append(
    h(
      'div',
      { class: 'rope-controls' },
      slider('m', 'm'),
      slider('n', 'n'),
      slider('shift', 'k'),
      h('div', { class: 'rope-control' }, h('label', { for: pairId }, t('rope.field_pair')), picker),
    ),
    errorSlot,
    h('div', { class: 'rope-layout' }, figure, readout),
    tableToggle(tableBox),
    tableBox,
  );

  // Slider steps come faster than the core answers: only the latest is drawn.
  let latest = 0;
  w.update = async (user = false) => {
    const ticket = ++latest;
    const { m, n, shift, pair } = w.state;
    const seed = ctx.lab().seed;
    try {
      const r = await ctx.core.call('ropeCheck', { dHead, m, n, shift, seed });
      const q = Array.from(r.q);
      const k = Array.from(r.k);
      const rot = await ctx.core.batch([
        { method: 'ropeRotate', args: { vector: q, position: m } },
        { method: 'ropeRotate', args: { vector: k, position: n } },
        { method: 'ropeRotate', args: { vector: q, position: m + shift } },
        { method: 'ropeRotate', args: { vector: k, position: n + shift } },
        { method: 'ropeRotate', args: { vector: q, position: 1 } },
      ]);
      const bad = rot.find((x) => !x.ok);
      if (bad) throw bad.error;
      if (ticket !== latest) return;
      errorSlot.replaceChildren();
      const [RQ, RK, SQ, SK, Q1] = rot.map((x) => Array.from(x.result));
      const pick = (v, i) => [v[2 * i], v[2 * i + 1]];
      const dot = (a, b) => a[0] * b[0] + a[1] * b[1];
      // One row per pair, for the table; the picked one is drawn.
      const rows = Array.from({ length: pairs }, (_, i) => {
        const rq = pick(RQ, i);
        const rk = pick(RK, i);
        const sq = pick(SQ, i);
        const sk = pick(SK, i);
        // θ_i read back from the core: the turn of q's pair from position 0 to 1.
        const theta = Math.abs(between(angleOf(...pick(Q1, i)), angleOf(...pick(q, i)))) / DEG;
        return { i, rq, rk, sq, sk, theta, angle: between(angleOf(...rq), angleOf(...rk)), shiftedAngle: between(angleOf(...sq), angleOf(...sk)), part: dot(rq, rk), shiftedPart: dot(sq, sk) };
      });
      const p = rows[pair];
      const q0 = pick(q, pair);
      const k0 = pick(k, pair);
      const scale = R / Math.max(Math.hypot(...q0), Math.hypot(...k0), 1e-12);
      picture.set({ vectors: { q0, k0, q: p.rq, k: p.rk, 'q-shifted': p.sq, 'k-shifted': p.sk }, scale, pair, shift });
      const legend = h(
        'ul',
        { class: 'lp-legend rope-legend' },
        h('li', {}, h('span', { class: 'lp-swatch', style: `border-top:4px solid ${Q_COLOUR}`, 'aria-hidden': 'true' }), h('span', { html: tex(`R_{${m}}\\,q`) })),
        h('li', {}, h('span', { class: 'lp-swatch', style: `border-top:4px solid ${K_COLOUR}`, 'aria-hidden': 'true' }), h('span', { html: tex(`R_{${n}}\\,k`) })),
        shift ? h('li', {}, h('span', { class: 'lp-swatch', style: `border-top:4px dashed ${Q_COLOUR}`, 'aria-hidden': 'true' }), h('span', { html: tex(`R_{${m + shift}}\\,q`) })) : null,
        shift ? h('li', {}, h('span', { class: 'lp-swatch', style: `border-top:4px dashed ${K_COLOUR}`, 'aria-hidden': 'true' }), h('span', { html: tex(`R_{${n + shift}}\\,k`) })) : null,
        h('li', {}, h('span', { class: 'lp-swatch rope-swatch-origin', 'aria-hidden': 'true' }), t('rope.key_origin')),
      );
      legendSlot.replaceChildren(legend);
      figure.hidden = false;
      const value = (v, digits, cls) => h('dd', { 'data-value': String(v), class: cls }, digits === 'deg' ? deg(v) : fmt(v, digits));
      readout.replaceChildren(
        h('p', { class: 'rope-theta', 'data-theta': String(p.theta) }, h('span', { html: tex(`\\theta_{${pair}} = 10000^{-2\\cdot${pair}/${dHead}} = ${fmt(p.theta, 4)}`) }), ' ', t('rope.rad_per_pos')),
        h(
          'dl',
          { class: 'rope-scores' },
          h('dt', {}, t('rope.angle_before', { m, n })),
          value(p.angle, 'deg', 'rope-angle-before'),
          shift ? h('dt', {}, t('rope.angle_after', { m: m + shift, n: n + shift })) : null,
          shift ? value(p.shiftedAngle, 'deg', 'rope-angle-after') : null,
          h('dt', { html: tex(`\\langle R_{${m}} q,\\ R_{${n}} k \\rangle`) }),
          value(r.score, 4, 'rope-score-before'),
          // The shifted score names the shift (R_{3+2}), so at s = 0 its label is not the first one's twice.
          h('dt', { html: tex(`\\langle R_{${m}+${shift}} q,\\ R_{${n}+${shift}} k \\rangle`) }),
          value(r.shiftedScore, 4, 'rope-score-after'),
          h('dt', {}, t('rope.diff')),
          h('dd', { 'data-value': String(r.diff), class: 'rope-diff' }, fmtSmall(r.diff)),
          h('dt', {}, t('rope.pair_part', { a: 2 * pair, b: 2 * pair + 1 })),
          h('dd', { 'data-value': String(p.part) }, shift ? `${fmt(p.part, 4)} → ${fmt(p.shiftedPart, 4)}` : fmt(p.part, 4)),
        ),
        h('p', { class: 'muted' }, t('rope.m_minus_n', { d: m - n })),
      );
      tableBox.replaceChildren(
        h(
          'table',
          { class: 'vec-table rope-table' },
          h('caption', {}, t('rope.table_caption', { m, n, to_m: m + shift, to_n: n + shift })),
          h('thead', {}, h('tr', {}, ...['rope.col_pair', 'rope.col_theta', 'rope.col_q', 'rope.col_k', 'rope.col_angle', 'rope.col_part', 'rope.col_q2', 'rope.col_k2', 'rope.col_angle2', 'rope.col_part2'].map((key) => h('th', { scope: 'col' }, t(key, { m, n, to_m: m + shift, to_n: n + shift }))))),
          h(
            'tbody',
            {},
            ...rows.map((x) =>
              h(
                'tr',
                { class: x.i === pair ? 'picked' : '' },
                h('th', { scope: 'row' }, t('rope.pair_option', { i: x.i, a: 2 * x.i, b: 2 * x.i + 1 })),
                ...[fmt(x.theta, 4), `(${fmt(x.rq[0])}, ${fmt(x.rq[1])})`, `(${fmt(x.rk[0])}, ${fmt(x.rk[1])})`, deg(x.angle), fmt(x.part, 4), `(${fmt(x.sq[0])}, ${fmt(x.sq[1])})`, `(${fmt(x.sk[0])}, ${fmt(x.sk[1])})`, deg(x.shiftedAngle), fmt(x.shiftedPart, 4)].map((c) => h('td', {}, c)),
              ),
            ),
          ),
        ),
      );
      w.result = { score: r.score, shiftedScore: r.shiftedScore, diff: r.diff, pair, angle: p.angle, shiftedAngle: p.shiftedAngle };
      w.error = null;
    } catch (e) {
      if (ticket !== latest) return;
      w.result = null;
      w.error = e;
      figure.hidden = true;
      readout.replaceChildren();
      errorSlot.replaceChildren(errorBox(e));
    }
    ctx.changed(block.id, user === true);
  };
  return w;
}
