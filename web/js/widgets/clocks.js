// Sinusoidal position encoding as clocks, the seed article's own image: one
// clock per (2i, 2i+1) pair whose hand points at (sin, cos) = (PE[pos, 2i],
// PE[pos, 2i+1]). The hands turn as the position slider moves; each clock has
// its own period, and together they fix the position. A shift k turns every
// clock by its own fixed angle k·ω_i whatever the position: PE(pos+k) =
// M_k·PE(pos), drawn as a dashed hand and an arc. Beside them, the table
// PE[0…N, 0…D) as a heatmap with the slider's position marked. Every number
// comes from the core (encoding at pos and at pos+k, and the wavelengths);
// the page only turns (sin, cos) into a hand's angle.
import { h, errorBox, fmt } from '../dom.js';
import { t } from '../i18n.js';
import { tableToggle } from './common.js';
import { morphChildren } from './morph.js';

const SVG = 'http://www.w3.org/2000/svg';
function s(tag, attrs = {}) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) el.setAttribute(k, String(v));
  return el;
}

// A diverging, colour-blind-safe scale over the fixed domain −1…1 (PuOr:
// orange for −1, white for 0, purple for +1), so one colour means one value.
const PUOR = [[179, 88, 6], [224, 130, 20], [253, 184, 99], [254, 224, 182], [247, 247, 247], [216, 218, 235], [178, 171, 210], [128, 115, 172], [84, 39, 136]];
export function diverging(v) {
  const x = ((Math.max(-1, Math.min(1, v)) + 1) / 2) * (PUOR.length - 1);
  const i = Math.min(PUOR.length - 2, Math.floor(x));
  const f = x - i;
  return PUOR[i].map((c, k) => Math.round(c + f * (PUOR[i + 1][k] - c)));
}

// The hand's angle in degrees, clockwise from 12 o'clock: (sin θ, cos θ) → θ.
export const handAngle = (sin, cos) => (Math.atan2(sin, cos) * 180) / Math.PI;

const R = 44;
const clockFace = (i) => {
  const g = s('svg', { viewBox: '-50 -50 100 100', class: 'clock-face', 'aria-hidden': 'true' });
  g.append(s('circle', { r: R, class: 'clock-rim' }));
  for (let q = 0; q < 12; q++) {
    const a = (q * Math.PI) / 6;
    const r0 = q % 3 === 0 ? R - 8 : R - 4;
    g.append(s('line', { x1: r0 * Math.sin(a), y1: -r0 * Math.cos(a), x2: R * Math.sin(a), y2: -R * Math.cos(a), class: 'clock-tick' }));
  }
  const arc = s('path', { class: 'clock-arc' });
  const ghost = s('line', { x1: 0, y1: 0, x2: 0, y2: -(R - 6), class: 'clock-hand ghost' });
  const hand = s('line', { x1: 0, y1: 0, x2: 0, y2: -(R - 6), class: 'clock-hand' });
  const ghostG = s('g', { class: 'clock-rot' });
  const handG = s('g', { class: 'clock-rot' });
  ghostG.append(ghost);
  handG.append(hand);
  g.append(arc, ghostG, handG, s('circle', { r: 3, class: 'clock-hub' }));
  g.dataset.pair = String(i);
  return { svg: g, arc, handG, ghostG };
};

// An arc of `sweep` degrees clockwise from angle `from`, inside the rim.
function arcPath(from, sweep) {
  const r = R - 14;
  const a0 = (from * Math.PI) / 180;
  const a1 = ((from + sweep) * Math.PI) / 180;
  const large = Math.abs(sweep) > 180 ? 1 : 0;
  const dir = sweep >= 0 ? 1 : 0;
  return `M ${r * Math.sin(a0)} ${-r * Math.cos(a0)} A ${r} ${r} 0 ${large} ${dir} ${r * Math.sin(a1)} ${-r * Math.cos(a1)}`;
}

