// The LMS bar's text, Japanese first (namespaced lms.*, ready to merge into web/i18n/*.json).
export const STRINGS = {
  'lms.finish': { ja: '学習を終了して LMS に記録', en: 'Finish and record in the LMS' },
  'lms.connected': { ja: 'LMS（{kind}）に接続しています。回答するたびに得点を記録します。', en: 'Connected to the LMS ({kind}). Each answer records your score.' },
  'lms.finished': { ja: 'LMS に記録して終了しました。このウィンドウを閉じてかまいません。', en: 'Recorded in the LMS and finished. You may close this window.' },
  'lms.failed': { ja: 'LMS と通信できませんでした: {message}', en: 'Could not talk to the LMS: {message}' },
};

export function lmsText(key, lang = 'ja', params = {}) {
  const s = STRINGS[key]?.[lang] ?? STRINGS[key]?.ja ?? key;
  return s.replace(/\{(\w+)\}/g, (_, k) => String(params[k] ?? ''));
}
