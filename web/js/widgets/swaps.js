// With the causal mask on and no position information: swap two tokens and
// see whether token i's output changes. The same function gives the live
// answer of the "which swaps change token i" question. Above the list, a
// picture: the sentence in a row, token i's attention drawn as arcs to the
// tokens it sees (only leftward: the mask hides the rest, greyed); a swap
// slides the two tokens to each other's place and the arcs follow their
// tokens, and a readout says from the core's numbers whether i's weights
// and output stayed or changed.
import { h, errorBox, row, fmt, fmtSmall } from '../dom.js';
import { t } from '../i18n.js';
import { rowsDiffer, swapPermutation } from '../check.js';
import { vectorTable } from './common.js';

// a, b, token: 1-based positions. Follows the token that stood at `token`.
export async function swapEffect(core, lab, token, a, b) {
  const tokens = await core.call('tokenize', lab.sentence);
  const n = tokens.length;
  if (Math.max(a, b, token) > n) {
    const e = new Error(`needs ${Math.max(a, b, token)} tokens`);
    e.code = 'page_too_few_tokens';
    e.params = { need: Math.max(a, b, token), have: n };
    throw e;
  }
  const permutation = swapPermutation(n, a - 1, b - 1);
  const check = await core.call('permutationCheck', { text: lab.sentence, pe: 'none', causal: true, dModel: lab.d, seed: lab.seed, permutation });
  const t0 = token - 1;
  const moved = permutation.indexOf(t0);
  const before = row(check.original.output, t0);
  const after = row(check.permuted.output, moved);
  // Token i's weight on each token (by the token, wherever it stands), head 1.
  const wBefore = Array.from({ length: n }, (_, k) => check.original.attention.data[t0 * n + k]);
  const wAfter = new Array(n);
  permutation.forEach((tok, p) => (wAfter[tok] = check.permuted.attention.data[moved * n + p]));
  const outputGap = Math.max(...before.map((v, k) => Math.abs(v - after[k])));
  const weightGap = Math.max(...wBefore.map((v, k) => Math.abs(v - wAfter[k])));
  return { tokens, changed: rowsDiffer(before, after, 1e-6), before, after, movedTo: moved + 1, permutation, wBefore, wAfter, outputGap, weightGap };
}

// Where a swap of positions a and b stands relative to token i (1-based).
export function swapKind(a, b, i) {
  if (a === i || b === i) return 'self';
  if (a < i && b < i) return 'before';
  if (a > i && b > i) return 'after';
  return 'across';
}

const SVG = 'http://www.w3.org/2000/svg';
function s(tag, attrs = {}) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) el.setAttribute(k, String(v));
  return el;
}
const COL = 64;
const BASE = 112;

