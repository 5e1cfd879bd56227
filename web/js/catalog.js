// The one catalog of UI text: web/i18n/ja.json and en.json, for the page
// (bundled by esbuild) and for Node (tests/web imports the grading and LMS
// modules, which import this file as it is).
//
// format(lang, key, params) fills {name} placeholders. Plurals: when the
// catalog has no `key` but has `key_other`, the form is chosen by
// Intl.PluralRules(lang) from params.count (`key_one`, `key_two`, …, falling
// back to `key_other`); Japanese needs only `_other`. {count} itself is
// written with Intl.NumberFormat(lang) (1,024 in English). Other numbers are
// written as they are (seeds, positions and years must not gain separators).
import ja from '../i18n/ja.json' with { type: 'json' };
import en from '../i18n/en.json' with { type: 'json' };

export const CATALOG = { ja, en };
export const LANGS = ['ja', 'en'];
export const PLURAL_FORMS = ['zero', 'one', 'two', 'few', 'many', 'other'];

const rules = new Map();
function pluralRule(lang, n) {
  if (!rules.has(lang)) rules.set(lang, new Intl.PluralRules(lang));
  return rules.get(lang).select(n);
}
const numbers = new Map();
function formatCount(lang, n) {
  if (!numbers.has(lang)) numbers.set(lang, new Intl.NumberFormat(lang));
  return numbers.get(lang).format(n);
}

// The raw (unfilled) text of key in lang, or undefined.
function lookup(lang, key, params) {
  const table = CATALOG[lang] ?? CATALOG.ja;
  if (key in table) return table[key];
  if (`${key}_other` in table) {
    const n = Number(params.count);
    const form = Number.isFinite(n) ? pluralRule(lang, n) : 'other';
    return table[`${key}_${form}`] ?? table[`${key}_other`];
  }
  return undefined;
}

// True when key (or its plural forms) is in the catalog of lang.
export function hasKey(lang, key) {
  const table = CATALOG[lang] ?? {};
  return key in table || `${key}_other` in table;
}

// The text of key in lang (falling back to Japanese, then to the key itself)
// with {name}s filled from params.
export function format(lang, key, params = {}) {
  const s = lookup(lang, key, params) ?? lookup('ja', key, params) ?? key;
  return s.replace(/\{(\w+)\}/g, (m, name) => {
    if (!(name in params)) return m;
    const v = params[name];
    return name === 'count' && typeof v === 'number' ? formatCount(lang, v) : String(v);
  });
}

// An error from the core ({code, params, message}) in the page's language:
// `err.<code>`, else `err.<code>.alt`, else `err.<code>.plain` — the first
// whose placeholders the error's params all fill (the core's throw sites do
// not all give the same params). null when the code is unknown: then the
// caller shows a generic line and the core's own (English) message.
//
// A `field` or `option` param that names an API setting the student sets with
// a control (dModel, heads, …) is written as that control's label ("width D",
// not "dModel"): FIELD_LABELS. An English message starting with one is
// capitalised.
export const FIELD_LABELS = {
  dModel: 'field.d',
  d: 'field.d',
  d_model: 'field.d',
  heads: 'field.heads',
  nHeads: 'field.heads',
  dHead: 'field.d_head',
  d_head: 'field.d_head',
  seed: 'field.seed',
};

export function errorMessage(lang, error) {
  const code = error && error.code;
  if (!code || typeof code !== 'string') return null;
  const params = { ...((error && error.params) || {}) };
  const labels = [];
  for (const name of ['field', 'option']) {
    const label = typeof params[name] === 'string' && Object.prototype.hasOwnProperty.call(FIELD_LABELS, params[name]) ? FIELD_LABELS[params[name]] : null;
    if (label) labels.push((params[name] = format(lang, label)));
  }
  for (const key of [`err.${code}`, `err.${code}.alt`, `err.${code}.plain`]) {
    if (!hasKey(lang, key) && !hasKey('ja', key)) continue;
    const text = format(lang, key, params);
    if (/\{[A-Za-z_]\w*\}/.test(text)) continue;
    return lang === 'en' && labels.some((l) => text.startsWith(l)) ? text.charAt(0).toUpperCase() + text.slice(1) : text;
  }
  return null;
}
