// The grader's message parts as the results page shows them: each row of the
// core's re-grade (grade_submission.cpp) carries `details`, [{code, params}],
// beside its English `message` (poslab grade's CSV). Here they are worded in
// the page's language from web/i18n (grade_msg.<code>). null when a part has
// no wording: the page then shows the core's English message as it is.
import { format, hasKey, errorMessage } from '../catalog.js';

function partText(d, lang) {
  if (!d || typeof d !== 'object' || typeof d.code !== 'string') return null;
  const p = { ...(d.params && typeof d.params === 'object' ? d.params : {}) };
  if (d.code === 'not_graded') {
    const inner = partText(d.detail, lang);
    return inner === null ? null : format(lang, p.more ? 'grade_msg.not_graded_more' : 'grade_msg.not_graded', { detail: inner });
  }
  if (d.code === 'core_error') return errorMessage(lang, { code: p.error, params: p.errorParams ?? {} });
  const key = `grade_msg.${d.code}`;
  if (!hasKey(lang, key)) return null;
  if (typeof p.type === 'string') p.type = format(lang, `grade_msg.type_${p.type}`);
  const text = format(lang, key, p);
  return typeof p.field === 'string' ? format(lang, 'grade_msg.in_field', { field: p.field, message: text }) : text;
}

// The whole message of a row in lang, or null (see above).
export function detailsText(details, lang) {
  if (!Array.isArray(details) || !details.length) return null;
  const parts = details.map((d) => partText(d, lang));
  return parts.includes(null) ? null : parts.join(format(lang, 'grade_msg.sep'));
}