// The picture: labels and arcs keyed by token, so that a new arrangement
// slides them (CSS transitions on transform and d; none with reduced motion).
function stage() {
  const svg = s('svg', { class: 'swap-svg', role: 'img' });
  const arcsG = s('g', { class: 'swap-arcs' });
  const labelsG = s('g', { class: 'swap-labels' });
  svg.append(arcsG, labelsG);
  const labels = new Map();
  const arcs = new Map();
  // order[p]: the token at position p; watched: the token followed; weights[tok]: its weight on tok.
  const draw = (tokens, order, watched, weights, ariaLabel, swapped = []) => {
    const n = order.length;
    svg.setAttribute('viewBox', `0 0 ${n * COL + 16} ${BASE + 30}`);
    svg.setAttribute('aria-label', ariaLabel);
    const at = new Array(n);
    order.forEach((tok, p) => (at[tok] = p));
    const x = (p) => 8 + p * COL + COL / 2;
    const wp = at[watched];
    for (let tok = 0; tok < n; tok++) {
      let g = labels.get(tok);
      if (!g) {
        g = s('g', { class: 'swap-label', 'data-hl-token': String(tok) });
        g.append(s('text', { x: 0, y: BASE + 18, 'text-anchor': 'middle' }));
        labels.set(tok, g);
        labelsG.append(g);
      }
      g.firstChild.textContent = tokens[tok];
      g.style.transform = `translateX(${x(at[tok])}px)`;
      g.classList.toggle('watched', tok === watched);
      g.classList.toggle('unseen', at[tok] > wp);
      g.classList.toggle('swapped', swapped.includes(tok));
      g.dataset.pos = String(at[tok] + 1);
    }
    for (const [tok, g] of labels)
      if (tok >= n) {
        g.remove();
        labels.delete(tok);
      }
    for (let tok = 0; tok < n; tok++) {
      const w = weights[tok];
      let p = arcs.get(tok);
      if (!p) {
        p = s('path', { class: 'swap-arc', fill: 'none' });
        arcs.set(tok, p);
        arcsG.append(p);
      }
      const x0 = x(wp);
      const x1 = x(at[tok]);
      const y0 = BASE;
      const rise = tok === watched ? 40 : Math.min(BASE - 6, 24 + Math.abs(x1 - x0) * 0.45);
      p.style.d = tok === watched ? `path("M ${x0 - 7} ${y0} C ${x0 - 20} ${y0 - rise}, ${x0 + 20} ${y0 - rise}, ${x0 + 7} ${y0}")` : `path("M ${x0} ${y0} C ${x0} ${y0 - rise}, ${x1} ${y0 - rise}, ${x1} ${y0}")`;
      p.style.strokeWidth = String(0.75 + 9 * w);
      p.style.opacity = w > 0 ? String(0.3 + 0.7 * w) : '0';
      p.dataset.hlRow = String(watched);
      p.dataset.hlCol = String(tok);
      p.dataset.key = String(tok);
      p.dataset.keyPos = String(at[tok] + 1);
      p.dataset.weight = String(w);
    }
    for (const [tok, p] of arcs)
      if (tok >= n) {
        p.remove();
        arcs.delete(tok);
      }
  };
  return { svg, draw };
}

