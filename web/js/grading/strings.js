// User-facing text of the grading modules: keys `grading.*` in the one
// catalog, web/i18n/ja.json and en.json (read through ../catalog.js, so these
// modules still run under node --test as they are). {name} placeholders are
// filled by message(); {count} picks the plural form (see catalog.js).
import { format } from '../catalog.js';

// The text of `key` in `lang` (falling back to Japanese) with {name}s filled.
export function message(key, lang = 'ja', params = {}) {
  return format(lang, key, params);
}

// Both languages at once: what warnings and errors carry, so the page can
// show them in whichever language it is in.
export function messages(key, params = {}) {
  return { ja: message(key, 'ja', params), en: message(key, 'en', params) };
}
