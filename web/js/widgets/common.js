// Helpers several widgets share.
import { h, fmt, row } from '../dom.js';
import { t } from '../i18n.js';

// The forward options the lab's controls stand for.
export function forwardArgs(lab, extra = {}) {
  return { text: lab.sentence, pe: lab.pe, causal: lab.causal, dModel: lab.d, seed: lab.seed, heads: lab.heads, weights: lab.weights, ...extra };
}

// A table of vectors, one row each: label, then D numbers. A row with a
// `token` takes part in linked highlighting (highlight.js); with `flip` (a
// key prefix) it slides to its new place when a reorder redraws the table.
export function vectorTable(rows, { caption, dims, labelTitle, footer, flip } = {}) {
  const D = rows.length ? rows[0].values.length : 0;
  return h(
    'div',
    { class: 'table-scroll', tabindex: '0' },
    h(
      'table',
      { class: 'vec-table', 'data-flip-root': flip },
      caption ? h('caption', {}, caption) : null,
      h('thead', {}, h('tr', {}, labelTitle === '' ? h('td', { class: 'corner' }) : h('th', { scope: 'col' }, labelTitle ?? t('vec.token')), ...Array.from({ length: D }, (_, i) => h('th', { scope: 'col' }, dims ? dims[i] : String(i))))),
      h(
        'tbody',
        {},
        ...rows.map((r) =>
          h(
            'tr',
            { class: r.className ?? '', 'data-flip': flip && r.token !== undefined ? `${flip}:${r.token}` : undefined, 'data-hl-row': r.token !== undefined ? String(r.token) : undefined },
            h('th', { scope: 'row', style: r.hue !== undefined ? `--chip-hue:${r.hue}` : undefined, class: r.hue !== undefined ? 'tok' : '', 'data-hl-token': r.token !== undefined ? String(r.token) : undefined }, r.label),
            ...r.values.map((v) => h('td', {}, fmt(v))),
          ),
        ),
      ),
      footer ? h('tfoot', {}, ...footer.map((r) => h('tr', { class: 'mean-row' }, h('th', { scope: 'row' }, r.label), ...r.values.map((v) => h('td', {}, fmt(v)))))) : null,
    ),
  );
}

// Tokens back into a sentence for display: spaced scripts get spaces, with
// punctuation attached and the first letter capitalised (the tokenizer folds case).
export function joinTokens(tokens, spaced) {
  if (!spaced) return tokens.join('');
  const s = tokens.join(' ').replace(/ ([.,!?;:])/g, '$1');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export function outputRows(matrix, tokens, order, hueOf) {
  return order.map((tokIndex, pos) => ({ label: `${pos + 1}. ${tokens[tokIndex]}`, values: row(matrix, pos), hue: hueOf(tokIndex), token: tokIndex }));
}

export const hue = (i) => (i * 47) % 360;

// A button that shows and hides `box` (a visual's table twin), saying which.
export function tableToggle(box) {
  const toggle = h('button', { type: 'button', class: 'secondary small', 'aria-expanded': 'false' }, t('table.show'));
  toggle.addEventListener('click', () => {
    box.hidden = !box.hidden;
    toggle.setAttribute('aria-expanded', String(!box.hidden));
    toggle.textContent = t(box.hidden ? 'table.show' : 'table.hide');
  });
  return toggle;
}
