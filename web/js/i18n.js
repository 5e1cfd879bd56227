// UI strings: the one catalog, web/i18n/ja.json and en.json (catalog.js,
// bundled by the build). t(key, params) fills {name} placeholders and picks
// plural forms from {count} (Intl.PluralRules). Japanese is the default.
import { LANGS, format, hasKey } from './catalog.js';

export { LANGS };
let current = 'ja';

export function setLang(lang) {
  current = LANGS.includes(lang) ? lang : 'ja';
  document.documentElement.lang = current;
}
export function lang() {
  return current;
}
export function t(key, params = {}) {
  return format(current, key, params);
}
// A {ja, en} object from an exercise file, in the page language.
export function pick(text) {
  if (text == null) return '';
  if (typeof text === 'string') return text;
  return text[current] ?? text.ja;
}
export function has(key) {
  return hasKey(current, key) || hasKey('ja', key);
}
