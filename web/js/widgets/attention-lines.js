// Attention drawn as lines (as bertviz's head view does): the tokens twice,
// as queries on the left and as keys on the right, one line per (query, key)
// pair and head, its width and opacity the core's weight; one colour and one
// dash pattern per head, and a head picker. Focus or hover a token and only
// its lines stay lit. Linked to a tokens widget, the lines follow the
// learner's order, keyed by token identity, so a reorder slides each line to
// its new place; beside them, Attention(X) and P⁻¹·Attention(PX)·P aligned
// token by token, every cell's difference coloured (all grey without
// position information). With the causal mask the masked pairs have weight
// 0 and draw no line: every line runs to the same token or an earlier one.
// With `encoding` (exercise 4, wide screens): left of the query labels, the
// position encoding added at each place, one row per position (its D values
// as cells), fixed while the tokens slide past it, linked by position; its
// colours on −1…1 (sin and cos), or on the learned table's own range (its
// values are small, N(0, 0.02²)), said in a key under it. Under that, a row
// of small clocks (the sinusoidal pairs' hands, as the clocks widget draws
// them) at the position lit anywhere on the page.
import { h, fmt, fmtSmall, errorBox } from '../dom.js';
import { t } from '../i18n.js';
import { forwardArgs, tableToggle } from './common.js';
import { morphChildren } from './morph.js';
import { puor } from './heatmap.js';
import { handAngle } from './clocks.js';
import { maxAbs } from '../extent.js';

const SVG = 'http://www.w3.org/2000/svg';
function s(tag, attrs = {}) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) el.setAttribute(k, String(v));
  return el;
}

// Okabe–Ito colours and a dash pattern per head: colour is never the only cue.
// (Okabe–Ito's yellow, #F0E442, is a dark yellow here: a thin line of it
// hardly shows on white.) Shared with ALiBi's locality picture, so a head has
// one colour and dash on every page.
export const HEAD_COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#56B4E9', '#E69F00', '#000000', '#8a6d00'];
export const HEAD_DASHES = ['', '6 3', '2 3', '8 3 2 3', '1 2', '10 4', '4 2 1 2', '3 6'];
export const MIN_WEIGHT = 0.01; // below this a line would be invisible: none is drawn
// Rows are taller on a phone, so that a token's label is a 44 px touch target there; there the
// rows start right under the Query and Key heading and the drawing ends at the last row's target
// (issue 24: exercise 1's whole lines on a phone's first screen, under the chips).
const PHONE = typeof matchMedia === 'function' && matchMedia('(max-width: 760px)').matches;
const ROW = PHONE ? 54 : 34;
const TOP = PHONE ? 20 : 30;
const BOTTOM = PHONE ? 2 : 10;
// The encoding strip's width, in the drawing's units (its D cells share it).
const STRIP = 112;
// The small clocks under the lines: at most this many pairs (the fastest; all of them in the clocks widget).
const MINI_CLOCKS = 8;
const MINI_R = 20;

export const lineWidth = (w) => 0.75 + 7 * w;

