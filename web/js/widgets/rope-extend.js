// RoPE context extension, Part 1: where do the angles go? For every pair i
// the angle m·θ'ᵢ mod 2π over positions 0 … s·L under a method (none, PI,
// NTK-aware, YaRN, a larger base), the trained range 0 … L marked and the
// angles never seen in training hatched. Every number is the core's
// ropeAngleMap; the page only draws it. Instant: no training. The angle is
// drawn on a cyclic colour scale (sinebow), so 0 and 2π share a colour.
import { h, errorBox, fmt } from '../dom.js';
import { t } from '../i18n.js';
import { reducedMotion } from './motion.js';
import { linkMethods } from './method-link.js';

// Animation of a change of s (issue 24): the map is drawn at FRAMES values of
// s between the old and the new one, each the core's own map, over ANIM_MS.
const FRAMES = 8;
const ANIM_MS = 480;

const SVG = 'http://www.w3.org/2000/svg';
const METHODS = ['none', 'pi', 'ntk', 'yarn', 'base'];
const WIDTHS = [4, 8, 16, 32];
const BASES = [100, 10000];
const SCALES = [1.5, 2, 3, 4, 8];
const EDGES = ['paper', 'lab'];

// The sinebow palette (as d3-scale-chromatic's interpolateSinebow): u and
// u + 1 give the same colour, so an angle u·2π mod 2π has one colour and
// neighbouring angles across 0 = 2π get neighbouring colours.
export function sinebow(u) {
  const x = (0.5 - (u - Math.floor(u))) * Math.PI;
  const c = [0, 1, 2].map((k) => Math.round(255 * Math.sin(x + (k * Math.PI) / 3) ** 2));
  return { rgb: c, css: `rgb(${c[0]},${c[1]},${c[2]})` };
}

// The legend: a colour wheel, angle 0 at the right, counter-clockwise.
function wheel() {
  const r = 30, c = 42, n = 36;
  // Room round the wheel for its labels (π/2 was cut off at the top).
  const svg = s('svg', { viewBox: '-12 -10 108 104', width: 108, height: 104, class: 'ropeext-wheel', role: 'img', 'aria-label': t('ropeext.wheel') });
  for (let k = 0; k < n; k++) {
    const a0 = (2 * Math.PI * k) / n, a1 = (2 * Math.PI * (k + 1)) / n;
    const p = (a, rr) => `${(c + rr * Math.cos(a)).toFixed(2)},${(c - rr * Math.sin(a)).toFixed(2)}`;
    svg.append(s('path', { d: `M${p(a0, r - 10)}L${p(a0, r)}A${r},${r} 0 0 0 ${p(a1, r)}L${p(a1, r - 10)}A${r - 10},${r - 10} 0 0 1 ${p(a0, r - 10)}Z`, fill: sinebow((k + 0.5) / n).css }));
  }
  for (const [a, text, anchor] of [[0, '0', 'start'], [Math.PI / 2, 'π/2', 'middle'], [Math.PI, 'π', 'end'], [1.5 * Math.PI, '3π/2', 'middle']]) {
    const tx = s('text', { x: c + (r + 2) * Math.cos(a), y: c - (r + 2) * Math.sin(a) + (a === Math.PI / 2 ? -2 : a === 1.5 * Math.PI ? 9 : 3), 'text-anchor': anchor, class: 'lp-tick ropeext-wheel-label' });
    tx.textContent = text;
    svg.append(tx);
  }
  return svg;
}