export function mount(el, block, ctx) {
  const w = { state: { tried: [] }, result: { tried: {} }, error: null };
  const intro = h('p', { class: 'muted' });
  const presets = h('div', { class: 'swap-buttons', role: 'group', 'aria-label': t('swaps.presets') });
  const selA = h('select', { 'aria-label': t('swaps.first') });
  const selB = h('select', { 'aria-label': t('swaps.second') });
  const custom = h('button', { type: 'button' }, t('swaps.try'));
  const results = h('ul', { class: 'swap-results', 'aria-live': 'polite' });
  const errorSlot = h('div');
  const pic = stage();
  const stageTitle = h('p', { class: 'swap-stage-title' });
  const stageKey = h('p', { class: 'muted swap-key' });
  const stageReadout = h('p', { class: 'readout swap-readout', 'aria-live': 'polite' });
  const stageBox = h('div', { class: 'swap-stage' }, stageTitle, h('div', { class: 'swap-svg-box' }, pic.svg), stageKey, stageReadout);
  el.append(intro, presets, h('div', { class: 'swap-custom' }, h('label', {}, t('swaps.first'), ' ', selA), h('label', {}, t('swaps.second'), ' ', selB), custom), errorSlot, stageBox, results);
  const watched = () => block.token - 1;
  const ariaOf = (tokens, order, weights) => t('swaps.stage_aria', { token: tokens[watched()], list: order.map((tok) => `${tokens[tok]} ${fmt(weights[tok])}`).join(', ') });
  // Draw the arrangement before the swap, then (next frame) after it, so the two tokens slide.
  let shown = null;
  const show = (r, a, b) => {
    const identity = r.tokens.map((_, k) => k);
    pic.draw(r.tokens, identity, watched(), r.wBefore, ariaOf(r.tokens, identity, r.wBefore), [a - 1, b - 1]);
    pic.svg.getBoundingClientRect();
    const mine = (shown = {});
    requestAnimationFrame(() => {
      if (shown !== mine) return;
      pic.draw(r.tokens, r.permutation, watched(), r.wAfter, ariaOf(r.tokens, r.permutation, r.wAfter), [a - 1, b - 1]);
      ctx.highlight?.refresh();
    });
    const kind = swapKind(a, b, block.token);
    const same = !r.changed;
    stageReadout.className = `readout swap-readout ${same ? 'same' : 'differ'}`;
    stageReadout.dataset.kind = kind;
    stageReadout.dataset.changed = String(r.changed);
    stageReadout.textContent = t(same ? 'swaps.stage_same' : 'swaps.stage_changed', { kind: t(`swaps.kind_${kind}`, { a, b, i: block.token }), token: r.tokens[watched()], w: fmtSmall(r.weightGap), o: fmtSmall(r.outputGap) });
  };

  async function tryswap(a, b) {
    errorSlot.replaceChildren();
    try {
      const r = await swapEffect(ctx.core, ctx.lab(), block.token, a, b);
      const key = `s${Math.min(a, b)}-${Math.max(a, b)}`;
      w.result.tried[key] = r.changed;
      const tok = r.tokens;
      const li = h(
        'li',
        { class: r.changed ? 'differ' : 'same', 'data-swap': key },
        h('strong', {}, t('swaps.line', { a, b, ta: tok[a - 1], tb: tok[b - 1] })),
        ' → ',
        t(r.changed ? 'swaps.changed' : 'swaps.unchanged', { i: block.token, token: tok[block.token - 1] }),
        h('details', {}, h('summary', {}, t('swaps.show_vectors')), vectorTable([{ label: t('swaps.before'), values: r.before }, { label: t('swaps.after', { pos: r.movedTo }), values: r.after }], { labelTitle: '' })),
      );
      results.querySelector(`[data-swap="${key}"]`)?.remove();
      results.prepend(li);
      show(r, a, b);
      ctx.changed(block.id, true);
    } catch (e) {
      errorSlot.append(errorBox(e));
    }
  }
  custom.addEventListener('click', () => {
    const a = Number(selA.value);
    const b = Number(selB.value);
    if (a === b) {
      errorSlot.replaceChildren(h('p', { class: 'core-error', role: 'alert' }, t('swaps.same_position')));
      return;
    }
    tryswap(a, b);
  });

  // The swaps run with the mask on and no position information whatever the
  // lab's controls say: only the sentence, D and the seed redraw them (and
  // clear the swaps tried), not the causal-mask checkbox.
  let drawnFor = null;
  w.update = async () => {
    const lab = ctx.lab();
    const key = JSON.stringify([lab.sentence, lab.d, lab.seed]);
    if (key === drawnFor) return;
    drawnFor = key;
    results.replaceChildren();
    w.result.tried = {};
    errorSlot.replaceChildren();
    try {
      const tokens = await ctx.core.call('tokenize', lab.sentence);
      intro.textContent = t('swaps.intro', { i: block.token, token: tokens[block.token - 1] ?? '—' });
      presets.replaceChildren(
        ...block.swaps.map(([a, b]) => {
          const btn = h('button', { type: 'button', class: 'secondary' }, t('swaps.preset', { a, b, ta: tokens[a - 1] ?? '—', tb: tokens[b - 1] ?? '—' }));
          btn.addEventListener('click', () => tryswap(a, b));
          return btn;
        }),
      );
      const opts = () => tokens.map((x, i) => h('option', { value: i + 1 }, `${i + 1}: ${x}`));
      selA.replaceChildren(...opts());
      selB.replaceChildren(...opts());
      selB.value = String(Math.min(3, tokens.length));
      // Before any swap: the sentence as it is, token i's arcs.
      stageTitle.textContent = t('swaps.stage_title', { i: block.token, token: tokens[block.token - 1] ?? '—' });
      stageKey.textContent = t('swaps.stage_key', { token: tokens[block.token - 1] ?? '—' });
      stageReadout.className = 'readout swap-readout';
      stageReadout.textContent = t('swaps.stage_initial');
      delete stageReadout.dataset.kind;
      if (block.token <= tokens.length && tokens.length <= 40) {
        const r = await swapEffect(ctx.core, lab, block.token, 1, 1);
        const identity = tokens.map((_, k) => k);
        shown = null;
        pic.draw(r.tokens, identity, watched(), r.wBefore, ariaOf(r.tokens, identity, r.wBefore));
        stageBox.hidden = false;
        ctx.highlight?.refresh();
      } else stageBox.hidden = true;
      if (block.token > tokens.length) errorSlot.append(errorBox({ code: 'page_too_few_tokens', params: { need: block.token, have: tokens.length }, message: t('swaps.too_few', { need: block.token, have: tokens.length }) }));
    } catch (e) {
      drawnFor = null;
      errorSlot.append(errorBox(e));
    }
  };
  return w;
}
