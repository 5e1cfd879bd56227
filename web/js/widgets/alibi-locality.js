// ALiBi's distance penalty where it shows: a sequence of L tokens (width D, the lab's) whose
// every q·k is the same (zero vectors, identity weights, causal mask), so
// that the attention weights are the bias's alone. Three views of one head,
// linked by the query: the attention lines (each query to the keys it
// weighs), the bias map −m·|i − j| (the core's alibiBias) and the fall-off
// curves of every head (the chosen query's weights by distance). Point at or
// focus a query (a line's label or a row of the map) and its lines light,
// its row is framed, and the curves show its weights. No slope is printed
// here: exercise 10's question asks for m₁, and the slopes' table below
// opens once it is answered. Every number comes from the core (forward,
// alibiBias); the page only places and colours them.
import { h, fmt, errorBox } from '../dom.js';
import { t } from '../i18n.js';
import { tableToggle } from './common.js';
import { morphChildren } from './morph.js';
import { viridis } from './heatmap.js';
import { HEAD_COLOURS, HEAD_DASHES, MIN_WEIGHT } from './attention-lines.js';

const SVG = 'http://www.w3.org/2000/svg';
function s(tag, attrs = {}) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) el.setAttribute(k, String(v));
  return el;
}

export function mount(el, block, ctx) {
  const w = { state: { length: block.length ?? 16, head: 0, query: null, distance: null }, result: null, error: null };
  const lengthId = `${block.id}-length`;
  const lengthInput = h('input', { type: 'range', id: lengthId, min: 8, max: 32, step: 1, value: w.state.length, class: 'clock-slider' });
  const lengthOut = h('output', { for: lengthId, class: 'clock-out' }, String(w.state.length));
  const heads = h('div', { class: 'head-picker', role: 'group', 'aria-label': t('lines.heads') });
  const errorSlot = h('div');
  const figure = h('div', { class: 'aloc-views' });
  const readout = h('p', { class: 'readout aloc-readout', 'aria-live': 'polite' });
  const tableBox = h('div', { class: 'table-scroll', tabindex: '0', hidden: true });
  el.append(
    h('p', { class: 'widget-lead' }, t('aloc.lead')),
    h('div', { class: 'aloc-controls' }, heads, h('div', { class: 'clock-control' }, h('label', { for: lengthId }, t('alibi.length')), lengthInput, lengthOut)),
    errorSlot,
    figure,
    readout,
    tableToggle(tableBox),
    tableBox,
  );
  lengthInput.addEventListener('input', () => {
    w.state.length = Number(lengthInput.value);
    lengthOut.textContent = lengthInput.value;
    if (w.state.query !== null && w.state.query >= w.state.length) w.state.query = null;
    w.update();
  });

  let data = null; // { H, L, att, bias, lowest }
  const linesSvg = s('svg', { class: 'aloc-lines', role: 'group' });
  const mapSvg = s('svg', { class: 'aloc-map', role: 'img' });
  // The curves also pick a distance (pointer, or Tab and the arrow keys): every line and bias cell at
  // that distance lights up, the same penalty for every query.
  const curveSvg = s('svg', { class: 'aloc-curves', role: 'slider', tabindex: 0, 'aria-valuemin': 0 });
  figure.append(
    h('figure', { class: 'aloc-panel aloc-lines-panel' }, h('figcaption', {}, t('aloc.lines_caption')), linesSvg),
    h('figure', { class: 'aloc-panel aloc-map-panel' }, h('figcaption', {}, t('aloc.map_caption')), mapSvg, h('div', { class: 'hm-legend', 'aria-hidden': 'true' }, h('span', {}, t('aloc.legend_far')), h('span', { class: 'hm-legend-bar' }), h('span', {}, '0'))),
    h('figure', { class: 'aloc-panel aloc-curve-panel' }, h('figcaption', { class: 'aloc-curve-caption' }), curveSvg),
  );

  // Leaving the lines or the map (mouse) or the queries (focus) lets the last query speak again.
  const focusedQuery = () => (linesSvg.contains(document.activeElement) && document.activeElement.matches('.aloc-q') ? Number(document.activeElement.dataset.query) : null);
  linesSvg.addEventListener('mouseleave', () => setQuery(focusedQuery()));
  mapSvg.addEventListener('mouseleave', () => setQuery(focusedQuery()));
  linesSvg.addEventListener('focusout', (e) => {
    if (!linesSvg.contains(e.relatedTarget)) setQuery(null);
  });
  const weight = (hd, q, k) => data.att[(hd * data.L + q) * data.L + k];
  // On a phone the bias map and the curves share a row above the lines (each about 170 px wide):
  // their drawings are drawn about as large as they show, so that their labels read at ≥ 12 px.
  const onPhone = () => typeof matchMedia === 'function' && matchMedia('(max-width: 40rem)').matches;
  // Wider than a phone (issue 24): the lines and the map side by side, each about 400 px wide at
  // 1280×800, drawn about as large as they show (a viewBox about 400 units wide), and the curves
  // under both, as wide as the two (style.css).
  let mapRow = 200 / 16; // the map's row height, for the frame
  // Labels at least 12 px as drawn, whatever a drawing's scale: the CSS sizes them (style.css), and a
  // drawing shrunk below that (the lines of a long sequence fit 22rem of height, a narrow column)
  // gets a floor, --aloc-min-label, of 12.5 px over its scale.
  const fitLabels = () => {
    for (const svg of [linesSvg, mapSvg, curveSvg]) {
      const m = svg.getScreenCTM?.();
      const k = m ? Math.hypot(m.a, m.b) : 0;
      const floor = k > 0 ? `${(12.5 / k).toFixed(2)}px` : '';
      if (k > 0 && svg.style.getPropertyValue('--aloc-min-label') !== floor) svg.style.setProperty('--aloc-min-label', floor);
    }
  };
  if (typeof ResizeObserver === 'function') new ResizeObserver(fitLabels).observe(figure);
  const queryNow = () => (w.state.query ?? data.L - 1);
  let curveGeom = null; // { left, span, xMax } in the curves' units, from light()
  let mapCol = 200 / 16;
  const setDistance = (d) => {
    if (d === w.state.distance) return;
    w.state.distance = d;
    light();
  };
  curveSvg.addEventListener('mousemove', (e) => {
    const m = curveSvg.getScreenCTM?.();
    if (!data || !m || !curveGeom) return;
    const x = (e.clientX - m.e) / m.a;
    setDistance(Math.max(0, Math.min(queryNow(), Math.round(((x - curveGeom.left) / curveGeom.span) * curveGeom.xMax))));
  });
  curveSvg.addEventListener('mouseleave', () => setDistance(document.activeElement === curveSvg ? w.state.distance : null));
  curveSvg.addEventListener('focus', () => setDistance(w.state.distance ?? 0));
  curveSvg.addEventListener('blur', () => setDistance(null));
  curveSvg.addEventListener('keydown', (e) => {
    if (!data) return;
    const q = queryNow();
    const d = w.state.distance ?? 0;
    const next = { ArrowRight: d + 1, ArrowUp: d + 1, ArrowLeft: d - 1, ArrowDown: d - 1, Home: 0, End: q }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    setDistance(Math.max(0, Math.min(q, next)));
  });

  const setQuery = (q) => {
    if (q === w.state.query) return;
    w.state.query = q;
    light();
  };

  const drawHeads = () => {
    morphChildren(
      heads,
      Array.from({ length: data.H }, (_, i) => {
        const b = h('button', { type: 'button', class: w.state.head === i ? 'head-button' : 'head-button secondary', 'aria-pressed': String(w.state.head === i), 'data-head': String(i) }, h('span', { class: 'head-swatch', style: `border-top: 3px ${HEAD_DASHES[i % 8] ? 'dashed' : 'solid'} ${HEAD_COLOURS[i % 8]}`, 'aria-hidden': 'true' }), t('lines.head', { n: i + 1 }));
        b.addEventListener('click', () => {
          w.state.head = Number(b.dataset.head);
          drawHeads();
          draw();
        });
        return b;
      }),
    );
  };

  // The lines and the map of the chosen head (rebuilt when the head or the length changes).
  const draw = () => {
    const { L, lowest } = data;
    const hd = w.state.head;
    // Lines: queries at the left, keys at the right, one row per position.
    // On a phone the drawing is as wide as the screen (about 1.35× its
    // viewBox): 34 units a row keeps each query a 44 px touch target, as the
    // attention lines' rows are.
    const phone = onPhone();
    const ROW = phone ? 34 : L > 20 ? 10 : 16;
    const top = 22;
    const LW = phone ? 260 : 400;
    const X0 = 44;
    const X1 = LW - 44;
    const y = (p) => top + p * ROW + ROW / 2;
    linesSvg.setAttribute('viewBox', `0 0 ${LW} ${top + L * ROW + 6}`);
    linesSvg.setAttribute('aria-label', t('aloc.lines_aria', { L, h: hd + 1 }));
    const lines = s('g', { class: 'aloc-line-g' });
    for (let q = 0; q < L; q++)
      for (let k = 0; k <= q; k++) {
        const wt = weight(hd, q, k);
        if (!(wt >= MIN_WEIGHT)) continue;
        lines.append(s('path', { class: 'aloc-line', d: `M ${X0 + 4} ${y(q)} C ${(X0 + X1) / 2} ${y(q)}, ${(X0 + X1) / 2} ${y(k)}, ${X1 - 4} ${y(k)}`, stroke: HEAD_COLOURS[hd % 8], 'stroke-dasharray': HEAD_DASHES[hd % 8] || undefined, 'stroke-width': (0.6 + 6 * wt).toFixed(2), opacity: (0.25 + 0.75 * wt).toFixed(2), 'data-query': q, 'data-key': k, 'data-weight': wt }));
      }
    const labels = s('g', { class: 'aloc-labels' });
    const every = L > 20 ? 2 : 1;
    // Every other row named in a long sequence, and the last; not the one just before the last (they would touch).
    const named = (p) => p === L - 1 || (p % every === 0 && !(every > 1 && !phone && p === L - 2));
    for (let p = 0; p < L; p++) {
      const g = s('g', { class: 'aloc-q', tabindex: '0', role: 'button', 'data-query': p, 'aria-label': t('aloc.query_aria', { p: p + 1 }) });
      g.append(s('rect', { x: 0, y: y(p) - ROW / 2, width: X0, height: ROW, fill: 'transparent' }));
      const text = s('text', { x: X0 - 4, y: y(p), 'text-anchor': 'end', 'dominant-baseline': 'middle' });
      text.textContent = named(p) ? String(p + 1) : '·';
      g.append(text);
      g.addEventListener('mouseenter', () => setQuery(p));
      g.addEventListener('focus', () => setQuery(p));
      labels.append(g);
      if (named(p)) {
        const kt = s('text', { x: X1 + 4, y: y(p), 'dominant-baseline': 'middle', class: 'aloc-k', 'aria-hidden': 'true' });
        kt.textContent = String(p + 1);
        labels.append(kt);
      }
    }
    const heading = s('g', { class: 'aloc-heading', 'aria-hidden': 'true' });
    // (from the left edge: a word wider than the labels' column must not run off the drawing)
    const hq = s('text', { x: 0, y: 12 });
    hq.textContent = t('lines.queries');
    const hk = s('text', { x: X1 + 4, y: 12 });
    hk.textContent = t('lines.keys');
    heading.append(hq, hk);
    linesSvg.replaceChildren(lines, labels, heading);

    // The bias map of the head, one colour scale for every head (the steepest head's far corner to 0).
    // On a phone square; wider, as tall as the lines' rows (one row per query, as there) and wide
    // enough for the 400 px its column gives it.
    const S = phone ? 142 : 360;
    const SH = phone ? S : L * ROW;
    const C = (mapCol = S / L);
    const CR = (mapRow = SH / L);
    // Wider, its rows level with the lines' rows: the same row height and top (22 units, under the
    // lines' heading), and the same 400 units of width, so both are drawn at one scale (style.css
    // starts both drawings on one grid row).
    mapSvg.setAttribute('viewBox', phone ? `-24 -4 ${S + 28} ${S + 24}` : `-30 -${top} ${LW} ${SH + top + 20}`);
    mapSvg.setAttribute('aria-label', t('aloc.map_aria', { L, h: hd + 1 }));
    const cells = s('g');
    for (let q = 0; q < L; q++) {
      const row = s('g', { class: 'aloc-row', 'data-query': q });
      row.addEventListener('mouseenter', () => setQuery(q));
      for (let k = 0; k < L; k++) {
        const b = data.bias[(hd * L + q) * L + k];
        row.append(s('rect', { x: k * C, y: q * CR, width: C + 0.3, height: CR + 0.3, fill: k > q ? '#e6e8eb' : viridis(1 - b / lowest).css, class: k > q ? 'masked' : undefined }));
      }
      cells.append(row);
    }
    const frame = s('rect', { class: 'aloc-frame', x: 0, y: 0, width: S, height: CR, fill: 'none' });
    const axis = s('g', { class: 'aloc-axis', 'aria-hidden': 'true' });
    for (const p of [0, L - 1]) {
      const a = s('text', { x: -4, y: p * CR + CR / 2, 'text-anchor': 'end', 'dominant-baseline': 'middle' });
      a.textContent = String(p + 1);
      const b = s('text', { x: p * C + C / 2, y: SH + (phone ? 15 : 14), 'text-anchor': 'middle' });
      b.textContent = String(p + 1);
      axis.append(a, b);
    }
    mapSvg.replaceChildren(cells, frame, axis);

    // The table twin: the chosen head's weights.
    morphChildren(tableBox, [
      h(
        'table',
        { class: 'vec-table aloc-table' },
        h('caption', {}, t('aloc.table_caption', { h: hd + 1, L })),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('lines.query_key')), ...Array.from({ length: L }, (_, k) => h('th', { scope: 'col' }, String(k + 1))))),
        h('tbody', {}, ...Array.from({ length: L }, (_, q) => h('tr', {}, h('th', { scope: 'row' }, String(q + 1)), ...Array.from({ length: L }, (_, k) => h('td', {}, k > q ? '–' : fmt(weight(hd, q, k))))))),
      ),
    ]);
    light();
  };

  // What follows the chosen query: its lines lit, its row framed, the curves of its weights.
  const light = () => {
    if (!data) return;
    const { H, L } = data;
    const q = queryNow();
    const pointed = w.state.query !== null;
    linesSvg.classList.toggle('focused', pointed);
    for (const p of linesSvg.querySelectorAll('.aloc-line')) p.classList.toggle('lit', pointed && Number(p.dataset.query) === q);
    for (const g of linesSvg.querySelectorAll('.aloc-q')) g.classList.toggle('hl', Number(g.dataset.query) === q);
    mapSvg.querySelector('.aloc-frame')?.setAttribute('y', String(q * mapRow));
    // A distance picked on the curves: its lines and its diagonal of the map, for every query.
    const dist = w.state.distance === null ? null : Math.min(w.state.distance, q);
    linesSvg.classList.toggle('by-distance', dist !== null);
    for (const p of linesSvg.querySelectorAll('.aloc-line')) p.classList.toggle('lit-d', dist !== null && Number(p.dataset.query) - Number(p.dataset.key) === dist);
    mapSvg.querySelector('.aloc-diag')?.remove();
    if (dist !== null) {
      const diag = s('g', { class: 'aloc-diag', 'aria-hidden': 'true' });
      for (let r = dist; r < L; r++) diag.append(s('rect', { x: (r - dist) * mapCol, y: r * mapRow, width: mapCol, height: mapRow, 'data-query': r, 'data-key': r - dist }));
      mapSvg.querySelector('.aloc-frame')?.before(diag);
    }
    // Curves: the query's weight on the key d tokens back, every head.
    const phone = onPhone();
    const CW = phone ? 172 : 700;
    const CH = phone ? 168 : 150;
    const pad = phone ? { l: 36, r: 8, t: 8, b: 36 } : { l: 44, r: 14, t: 8, b: 36 };
    const xMax = Math.max(1, L - 1);
    // The y axis up to the largest weight of this query (rounded up to a tenth), so that a long row's small weights still read.
    let top = 0;
    for (let hd = 0; hd < H; hd++) for (let d = 0; d <= q; d++) top = Math.max(top, weight(hd, q, q - d));
    const yTop = Math.min(1, Math.max(0.1, Math.ceil(top * 10 - 1e-9) / 10));
    const X = (d) => pad.l + (d / xMax) * (CW - pad.l - pad.r);
    const Y = (v) => pad.t + (1 - v / yTop) * (CH - pad.t - pad.b);
    curveSvg.setAttribute('viewBox', `0 0 ${CW} ${CH}`);
    curveSvg.setAttribute('aria-label', t('aloc.curves_aria', { q: q + 1, H }));
    curveSvg.setAttribute('aria-valuemax', String(q));
    curveSvg.setAttribute('aria-valuenow', String(dist ?? 0));
    curveSvg.setAttribute('aria-valuetext', t('aloc.distance_value', { d: dist ?? 0 }));
    curveGeom = { left: pad.l, span: CW - pad.l - pad.r, xMax };
    const parts = [];
    const axis = s('g', { class: 'aloc-axis' });
    axis.append(s('line', { x1: pad.l, y1: Y(0), x2: CW - pad.r, y2: Y(0), class: 'aloc-axis-line' }), s('line', { x1: pad.l, y1: Y(0), x2: pad.l, y2: Y(yTop), class: 'aloc-axis-line' }));
    for (const v of [0, yTop / 2, yTop]) {
      const tx = s('text', { x: pad.l - 4, y: Y(v), 'text-anchor': 'end', 'dominant-baseline': 'middle' });
      tx.textContent = fmt(v, 2);
      axis.append(tx);
    }
    for (const d of [0, Math.round(xMax / 2), xMax]) {
      const tx = s('text', { x: X(d), y: Y(0) + 13, 'text-anchor': 'middle' });
      tx.textContent = String(d);
      axis.append(tx);
    }
    const xl = s('text', { x: phone ? CW / 2 : (pad.l + CW - pad.r) / 2, y: CH - 3, 'text-anchor': 'middle', class: 'aloc-axis-title' });
    xl.textContent = t('alibi.distance');
    axis.append(xl);
    parts.push(axis);
    const curves = [];
    for (let hd = 0; hd < H; hd++) {
      const ys = Array.from({ length: q + 1 }, (_, d) => weight(hd, q, q - d));
      curves.push(ys);
      const dpath = ys.map((v, d) => `${d ? 'L' : 'M'} ${X(d).toFixed(1)} ${Y(v).toFixed(1)}`).join(' ');
      parts.push(s('path', { d: dpath, fill: 'none', stroke: HEAD_COLOURS[hd % 8], 'stroke-dasharray': HEAD_DASHES[hd % 8] || undefined, 'stroke-width': hd === w.state.head ? 3 : 1.4, opacity: hd === w.state.head ? 1 : 0.55, class: 'aloc-curve', 'data-head': hd }));
    }
    if (dist !== null) {
      const mark = s('g', { class: 'aloc-d-mark', 'aria-hidden': 'true' });
      mark.append(s('line', { x1: X(dist), y1: Y(0), x2: X(dist), y2: Y(yTop), class: 'aloc-d-line' }));
      for (let hd = 0; hd < H; hd++) mark.append(s('circle', { cx: X(dist), cy: Y(curves[hd][dist]), r: hd === w.state.head ? 4 : 3, fill: HEAD_COLOURS[hd % 8], class: 'aloc-d-dot', 'data-head': hd }));
      parts.push(mark);
    }
    curveSvg.replaceChildren(...parts);
    fitLabels();
    el.querySelector('.aloc-curve-caption').textContent = t('aloc.curves_caption', { q: q + 1 });
    const first = curves[w.state.head];
    const text = dist !== null ? t('aloc.readout_distance', { d: dist, q: q + 1, h: w.state.head + 1, k: q - dist + 1, w: fmt(first[dist]) }) : t('aloc.readout', { q: q + 1, h: w.state.head + 1, w0: fmt(first[0]), w1: fmt(first[1] ?? 0) });
    if (readout.textContent !== text) readout.textContent = text;
    w.result = { L, H, head: w.state.head, query: q, distance: dist, curves, yTop };
  };

  let seq = 0;
  w.prepare = async () => {
    const mine = ++seq;
    const lab = ctx.lab();
    const H = block.heads ?? lab.heads;
    const L = w.state.length;
    try {
      const [r, b] = await Promise.all([
        ctx.core.call('forward', { vectors: Array.from({ length: L }, () => new Array(lab.d).fill(0)), pe: 'alibi', heads: H, weights: 'identity', causal: true }),
        ctx.core.call('alibiBias', { length: L, heads: H }),
      ]);
      return () => {
        if (mine !== seq) return;
        let lowest = -1e-9;
        for (const v of b.bias.data) lowest = Math.min(lowest, v);
        data = { H, L, att: r.attention.data, bias: b.bias.data, lowest };
        if (w.state.head >= H) w.state.head = 0;
        w.error = null;
        errorSlot.replaceChildren();
        figure.hidden = false;
        drawHeads();
        draw();
      };
    } catch (e) {
      return () => {
        if (mine !== seq) return;
        data = null;
        w.result = null;
        w.error = e;
        // Nothing of the last accepted head count stays beside the error.
        figure.hidden = true;
        heads.replaceChildren();
        readout.textContent = '';
        tableBox.replaceChildren();
        errorSlot.replaceChildren(errorBox(e));
      };
    }
  };
  w.update = async () => (await w.prepare())?.();
  return w;
}
