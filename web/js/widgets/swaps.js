// With the causal mask on and no position information: swap two tokens and
// see whether token i's output changes. The same function gives the live
// answer of the "which swaps change token i" question.
import { h, errorBox, row } from '../dom.js';
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
  return { tokens, changed: rowsDiffer(before, after, 1e-6), before, after, movedTo: moved + 1 };
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
  el.append(intro, presets, h('div', { class: 'swap-custom' }, h('label', {}, t('swaps.first'), ' ', selA), h('label', {}, t('swaps.second'), ' ', selB), custom), errorSlot, results);

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

  w.update = async () => {
    const lab = ctx.lab();
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
      if (block.token > tokens.length) errorSlot.append(errorBox({ code: 'page_too_few_tokens', params: { need: block.token, have: tokens.length }, message: t('swaps.too_few', { need: block.token, have: tokens.length }) }));
    } catch (e) {
      errorSlot.append(errorBox(e));
    }
  };
  return w;
}