export function mount(el, block, ctx) {
  const maxPos = block.max_position ?? 127;
  const maxShift = block.max_shift ?? 16;
  const w = { state: { pos: 3, k: 1 }, result: null, error: null, highlight: null };
  // A position pointed at or focused elsewhere on the page (a token's place,
  // a column of the encoding table): the hands show it while it lasts, the
  // slider keeps its own value.
  let preview = null;
  for (const key of ['pos', 'k']) {
    const v = ctx.getUrl(key);
    if (Number.isInteger(v) && v >= 0 && v <= (key === 'pos' ? maxPos : maxShift)) w.state[key] = v;
  }
  // Each hand keeps an unwrapped angle, so 350° → 10° turns forward by 20°.
  const turned = new Map();

  const slider = (key, max, labelKey) => {
    const id = `${block.id}-${key}`;
    const input = h('input', { type: 'range', id, min: 0, max, step: 1, value: w.state[key], class: 'clock-slider' });
    const out = h('output', { for: id, class: 'clock-out' }, String(w.state[key]));
    // The position slider stands for its position too (the encoding table's column lights).
    if (key === 'pos') input.dataset.hlPos = String(w.state.pos);
    input.addEventListener('input', () => {
      w.state[key] = Number(input.value);
      if (key === 'pos') {
        input.dataset.hlPos = input.value;
        ctx.positionHighlight?.set(input.value);
      }
      out.textContent = input.value;
      ctx.setUrl(key, w.state[key]);
      w.update(true);
    });
    return h('div', { class: 'clock-control' }, h('label', { for: id }, t(labelKey)), input, out);
  };

  const errorSlot = h('div');
  const clocksBox = h('div', { class: 'clocks', role: 'list' });
  const strip = h('figure', { class: 'clock-strip' });
  const summary = h('p', { class: 'clock-summary', 'aria-live': 'polite' });
  const tableBox = h('div', { class: 'table-scroll', tabindex: '0', hidden: true });
  const toggle = tableToggle(tableBox);
  el.append(
    h('p', { class: 'widget-lead' }, t('clocks.lead')),
    h('div', { class: 'clock-controls' }, slider('pos', maxPos, 'clocks.pos'), slider('k', maxShift, 'clocks.shift')),
    errorSlot,
    h('div', { class: 'clock-layout' }, clocksBox, strip),
    summary,
    h('div', { class: 'legend-row' }, h('span', { class: 'clock-key' }, h('span', { class: 'clock-key-solid', 'aria-hidden': 'true' }), t('clocks.key_pos')), h('span', { class: 'clock-key' }, h('span', { class: 'clock-key-ghost', 'aria-hidden': 'true' }), t('clocks.key_shift'))),
    toggle,
    tableBox,
  );

  let faces = [];
  let stripCache = null; // {D, canvas, marker, rows}
  const setHighlight = (i) => {
    w.highlight = i;
    for (const f of faces) f.item.classList.toggle('hl', f.i === i);
    if (stripCache) {
      for (const [r, label] of stripCache.rowLabels.entries()) label.classList.toggle('hl', i !== null && (r === 2 * i || r === 2 * i + 1));
      stripCache.band.hidden = i === null;
      if (i !== null) {
        stripCache.band.style.top = `${(2 * i * 100) / stripCache.D}%`;
        stripCache.band.style.height = `${(2 * 100) / stripCache.D}%`;
      }
    }
  };

  const buildFaces = (n) => {
    faces = Array.from({ length: n }, (_, i) => {
      const face = clockFace(i);
      const caption = h('div', { class: 'clock-caption' });
      const item = h('div', { class: 'clock', role: 'listitem', tabindex: '0', 'data-pair': String(i) }, face.svg, caption);
      item.addEventListener('mouseenter', () => setHighlight(i));
      item.addEventListener('mouseleave', () => setHighlight(null));
      item.addEventListener('focus', () => setHighlight(i));
      item.addEventListener('blur', () => setHighlight(null));
      return { i, item, caption, ...face };
    });
    clocksBox.replaceChildren(...faces.map((f) => f.item));
    turned.clear();
  };

  const buildStrip = (D, N) => {
    // The table PE[0…N, 0…D), one row per dimension, from the core.
    return ctx.core.call('encoding', { scheme: 'sinusoidal', length: N, dModel: D }).then(({ encoding }) => {
      const canvas = h('canvas', { width: N, height: D, class: 'clock-canvas', role: 'img', 'aria-label': t('clocks.strip_aria', { D, N: N - 1 }) });
      const g = canvas.getContext('2d');
      if (g) {
        const img = g.createImageData(N, D);
        for (let d = 0; d < D; d++)
          for (let p = 0; p < N; p++) {
            const [r, gg, b] = diverging(encoding.data[p * D + d]);
            const k = (d * N + p) * 4;
            img.data.set([r, gg, b, 255], k);
          }
        g.putImageData(img, 0, 0);
      }
      const marker = h('div', { class: 'clock-marker', 'aria-hidden': 'true' });
      const ghost = h('div', { class: 'clock-marker ghost', 'aria-hidden': 'true' });
      const band = h('div', { class: 'clock-band', 'aria-hidden': 'true', hidden: true });
      const rowLabels = Array.from({ length: D }, (_, d) => h('span', { class: 'clock-row-label' }, String(d)));
      strip.replaceChildren(
        h('figcaption', {}, t('clocks.strip_caption')),
        h('div', { class: 'clock-strip-body' }, h('div', { class: 'clock-row-labels', 'aria-hidden': 'true', style: `grid-template-rows: repeat(${D}, 1fr)` }, ...rowLabels), h('div', { class: 'clock-canvas-wrap' }, canvas, band, ghost, marker)),
        h('div', { class: 'clock-axis', 'aria-hidden': 'true' }, h('span', {}, '0'), h('span', {}, t('clocks.axis_pos')), h('span', {}, String(N - 1))),
        h('div', { class: 'hm-legend', 'aria-hidden': 'true' }, h('span', {}, '−1'), h('span', { class: 'clock-legend-bar' }), h('span', {}, '+1')),
      );
      stripCache = { D, N, marker, ghost, band, rowLabels };
    });
  };

  let shown = null; // the D, position and shift drawn
  w.update = async (user = false) => {
    const lab = ctx.lab();
    const D = lab.d;
    const { k } = w.state;
    const pos = preview ?? w.state.pos;
    // Another control changed (position information, the sentence): the clocks show sinusoidal's D alone.
    const key = `${D}:${pos}:${k}`;
    if (user !== true && key === shown && !w.error) return;
    shown = key;
    errorSlot.replaceChildren();
    try {
      const N = maxPos + maxShift + 1;
      if (!stripCache || stripCache.D !== D) await buildStrip(D, N);
      const [a, b] = await ctx.core.batch([
        { method: 'encoding', args: { scheme: 'sinusoidal', length: 1, dModel: D, positionOffset: pos } },
        { method: 'encoding', args: { scheme: 'sinusoidal', length: 1, dModel: D, positionOffset: pos + k } },
      ]);
      if (!a.ok) throw a.error;
      if (!b.ok) throw b.error;
      const here = a.result.encoding.data;
      const there = b.result.encoding.data;
      const wavelengths = Array.from(a.result.wavelengths.data);
      const pairs = D / 2;
      if (faces.length !== pairs) buildFaces(pairs);
      const rows = [];
      for (const f of faces) {
        const i = f.i;
        const sin = here[2 * i];
        const cos = here[2 * i + 1];
        const sin2 = there[2 * i];
        const cos2 = there[2 * i + 1];
        const angle = handAngle(sin, cos);
        // The turn from pos to pos+k: the angle between the two hands, taken
        // forward (0…360): the same for every pos, k·ω_i mod 360°.
        let turn = handAngle(sin2, cos2) - angle;
        turn = ((turn % 360) + 360) % 360;
        const prev = turned.get(i);
        let shown = angle;
        if (prev !== undefined) {
          let delta = angle - (((prev % 360) + 360) % 360);
          delta = ((((delta + 180) % 360) + 360) % 360) - 180;
          shown = prev + delta;
        }
        turned.set(i, shown);
        f.handG.style.transform = `rotate(${shown}deg)`;
        f.ghostG.style.transform = `rotate(${shown + turn}deg)`;
        f.arc.setAttribute('d', k === 0 || turn < 0.05 ? '' : arcPath(angle, turn));
        f.item.dataset.sin = String(sin);
        f.item.dataset.cos = String(cos);
        f.item.dataset.turn = String(turn);
        f.item.setAttribute('aria-label', t('clocks.clock_aria', { i, period: fmtPeriod(wavelengths[i]), sin: fmt(sin), cos: fmt(cos), turn: turn.toFixed(1) }));
        morphChildren(f.caption, [
          h('span', { class: 'clock-name' }, t('clocks.pair', { a: 2 * i, b: 2 * i + 1 })),
          h('span', { class: 'clock-period' }, t('clocks.period', { period: fmtPeriod(wavelengths[i]) })),
          h('span', { class: 'clock-values' }, `sin ${fmt(sin)} · cos ${fmt(cos)}`),
          k ? h('span', { class: 'clock-turn' }, t('clocks.turn', { k, turn: turn.toFixed(1) })) : null,
        ]);
        rows.push([t('clocks.pair', { a: 2 * i, b: 2 * i + 1 }), fmtPeriod(wavelengths[i]), fmt(sin), fmt(cos), fmt(sin2), fmt(cos2), `${turn.toFixed(2)}°`]);
      }
      if (stripCache) {
        stripCache.marker.style.left = `${((pos + 0.5) * 100) / stripCache.N}%`;
        stripCache.ghost.style.left = `${((pos + k + 0.5) * 100) / stripCache.N}%`;
        stripCache.ghost.hidden = k === 0;
      }
      summary.textContent = t('clocks.summary', { pos, k, to: pos + k });
      morphChildren(tableBox, [
        h(
          'table',
          { class: 'vec-table clock-table' },
          h('caption', {}, t('clocks.table_caption', { pos, to: pos + k })),
          h('thead', {}, h('tr', {}, ...['clocks.col_pair', 'clocks.col_period', 'clocks.col_sin', 'clocks.col_cos', 'clocks.col_sin2', 'clocks.col_cos2', 'clocks.col_turn'].map((key) => h('th', { scope: 'col' }, t(key, { pos, to: pos + k }))))),
          h('tbody', {}, ...rows.map((r) => h('tr', {}, h('th', { scope: 'row' }, r[0]), ...r.slice(1).map((c) => h('td', {}, c))))),
        ),
      ]);
      w.result = { pos, k, D, turns: faces.map((f) => Number(f.item.dataset.turn)) };
      w.error = null;
    } catch (e) {
      shown = null;
      w.result = null;
      w.error = e;
      errorSlot.replaceChildren(errorBox(e));
    }
    ctx.changed(block.id, user === true);
  };
  ctx.positionHighlight?.onChange((p) => {
    const v = p === null ? null : Number(p);
    const next = v !== null && Number.isInteger(v) && v >= 0 && v <= maxPos && v !== w.state.pos ? v : null;
    if (next === preview) return;
    preview = next;
    el.toggleAttribute('data-preview', preview !== null);
    w.update('preview');
  });
  return w;
}

function fmtPeriod(p) {
  return p < 1000 ? p.toFixed(1) : Math.round(p).toLocaleString('en-US');
}