function s(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

let counter = 0;

// The picture: columns positions 0 … N, rows pairs; colour = angle (0 … 2π);
// unseen angles hatched; a line at L.
function picture(map, id) {
  const { pairs, positions, trainedLength: L } = map;
  // Drawn at about the width it is shown at (the card's on a desktop, a
  // phone's otherwise), so its labels keep their size: the picture fills its card.
  const narrow = typeof matchMedia === 'function' && matchMedia('(max-width: 760px)').matches;
  const cell = (narrow ? 290 : 800) / positions;
  const rowH = Math.max(8, Math.min(narrow ? 28 : 40, Math.floor((narrow ? 240 : 320) / pairs)));
  const pad = { l: 44, t: 8, b: 30, r: 16 };
  const W = pad.l + positions * cell + pad.r;
  const H = pad.t + pairs * rowH + pad.b;
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, width: '100%', class: 'ropeext-svg', role: 'group', 'aria-label': t('ropeext.aria', { pairs, positions, L, leaving: map.leaves.filter(Boolean).length }) });
  const defs = s('defs', {});
  const pattern = s('pattern', { id: `${id}-hatch`, width: 4, height: 4, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' });
  pattern.append(s('rect', { width: 4, height: 4, fill: '#ffffff' }), s('line', { x1: 0, y1: 0, x2: 0, y2: 4, stroke: '#D55E00', 'stroke-width': 3 }));
  defs.append(pattern);
  svg.append(defs);
  for (let i = 0; i < pairs; i++) {
    const y = pad.t + i * rowH;
    // One row per pair: hovering or focusing it lights its row of the table below (and the other way round).
    const row = s('g', { class: 'ropeext-row', 'data-pair': i, tabindex: 0, role: 'img', 'aria-label': t('ropeext.row_aria', { i, span: fmt(map.trainedSpan[i], 2), reach: fmt(map.maxAngle[i], 2), leaves: t(map.leaves[i] ? 'ropeext.yes' : 'ropeext.no') }) });
    const label = s('text', { x: pad.l - 4, y: y + rowH / 2 + 4, 'text-anchor': 'end', class: 'lp-tick' });
    label.textContent = `i=${i}`;
    row.append(label);
    for (let m = 0; m < positions; m++) {
      const k = m * pairs + i;
      const unseen = map.unseen[k] === 1;
      const fill = unseen ? `url(#${id}-hatch)` : sinebow(map.angles[k] / (2 * Math.PI)).css;
      row.append(s('rect', { x: pad.l + m * cell, y, width: cell + 0.3, height: rowH - 1, fill }));
    }
    row.append(s('rect', { x: 1, y: y - 1, width: W - 2, height: rowH + 1, class: 'ropeext-row-ring' }));
    svg.append(row);
  }
  const xL = pad.l + (L + 1) * cell;
  svg.append(s('line', { x1: xL, y1: pad.t - 4, x2: xL, y2: pad.t + pairs * rowH + 4, stroke: '#000', 'stroke-width': 2 }));
  // Position ticks under the map; L's label beside its line, never over the last tick.
  const xEnd = pad.l + positions * cell;
  for (const [x, text, anchor] of [[pad.l, '0', 'start'], [xL, `L=${L}`, xEnd - xL < 60 ? 'end' : 'middle'], [xEnd, String(positions - 1), 'end']]) {
    const tx = s('text', { x, y: H - 8, 'text-anchor': anchor, class: 'lp-tick' });
    tx.textContent = text;
    svg.append(tx);
  }
  return svg;
}

function select(id, label, values, value, show = String) {
  const el = h('select', { id }, ...values.map((v) => h('option', { value: String(v), selected: String(v) === String(value) }, show(v))));
  return { el, row: h('div', { class: 'clock-control' }, h('label', { for: id }, label), el) };
}

export function mount(el, block, ctx) {
  const id = `${block.id}-${++counter}`;
  // The map starts with the frequencies of Part 2's model (exercise 9's run: head width 8,
  // base 100, θᵢ = 1, 0.32, 0.1, 0.032) trained up to L = 24 and stretched s = 2, under plain
  // RoPE, so that the first picture shows what the lesson is about: the slow pairs 2 and 3 turn to
  // angles never seen in training (hatched), while pairs 0 and 1 swept the whole circle (24 and
  // 7.6 rad); hovering the map lights plain RoPE's curves of the run under it (issue 24: the start
  // with PI hatched nothing, PI never does). It stands beside the graded prediction
  // (beside_prediction), whose variants ask d 8, base 10 000, L 16, s 2–4 under none, ntk or base;
  // their answers are pairs {1, 2, 3} (none), {1, 2} (ntk), {} or {1} (base 500 000). L = 24 is
  // chosen so that the start's verdict, {2, 3}, is none of them: copying it answers no variant.
  // Part 2's own L = 16 (pairs 1–3 hatched) would show every "none" variant its answer.
  // tests/e2e/visuals-d works both out by hand.
  const w = { state: { d: 8, base: 100, L: 24, s: 2, method: 'none', yarnEdges: 'paper' }, result: null, error: null };
  const d = select(`${id}-d`, t('ropeext.d'), WIDTHS, w.state.d);
  const base = select(`${id}-base`, t('ropeext.base'), BASES, w.state.base);
  const scale = select(`${id}-s`, t('ropeext.s'), SCALES, w.state.s);
  const method = select(`${id}-method`, t('ropeext.method'), METHODS, w.state.method, (m) => t(`ropeext.method_${m}`));
  const edges = select(`${id}-edges`, t('ropeext.yarn_edges'), EDGES, w.state.yarnEdges, (e) => t(`ropeext.yarn_edges_${e}`));
  const lengthInput = h('input', { type: 'range', id: `${id}-L`, min: 4, max: 64, step: 1, value: w.state.L, class: 'clock-slider' });
  const lengthOut = h('output', { for: `${id}-L`, class: 'clock-out' }, String(w.state.L));
  const body = h('div', { class: 'ropeext-body' });
  el.append(
    h('div', { class: 'ropeext-controls' }, d.row, base.row, h('div', { class: 'clock-control' }, h('label', { for: `${id}-L` }, t('ropeext.L')), lengthInput, lengthOut), scale.row, method.row, edges.row),
    body,
  );
  const read = () => {
    w.state = { d: Number(d.el.value), base: Number(base.el.value), L: Number(lengthInput.value), s: Number(scale.el.value), method: method.el.value, yarnEdges: edges.el.value };
    lengthOut.textContent = lengthInput.value;
    w.update();
  };
  for (const c of [d.el, base.el, scale.el, method.el, edges.el]) c.addEventListener('change', read);
  lengthInput.addEventListener('input', read);
  // Pair i in the map and in the table: hovering or focusing one lights both.
  const pairOf = (target) => target?.closest?.('[data-pair]')?.dataset.pair ?? null;
  let litPair = null;
  const lightPair = (i) => {
    litPair = i;
    for (const x of el.querySelectorAll('[data-pair]')) x.classList.toggle('lit', x.dataset.pair === i);
    if (i === null) delete el.dataset.litPair;
    else el.dataset.litPair = i;
  };
  el.addEventListener('mouseover', (e) => pairOf(e.target) !== null && lightPair(pairOf(e.target)));
  el.addEventListener('mouseout', (e) => pairOf(e.relatedTarget) === null && lightPair(pairOf(document.activeElement)));
  el.addEventListener('focusin', (e) => lightPair(pairOf(e.target)));
  el.addEventListener('focusout', (e) => pairOf(e.relatedTarget) === null && lightPair(null));
  // The map's method and the run's curves of the same method (method-link.js).
  const links = linkMethods(el);

  const args = (st, sValue) => ({ d: st.d, base: st.base, trainedLength: st.L, s: sValue, method: st.method, yarnEdges: st.yarnEdges });
  let ticket = 0;
  let shownS = null;
  let slot = null; // the map's scroll box, redrawn frame by frame while s moves
  let caption = null;
  const nextFrame = (until) =>
    new Promise((ok) => {
      const tick = () => (performance.now() >= until ? ok() : requestAnimationFrame(tick));
      requestAnimationFrame(tick);
    });

  // A change of s is animated: the core's map at FRAMES values of s on the
  // way (skipped under prefers-reduced-motion: the end state at once).
  async function animate(st, from, mine) {
    if (from === null || from === st.s || !slot || !slot.isConnected || reducedMotion()) {
      el.dataset.animFrames = '0';
      return;
    }
    const start = performance.now();
    let frames = 0;
    for (let k = 1; k < FRAMES; k++) {
      const sk = from + ((st.s - from) * k) / FRAMES;
      let map;
      try {
        map = await ctx.core.call('ropeAngleMap', args(st, sk));
      } catch {
        break;
      }
      if (mine !== ticket) return;
      await nextFrame(start + (k * ANIM_MS) / FRAMES);
      if (mine !== ticket) return;
      slot.replaceChildren(picture(map, id));
      caption.textContent = t('ropeext.caption_moving', { s: fmt(sk, 2) });
      frames++;
    }
    el.dataset.animFrames = String(frames);
  }

  w.update = () => {
    const st = { ...w.state };
    const from = shownS;
    const mine = ++ticket;
    const job = (async () => {
      await animate(st, from, mine);
      if (mine !== ticket) return;
      await full(st, mine);
    })();
    return ctx.track ? ctx.track(job) : job;
  };

  async function full(st, mine) {
    try {
      const map = await ctx.core.call('ropeAngleMap', args(st, st.s));
      if (mine !== ticket) return;
      shownS = st.s;
      w.error = null;
      w.result = { leaves: map.leaves.slice(), logitScale: map.logitScale };
      const leaving = map.leaves.map((b, i) => (b ? i : -1)).filter((i) => i >= 0);
      const rows = Array.from({ length: map.pairs }, (_, i) =>
        h('tr', { 'data-pair': i }, h('th', { scope: 'row', tabindex: '0' }, String(i)), h('td', {}, fmt(map.original[i], 5)), h('td', {}, fmt(map.theta[i], 5)), h('td', {}, fmt(map.trainedSpan[i], 3)), h('td', {}, fmt(map.maxAngle[i], 3)), h('td', { class: map.leaves[i] ? 'ropeext-leaves' : '' }, t(map.leaves[i] ? 'ropeext.yes' : 'ropeext.no'))),
      );
      const notes = [];
      if (st.method === 'pi') notes.push(t('ropeext.note_pi'));
      if (st.method === 'ntk') notes.push(t('ropeext.note_ntk', { base: fmt(map.baseUsed, 0) }));
      if (st.method === 'yarn') notes.push(t('ropeext.note_yarn', { alpha: fmt(map.alpha, 2), beta: fmt(map.beta, 2), scale: fmt(map.logitScale, 3) }), t(`ropeext.note_yarn_${st.yarnEdges === 'lab' ? 'lab' : 'paper'}`));
      if (st.method === 'base') notes.push(t('ropeext.note_base', { base: fmt(map.baseUsed, 0) }));
      slot = h('div', { class: 'hm-scroll', tabindex: '-1' }, picture(map, id));
      caption = h('figcaption', {}, t('ropeext.caption', { L: st.L, N: map.positions - 1 }));
      body.replaceChildren(
        h('figure', { class: 'ropeext-figure', 'data-method-key': st.method, 'data-s': String(st.s) }, caption, slot, h('div', { class: 'ropeext-legend-row' }, wheel(), h('p', { class: 'ropeext-legend' }, t('ropeext.legend')))),
        h('p', { class: 'ropeext-summary' }, leaving.length ? t('ropeext.leaving', { pairs: leaving.join(', ') }) : t('ropeext.none_leaving')),
        ...notes.map((n) => h('p', { class: 'ropeext-note' }, n)),
        h(
          'div',
          { class: 'table-scroll', tabindex: '0' },
          h(
            'table',
            { class: 'data-table ropeext-table' },
            h('caption', {}, t('ropeext.table_caption')),
            h('thead', {}, h('tr', {}, ...['pair', 'theta', 'theta_scaled', 'span', 'reach', 'leaves'].map((k) => h('th', { scope: 'col' }, t(`ropeext.col_${k}`))))),
            h('tbody', {}, ...rows),
          ),
        ),
      );
      if (litPair !== null) lightPair(litPair);
      links.refresh();
    } catch (e) {
      if (mine !== ticket) return;
      w.error = e;
      w.result = null;
      body.replaceChildren(errorBox(e));
    }
  }
  return w;
}
