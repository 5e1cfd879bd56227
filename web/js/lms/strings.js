// The LMS bar's text: keys `lms.*` in the one catalog, web/i18n/{ja,en}.json
// (read through ../catalog.js).
import { format } from '../catalog.js';

export function lmsText(key, lang = 'ja', params = {}) {
  return format(lang, key, params);
}
