// UI strings: web/i18n/ja.json and en.json, embedded by the build. t(key,
// params) fills {name} placeholders. Japanese is the default language.
/* global __I18N__ */
const STRINGS = typeof __I18N__ !== 'undefined' ? __I18N__ : { ja: {}, en: {} };
export const LANGS = ['ja', 'en'];
let current = 'ja';

export function setLang(lang) {
  current = LANGS.includes(lang) ? lang : 'ja';
  document.documentElement.lang = current;
}
export function lang() {
  return current;
}
export function t(key, params = {}) {
  const s = STRINGS[current][key] ?? STRINGS.ja[key] ?? key;
  return s.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}
// A {ja, en} object from an exercise file, in the page language.
export function pick(text) {
  if (text == null) return '';
  if (typeof text === 'string') return text;
  return text[current] ?? text.ja;
}
export function has(key) {
  return key in STRINGS[current] || key in STRINGS.ja;
}
