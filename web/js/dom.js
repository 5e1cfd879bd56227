// Small DOM helpers shared by the widgets.
import { t, lang } from './i18n.js';
import { errorMessage } from './catalog.js';
import { escapeHtml } from './rich.js';

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'html') el.innerHTML = v;
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// Numbers as the page shows them: fixed decimals, no "-0.000".
export function fmt(x, digits = 3) {
  if (!Number.isFinite(x)) return String(x);
  const s = x.toFixed(digits);
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s;
}

// A tiny value such as max|Attention(PX) − P·Attention(X)|: 0, or 2.4e-7.
export function fmtSmall(x) {
  if (x === 0) return '0';
  if (Math.abs(x) >= 0.001) return fmt(x, 4);
  const sup = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };
  const [m, e] = x.toExponential(1).split('e');
  return `${m}×10${String(Number(e)).replace(/./g, (c) => sup[c])}`;
}

export function row(matrix, r) {
  const cols = matrix.shape[matrix.shape.length - 1];
  return Array.from(matrix.data.subarray(r * cols, (r + 1) * cols));
}

// A core error shown in place, in the page's language: the catalog's words
// for its code and params (catalog.js errorMessage). Only for a code the
// catalog does not know is the core's own (English) message shown, after a
// generic line.
export function errorBox(error, { lesson = false } = {}) {
  const known = errorMessage(lang(), error);
  const parts = known
    ? [h('p', { class: 'core-error-lead' }, known)]
    : [
        h('p', { class: 'core-error-lead' }, t('err.generic')),
        h('p', { class: 'core-error-core' }, h('span', { class: 'core-error-label' }, t('err.core_says')), ' ', h('code', {}, error && error.message ? error.message : String(error))),
      ];
  return h('div', { class: lesson ? 'core-error lesson' : 'core-error', role: 'alert', 'data-code': (error && error.code) || '' }, ...parts);
}

export function busy(el) {
  el.setAttribute('aria-busy', 'true');
}
export function done(el) {
  el.removeAttribute('aria-busy');
}

export { escapeHtml };

// A message with code in it ({fn}, {call}, {names}): the code as <code>, the
// rest as text. params[name] may be a list: each item its own <code>, joined by ", ".
export function withCode(key, params, name) {
  const [before, after] = t(key, { ...params, [name]: '\u0000' }).split('\u0000');
  const items = Array.isArray(params[name]) ? params[name] : [params[name]];
  return [before, ...items.flatMap((x, i) => (i ? [', ', h('code', {}, String(x))] : [h('code', {}, String(x))])), after ?? ''];
}
