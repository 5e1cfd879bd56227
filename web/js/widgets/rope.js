// RoPE: pick m, n and a shift s (k is the key vector); the core's ropeCheck
// gives ⟨R_m q, R_n k⟩ and ⟨R_{m+s} q, R_{n+s} k⟩. The first pair's rotation is drawn from
// ropeRotate's output.
import { h, errorBox, fmt, fmtSmall } from '../dom.js';
import { t } from '../i18n.js';
import { tex } from '../rich.js';

const SVG = 'http://www.w3.org/2000/svg';
function s(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

function drawing(vectors) {
  const R = 80;
  const svg = s('svg', { viewBox: '-100 -100 200 200', class: 'rope-drawing', role: 'img', 'aria-label': t('rope.drawing_aria') });
  svg.append(s('circle', { cx: 0, cy: 0, r: R, class: 'rope-circle' }));
  svg.append(s('line', { x1: -95, y1: 0, x2: 95, y2: 0, class: 'rope-axis' }));
  svg.append(s('line', { x1: 0, y1: -95, x2: 0, y2: 95, class: 'rope-axis' }));
  const defs = s('defs', {});
  vectors.forEach((v, i) => {
    const m = s('marker', { id: `arrow${i}`, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto-start-reverse' });
    m.append(s('path', { d: 'M0,0 L10,5 L0,10 z', fill: v.colour }));
    defs.append(m);
  });
  svg.append(defs);
  for (const [i, v] of vectors.entries()) {
    const len = Math.hypot(v.x, v.y) || 1; // drawn on the unit circle: only the angle matters here
    svg.append(s('line', { x1: 0, y1: 0, x2: (R * v.x) / len, y2: (-R * v.y) / len, stroke: v.colour, 'stroke-width': 2.5, 'stroke-dasharray': v.dash ?? '', 'marker-end': `url(#arrow${i})` }));
  }
  return svg;
}

export function mount(el, block, ctx) {
  const dHead = block.d_head ?? 8;
  const w = { state: { m: 3, n: 1, shift: 0 }, result: null, error: null };
  for (const [key, urlKey] of [['m', 'm'], ['n', 'n'], ['shift', 'k']]) {
    const v = ctx.getUrl(urlKey);
    if (Number.isInteger(v) && v >= 0) w.state[key] = v;
  }
  const inputs = {};
  const field = (key, urlKey, label) => {
    const input = h('input', { type: 'number', min: 0, max: 100000, step: 1, value: w.state[key], class: 'num', id: `${block.id}-${key}` });
    input.addEventListener('change', () => {
      const v = Number(String(input.value).normalize('NFKC'));
      if (!Number.isInteger(v) || v < 0) {
        errorSlot.replaceChildren(h('p', { class: 'core-error', role: 'alert' }, t('rope.bad_input', { label })));
        return;
      }
      w.state[key] = v;
      ctx.setUrl(urlKey, v);
      w.update(true);
    });
    inputs[key] = input;
    return h('label', { for: `${block.id}-${key}`, class: 'inline-field' }, t(`rope.field_${key}`), input);
  };
  const errorSlot = h('div');
  const body = h('div', { class: 'rope-body' });
  el.append(h('div', { class: 'field-row' }, field('m', 'm', 'm'), field('n', 'n', 'n'), field('shift', 'k', 's')), errorSlot, body);

  w.update = async (user = false) => {
    errorSlot.replaceChildren();
    const { m, n, shift } = w.state;
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
      ]);
      const bad = rot.find((x) => !x.ok);
      if (bad) throw bad.error;
      const [rq, rk, sq, sk] = rot.map((x) => x.result);
      w.result = { score: r.score, shiftedScore: r.shiftedScore, diff: r.diff };
      w.error = null;
      body.replaceChildren(
        h(
          'div',
          { class: 'rope-layout' },
          drawing([
            { x: rq[0], y: rq[1], colour: '#0072B2' },
            { x: rk[0], y: rk[1], colour: '#D55E00' },
            { x: sq[0], y: sq[1], colour: '#0072B2', dash: '5 4' },
            { x: sk[0], y: sk[1], colour: '#D55E00', dash: '5 4' },
          ]),
          h(
            'div',
            {},
            h(
              'ul',
              { class: 'lp-legend' },
              h('li', {}, h('span', { class: 'lp-swatch', style: 'border-top:3px solid #0072B2', 'aria-hidden': 'true' }), h('span', { html: tex(`R_{${m}}\\,q`) })),
              h('li', {}, h('span', { class: 'lp-swatch', style: 'border-top:3px solid #D55E00', 'aria-hidden': 'true' }), h('span', { html: tex(`R_{${n}}\\,k`) })),
              h('li', {}, h('span', { class: 'lp-swatch', style: 'border-top:3px dashed #0072B2', 'aria-hidden': 'true' }), h('span', { html: tex(`R_{${m + shift}}\\,q`) })),
              h('li', {}, h('span', { class: 'lp-swatch', style: 'border-top:3px dashed #D55E00', 'aria-hidden': 'true' }), h('span', { html: tex(`R_{${n + shift}}\\,k`) })),
            ),
            h(
              'dl',
              { class: 'rope-scores', 'aria-live': 'polite' },
              h('dt', { html: tex(`\\langle R_{${m}} q,\\ R_{${n}} k \\rangle`) }),
              h('dd', { 'data-value': String(r.score) }, fmt(r.score, 4)),
              h('dt', { html: tex(`\\langle R_{${m + shift}} q,\\ R_{${n + shift}} k \\rangle`) }),
              h('dd', { 'data-value': String(r.shiftedScore) }, fmt(r.shiftedScore, 4)),
              h('dt', {}, t('rope.diff')),
              h('dd', { 'data-value': String(r.diff) }, fmtSmall(r.diff)),
            ),
            h('p', { class: 'muted' }, t('rope.m_minus_n', { d: m - n })),
          ),
        ),
      );
    } catch (e) {
      w.result = null;
      w.error = e;
      body.replaceChildren(errorBox(e));
    }
    ctx.changed(block.id, user === true);
  };
  return w;
}