export function mount(el, block, ctx) {
  const w = { state: { head: 'all', focus: null }, result: null, error: null };
  // The strip of the encoding: on a wide screen only (a phone keeps the lines' 44 px rows; the table follows
  // below), and not on the presenter's slide (its labels would be under the projector's 16 px there).
  const enc = Boolean(block.encoding && block.tokens) && !PHONE && !ctx.presenter;
  const OFF = enc ? STRIP : 0;
  const WIDTH = 420 + OFF;
  const LEFT = 130 + OFF;
  const RIGHT = WIDTH - 130;
  const heads = h('div', { class: 'head-picker', role: 'group', 'aria-label': t('lines.heads') });
  const svgBox = h('div', { class: 'lines-box' });
  const diffBox = h('div', { class: 'lines-diff' });
  const readout = h('p', { class: 'readout', 'aria-live': 'polite' });
  const tableBox = h('div', { class: 'table-scroll', tabindex: '0', hidden: true });
  const toggle = tableToggle(tableBox);
  el.append(h('p', { class: 'widget-lead' }, t(block.tokens ? 'lines.lead_linked' : 'lines.lead')), heads, h('div', { class: block.diff_first ? 'lines-layout diff-first' : 'lines-layout' }, svgBox, diffBox), readout, toggle, tableBox);

  // The drawing is kept between updates: paths keyed by head·query·key token
  // identity, labels by token identity, so a reorder moves them (CSS transitions).
  // A group, not an image: the query labels inside it are focusable.
  const svg = s('svg', { class: 'lines-svg', role: 'group' });
  const linesG = s('g', { class: 'lines' });
  const labelsG = s('g', { class: 'line-labels' });
  const stripG = s('g', { class: 'pe-strip' });
  svg.append(linesG, labelsG);
  if (enc) svg.append(stripG);
  svgBox.append(svg);
  // Under the drawing (where the lines leave room): the strip's colour key, the
  // clocks at the lit position, and what the strip is (not in the lead above it).
  const peKey = h('div', { class: 'hm-legend lines-pe-key' });
  const clocksTitle = h('p', { class: 'lines-clocks-title' });
  const clocksRow = h('div', { class: 'lines-clocks-row', role: 'img' });
  const clocksBox = h('div', { class: 'lines-clocks' }, clocksTitle, clocksRow);
  if (enc) svgBox.append(peKey, clocksBox, h('p', { class: 'muted lines-pe-note' }, t('lines.pe_lead')));
  const paths = new Map();
  const labels = new Map();
  let last = null; // {ids, names, att, H, S}

  // The page's one highlighted token (highlight.js): its lines stay lit, the
  // others fade. Labels, diff rows and columns get .hl from the shared state.
  const setFocus = (id) => {
    w.state.focus = id;
    svg.classList.toggle('focused', id !== null);
    for (const p of paths.values()) p.classList.toggle('lit', id !== null && p.dataset.hlRow === id);
  };
  ctx.highlight?.onChange(setFocus);

  const drawHeads = (H) => {
    const options = ['all', ...Array.from({ length: H }, (_, i) => i)];
    // In place: the pressed button keeps its element, and so the keyboard focus.
    morphChildren(
      heads,
      options.map((o) => {
        const b = h('button', { type: 'button', class: w.state.head === o ? 'head-button' : 'head-button secondary', 'aria-pressed': String(w.state.head === o), 'data-head': String(o) }, o === 'all' ? t('lines.all_heads') : h('span', {}, h('span', { class: 'head-swatch', style: `border-top: 3px ${HEAD_DASHES[o % 8] ? 'dashed' : 'solid'} ${HEAD_COLOURS[o % 8]}`, 'aria-hidden': 'true' }), t('lines.head', { n: o + 1 })));
        b.addEventListener('click', () => {
          // The button's head, read when pressed (a kept button keeps its first listener).
          const v = b.dataset.head;
          w.state.head = v === 'all' ? 'all' : Number(v);
          drawHeads(last.H);
          draw();
        });
        return b;
      }),
    );
  };

  // The encoding added at each place (last.pe: {data, D} of S rows, or null
  // without position information: nothing is added, every cell 0). A row per
  // position, not per token: it stays where it is when the tokens move.
  const drawStrip = (S, y) => {
    const pe = last.pe;
    const D = pe ? pe.D : ctx.lab().d;
    const x0 = 4;
    const cw = (STRIP - 18) / D;
    const key = `${S}:${D}`;
    if (stripG.dataset.shape !== key) {
      stripG.dataset.shape = key;
      const head = s('text', { class: 'pe-strip-heading', x: x0, y: 14 });
      const rows = Array.from({ length: S }, (_, p) => {
        const g = s('g', { class: 'pe-row', 'data-hl-pos': String(p), transform: `translate(0 ${y(p)})` });
        g.append(s('title'), s('rect', { class: 'pe-row-frame', x: x0 - 2, y: -ROW / 2 + 2, width: D * cw + 4, height: ROW - 4, fill: 'transparent' }));
        for (let d = 0; d < D; d++) g.append(s('rect', { class: 'pe-cell', x: x0 + d * cw, y: -ROW / 2 + 5, width: Math.max(1, cw - 1), height: ROW - 10, 'data-dim': String(d) }));
        return g;
      });
      stripG.replaceChildren(head, ...rows);
    }
    stripG.querySelector('.pe-strip-heading').textContent = pe ? t('lines.pe_heading') : t('lines.pe_heading_none');
    stripG.dataset.scheme = pe ? pe.scheme : 'none';
    // Sin and cos on −1…1; the learned table (N(0, 0.02²): all near 0, near white on −1…1) on its own range.
    const learned = pe && pe.scheme === 'learned';
    const range = learned ? maxAbs(Array.from(pe.data.slice(0, S * D))) || 1 : 1;
    stripG.dataset.range = String(range);
    const end = learned ? fmt(range) : '1';
    peKey.replaceChildren(h('span', {}, `−${end}`), h('span', { class: 'hm-legend-bar diverging' }), h('span', {}, `+${end}`), h('span', { class: 'lines-pe-key-text' }, t(!pe ? 'lines.pe_key_none' : learned ? 'lines.pe_key_learned' : 'lines.pe_key_sin', { m: end })));
    peKey.dataset.range = String(range);
    for (const g of stripG.querySelectorAll('.pe-row')) {
      const p = Number(g.dataset.hlPos);
      const vals = Array.from({ length: D }, (_, d) => (pe ? pe.data[p * D + d] : 0));
      g.querySelectorAll('.pe-cell').forEach((r, d) => {
        r.setAttribute('fill', puor((vals[d] / range + 1) / 2).css);
        r.dataset.value = String(vals[d]);
      });
      g.firstChild.textContent = t('lines.pe_row', { n: p + 1, values: vals.map((v) => fmt(v)).join(', ') });
    }
  };

  // The small clocks: one per sinusoidal pair (2i, 2i+1), its hand at
  // (sin, cos) = (PE[pos, 2i], PE[pos, 2i+1]) from the core, at the position
  // lit on the page (kept when the light goes out), the last one at first.
  let clockPos = null;
  let clockLit = false;
  let minis = [];
  const miniTurned = new Map();
  const drawClocks = () => {
    const sin = last && last.sin;
    if (!enc || !sin) return;
    const { D, data, S } = sin;
    if (clockPos === null || clockPos >= S) clockPos = S - 1;
    const n = Math.min(MINI_CLOCKS, D / 2);
    if (minis.length !== n) {
      miniTurned.clear();
      minis = Array.from({ length: n }, (_, i) => {
        const svgC = s('svg', { viewBox: `${-MINI_R - 2} ${-MINI_R - 2} ${2 * MINI_R + 4} ${2 * MINI_R + 4}`, class: 'mini-clock', 'data-pair': String(i), 'aria-hidden': 'true' });
        svgC.append(s('circle', { r: MINI_R, class: 'clock-rim' }));
        for (let q = 0; q < 4; q++) {
          const a = (q * Math.PI) / 2;
          svgC.append(s('line', { x1: (MINI_R - 4) * Math.sin(a), y1: -(MINI_R - 4) * Math.cos(a), x2: MINI_R * Math.sin(a), y2: -MINI_R * Math.cos(a), class: 'clock-tick' }));
        }
        const g = s('g', { class: 'clock-rot' });
        g.append(s('line', { x1: 0, y1: 0, x2: 0, y2: -(MINI_R - 3), class: 'clock-hand' }));
        svgC.append(g, s('circle', { r: 2, class: 'clock-hub' }));
        const item = h('span', { class: 'mini-clock-item', 'data-pair': String(i) }, svgC, h('span', { class: 'mini-clock-label' }, `${2 * i},${2 * i + 1}`));
        return { item, g };
      });
      clocksRow.replaceChildren(...minis.map((m) => m.item));
    }
    for (const [i, m] of minis.entries()) {
      const sv = data[clockPos * D + 2 * i];
      const cv = data[clockPos * D + 2 * i + 1];
      const angle = handAngle(sv, cv);
      // Unwrapped, so 350° → 10° turns forward by 20°.
      const prev = miniTurned.get(i);
      let shownAngle = angle;
      if (prev !== undefined) shownAngle = prev + ((((angle - prev + 180) % 360) + 360) % 360) - 180;
      miniTurned.set(i, shownAngle);
      m.g.style.transform = `rotate(${shownAngle}deg)`;
      m.item.dataset.sin = String(sv);
      m.item.dataset.cos = String(cv);
    }
    clocksBox.dataset.pos = String(clockPos);
    clocksBox.classList.toggle('lit', clockLit);
    clocksTitle.textContent = t('lines.clocks_title', { n: clockPos + 1, pos: clockPos });
    clocksRow.setAttribute('aria-label', t('lines.clocks_aria', { n: clockPos + 1, pos: clockPos, shown: n, pairs: D / 2 }));
  };
  ctx.positionHighlight?.onChange((p) => {
    const v = p === null ? null : Number(p);
    const S = last?.sin?.S ?? 0;
    clockLit = v !== null && Number.isInteger(v) && v >= 0 && v < S;
    if (clockLit) clockPos = v;
    drawClocks();
  });

  // ids[p]: the token (its index in the typed sentence) at position p.
  const draw = () => {
    if (!last) return;
    const { ids, names, att, H, S } = last;
    const height = TOP + S * ROW + BOTTOM;
    svg.setAttribute('viewBox', `0 0 ${WIDTH} ${height}`);
    svg.setAttribute('aria-label', t('lines.aria', { S, H }));
    const y = (p) => TOP + p * ROW + ROW / 2;
    const seen = new Set();
    const shown = w.state.head === 'all' ? Array.from({ length: H }, (_, i) => i) : [w.state.head];
    for (const hd of shown) {
      for (let qi = 0; qi < S; qi++) {
        for (let kj = 0; kj < S; kj++) {
          const weight = att[(hd * S + qi) * S + kj];
          if (!(weight >= MIN_WEIGHT)) continue;
          const key = `${hd}:${ids[qi]}:${ids[kj]}`;
          seen.add(key);
          let p = paths.get(key);
          if (!p) {
            p = s('path', { class: 'att-line', fill: 'none' });
            paths.set(key, p);
            linesG.append(p);
          }
          const y0 = y(qi);
          const y1 = y(kj);
          p.style.d = `path("M ${LEFT + 6} ${y0} C ${(LEFT + RIGHT) / 2} ${y0}, ${(LEFT + RIGHT) / 2} ${y1}, ${RIGHT - 6} ${y1}")`;
          p.style.stroke = HEAD_COLOURS[hd % 8];
          p.style.strokeDasharray = HEAD_DASHES[hd % 8];
          p.style.strokeWidth = String(lineWidth(weight));
          p.style.opacity = String(0.2 + 0.8 * weight);
          p.dataset.head = String(hd);
          p.dataset.query = String(qi);
          p.dataset.key = String(kj);
          p.dataset.weight = String(weight);
          p.dataset.hlRow = String(ids[qi]);
          p.dataset.hlCol = String(ids[kj]);
        }
      }
    }
    for (const [key, p] of paths)
      if (!seen.has(key)) {
        p.remove();
        paths.delete(key);
      }
    const seenLabels = new Set();
    for (const [side, x, anchor] of [['q', LEFT, 'end'], ['k', RIGHT, 'start']]) {
      for (let p = 0; p < S; p++) {
        const key = `${side}:${ids[p]}`;
        seenLabels.add(key);
        let g = labels.get(key);
        if (!g) {
          g = s('g', { class: 'line-label', 'data-hl-token': String(ids[p]) });
          g.append(s('text', { x, y: 0, 'text-anchor': anchor, 'dominant-baseline': 'middle' }));
          labels.set(key, g);
          labelsG.append(g);
          if (side === 'q') {
            g.setAttribute('tabindex', '0');
            g.setAttribute('role', 'button');
            g.prepend(s('rect', { class: 'line-hit', x: OFF, y: -ROW / 2, width: LEFT - OFF + 4, height: ROW, fill: 'transparent' }));
          }
        }
        g.style.transform = `translateY(${y(p)}px)`;
        // The place it stands at now (the position highlight: the encoding's column, the clocks).
        if (g.dataset.hlPos !== String(p)) g.dataset.hlPos = String(p);
        const text = side === 'q' ? `${names[ids[p]]} ${p + 1}` : `${p + 1} ${names[ids[p]]}`;
        const label = g.querySelector('text');
        if (label.textContent !== text) label.textContent = text;
        if (side === 'q') g.setAttribute('aria-label', t('lines.token_aria', { label: text, pos: p + 1 }));
      }
    }
    for (const [key, g] of labels)
      if (!seenLabels.has(key)) {
        g.remove();
        labels.delete(key);
      }
    let headText = svg.querySelector('.lines-heading');
    if (!headText) {
      headText = s('g', { class: 'lines-heading' });
      headText.append(s('text', { x: LEFT, y: 14, 'text-anchor': 'end' }), s('text', { x: RIGHT, y: 14, 'text-anchor': 'start' }));
      svg.append(headText);
    }
    if (headText.children[0].textContent !== t('lines.queries')) headText.children[0].textContent = t('lines.queries');
    if (headText.children[1].textContent !== t('lines.keys')) headText.children[1].textContent = t('lines.keys');
    if (enc) {
      drawStrip(S, y);
      drawClocks();
    }
    ctx.highlight?.refresh();
    ctx.positionHighlight?.refresh();
    setFocus(ctx.highlight?.get() ?? null);
    // The table twin: the shown head's weights (head 1 for "all").
    const hd = shown[0];
    morphChildren(tableBox, [
      h(
        'table',
        { class: 'vec-table lines-table' },
        h('caption', {}, t('lines.table_caption', { n: hd + 1 })),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('lines.query_key')), ...ids.map((id, p) => h('th', { scope: 'col' }, `${p + 1} ${names[id]}`)))),
        h('tbody', {}, ...ids.map((id, qi) => h('tr', {}, h('th', { scope: 'row' }, `${qi + 1} ${names[id]}`), ...ids.map((_, kj) => h('td', {}, fmt(att[(hd * S + qi) * S + kj])))))),
      ),
    ]);
  };

  let seq = 0;
  // Asks the core; resolves with the redraw (runner.js draws every widget in one go).
  w.prepare = async () => {
    const mine = ++seq;
    const lab = ctx.lab();
    const fail = (e) => () => {
      if (mine !== seq) return;
      w.result = null;
      w.error = e;
      svgBox.hidden = true;
      tableBox.replaceChildren();
      diffBox.replaceChildren(errorBox(e));
    };
    if (block.tokens) {
      const chips = ctx.widgets.get(block.tokens);
      if (!chips || chips.error || !chips.state.tokens.length) {
        return () => {
          // No tokens (an empty or refused sentence): no figure of the old ones.
          w.result = null;
          svgBox.hidden = true;
          diffBox.replaceChildren();
          tableBox.replaceChildren();
          readout.className = 'readout';
          readout.textContent = t('outputs.need_tokens');
        };
      }
      const { tokens } = chips.state;
      const order = chips.state.order.slice();
      let check;
      let pe = null;
      let sinT = null;
      try {
        // The strip's rows: the table the scheme adds, for these S positions (none without one).
        const table = enc && (lab.pe === 'sinusoidal' || lab.pe === 'learned') ? ctx.core.call('encoding', { scheme: lab.pe, length: tokens.length, dModel: lab.d, seed: lab.seed }) : null;
        // The small clocks' hands: sinusoidal's table whatever the scheme (the strip's own when it is sinusoidal).
        const sinTable = enc ? (lab.pe === 'sinusoidal' ? table : ctx.core.call('encoding', { scheme: 'sinusoidal', length: tokens.length, dModel: lab.d })) : null;
        [check, pe, sinT] = await Promise.all([ctx.core.call('permutationCheck', forwardArgs(lab, { permutation: order })), table, sinTable]);
      } catch (e) {
        return fail(e);
      }
      return () => {
        if (mine !== seq) return;
        const att = check.permuted.attention.data;
        const [H, S] = check.permuted.attention.shape;
        // P⁻¹·Attention(PX)·P next to Attention(X): token i's row and token j's
        // column, wherever the reorder put them.
        const where = new Array(S);
        order.forEach((tok, p) => (where[tok] = p));
        if (w.state.head !== 'all' && w.state.head >= H) w.state.head = 'all';
        const hd = w.state.head === 'all' ? 0 : w.state.head;
        const a = check.original.attention.data;
        const diff = Array.from({ length: S }, (_, i) => Array.from({ length: S }, (_, j) => att[(hd * S + where[i]) * S + where[j]] - a[(hd * S + i) * S + j]));
        let maxAbsDiff = 0; // a loop, not a spread of S² values
        for (const row of diff) for (const v of row) maxAbsDiff = Math.max(maxAbsDiff, Math.abs(v));
        w.result = { maxAbsDiff, head: hd };
        show({ ids: order, names: tokens, att, H, S, pe: pe && { scheme: lab.pe, data: pe.encoding.data, D: pe.encoding.shape[1] }, sin: sinT && { data: sinT.encoding.data, D: sinT.encoding.shape[1], S } }, diff, lab);
      };
    }
    let r;
    try {
      r = await ctx.core.call('forward', forwardArgs(lab));
    } catch (e) {
      return fail(e);
    }
    return () => {
      if (mine !== seq) return;
      const [H, S] = r.attention.shape;
      w.result = {};
      if (w.state.head !== 'all' && w.state.head >= H) w.state.head = 'all';
      show({ ids: r.tokens.map((_, i) => i), names: r.tokens, att: r.attention.data, H, S }, null, lab);
    };
  };
  w.update = async () => (await w.prepare())?.();

  // Draws the core's answer: the lines, the heads, and (linked) the difference grid.
  const show = (drawing, diff, lab) => {
    const { ids, names, H, S } = drawing;
    svgBox.hidden = false;
    last = drawing;
    drawHeads(H);
    // One head: nothing to pick (the picker would only push the picture down).
    heads.style.display = H === 1 ? 'none' : '';
    draw();
    if (diff) {
      const hd = w.result.head;
      const tiny = w.result.maxAbsDiff < 1e-4;
      // In place: the grid's cells keep their elements, only their colours change.
      morphChildren(diffBox, [
        h('p', { class: 'lines-diff-title' }, t('lines.diff_title', { n: hd + 1 })),
        h(
          'div',
          { class: 'diff-grid', style: `grid-template-columns: auto repeat(${S}, minmax(1.6rem, 1fr))`, role: 'img', 'aria-label': t('lines.diff_aria', { max: fmtSmall(w.result.maxAbsDiff) }) },
          h('span', {}),
          ...names.map((n, j) => h('span', { class: 'diff-col', 'data-hl-token': String(j), title: n }, n)),
          ...diff.flatMap((rowv, i) => [
            // Token i's row, at the place the reorder put it (the position highlight: strip row, clocks).
            h('span', { class: 'diff-row', 'data-hl-token': String(i), 'data-hl-pos': String(ids.indexOf(i)), title: names[i] }, names[i]),
            ...rowv.map((d, j) => h('span', { class: `diff-cell ${Math.abs(d) < 1e-4 ? 'zero' : d > 0 ? 'pos' : 'neg'}`, style: Math.abs(d) < 1e-4 ? undefined : `--a:${Math.min(1, 0.25 + Math.abs(d) * 4)}`, 'data-hl-row': String(i), 'data-hl-col': String(j), 'data-diff': String(d), title: fmtSmall(Math.abs(d)) }, '')),
          ]),
        ),
        h('p', { class: 'muted' }, t('lines.diff_key')),
      ]);
      ctx.positionHighlight?.refresh();
      const cls = `readout ${tiny ? 'same' : 'differ'}`;
      if (readout.className !== cls) readout.className = cls;
      // Before any reorder there is nothing to compare yet.
      const identity = ids.every((id, p) => id === p);
      const text = identity ? t('outputs.identity') : t(tiny ? 'lines.diff_same' : 'lines.diff_differ', { max: fmtSmall(w.result.maxAbsDiff) });
      if (readout.textContent !== text) readout.textContent = text;
      ctx.highlight?.refresh();
    } else {
      diffBox.replaceChildren();
      readout.className = 'readout';
      readout.textContent = lab.causal ? t('lines.causal_note') : '';
    }
    w.error = null;
  };
  return w;
}
