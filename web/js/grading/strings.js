// User-facing text of the grading modules, Japanese first. Kept here (not in
// web/i18n/*.json) so these modules stand alone; every key is namespaced
// `grading.*` and can be merged into the i18n files as is. {name}
// placeholders are filled by message().

export const STRINGS = {
  // Storage and progress.
  'grading.storage_unavailable': {
    ja: 'このブラウザでは進捗を保存できません（プライベートモードやファイルとして開いた場合など）。回答はこのページを閉じるまでだけ保持されます。閉じる前に「提出ファイルをダウンロード」してください。',
    en: 'This browser cannot save progress here (private mode, or the page opened as a file). Answers are kept only until this page is closed: download the submission before you close it.',
  },
  'grading.storage_full': {
    ja: '保存領域がいっぱいで進捗を保存できませんでした。これ以降の回答はこのページを閉じるまでだけ保持されます。「提出ファイルをダウンロード」で控えを取ってください。',
    en: 'Storage is full, so progress could not be saved. Answers from now on are kept only until this page is closed: download the submission to keep a copy.',
  },
  'grading.storage_corrupt': {
    ja: '保存されていた進捗（{key}）が壊れていて読み込めませんでした。元のデータは消さずに {aside} として残してあります。',
    en: 'Saved progress ({key}) was damaged and could not be read. The original data was kept, not deleted, as {aside}.',
  },
  'grading.storage_recovered': {
    ja: '保存されていた進捗（{key}）の一部が壊れていました。読める {kept} 件の回答を復元し、読めなかった {dropped} 件を含む元のデータを {aside} として残してあります。',
    en: 'Part of the saved progress ({key}) was damaged. The {kept} readable answers were restored; the original, with the {dropped} unreadable ones, was kept as {aside}.',
  },
  'grading.storage_newer': {
    ja: '保存されていた進捗（{key}）は新しい版の実験室のもので、この版では読めません。消さずに {aside} として残してあります。',
    en: 'Saved progress ({key}) comes from a newer version of the lab and cannot be read by this one. It was kept, not deleted, as {aside}.',
  },
  'grading.storage_legacy': {
    ja: '以前の版の実験室の進捗が見つかりました。採点に必要な情報（演習の版とシード）がないため提出には含めず、{aside} として残してあります。',
    en: 'Progress from an earlier version of the lab was found. It lacks what grading needs (the exercise version and seed), so it is not part of the submission; it was kept as {aside}.',
  },
  'grading.reset_confirm': {
    ja: '回答をすべて消して最初からやり直しますか？消した回答は控えとしてこのブラウザに残ります。',
    en: 'Clear all answers and start over? The cleared answers are kept as a backup in this browser.',
  },
  'grading.reset_done': {
    ja: '回答を消去しました。控えを {key} に残しました。',
    en: 'Answers cleared. A backup was kept as {key}.',
  },
  'grading.reset_button': { ja: '進捗をリセット', en: 'Reset progress' },
  'grading.reset_nothing': { ja: '消す回答はありません。', en: 'There are no answers to clear.' },

  // The grading panel (panel.js).
  'grading.panel_title': { ja: '採点と提出', en: 'Grading and submission' },
  'grading.warnings_title': { ja: '保存についてのお知らせ', en: 'About saved progress' },

  // Submissions.
  'grading.download_button': { ja: '提出ファイルをダウンロード', en: 'Download submission' },
  'grading.download_done': { ja: '{name} を保存しました。このファイルを講師に提出してください。', en: 'Saved {name}. Hand this file in to your instructor.' },
  'grading.download_failed': { ja: '提出ファイルを作れませんでした：{detail}', en: 'The submission could not be made: {detail}' },
  'grading.import_button': { ja: '提出ファイルを読み込む', en: 'Import a submission' },
  'grading.honest': {
    ja: 'このページの採点は学習のための目安です。講師は提出ファイルの回答から、同じコアで採点し直します。',
    en: 'Scores on this page are formative: your instructor re-grades the answers in your submission with the same core.',
  },
  'grading.import_done': {
    ja: '提出ファイルを読み込みました（演習 {exercises} 件、新しい回答 {added} 件）。',
    en: 'Submission imported ({exercises} exercises, {added} new answers).',
  },
  'grading.import_not_json': {
    ja: 'このファイルは JSON として読めません（{detail}）。何も変更していません。',
    en: 'This file is not readable JSON ({detail}). Nothing was changed.',
  },
  'grading.import_not_submission': {
    ja: 'このファイルは Position Lab の提出ファイルではありません（format が "position-lab-submission" ではありません）。何も変更していません。',
    en: 'This file is not a Position Lab submission (its format is not "position-lab-submission"). Nothing was changed.',
  },
  'grading.import_version': {
    ja: '提出ファイルの版 {version} には対応していません（この実験室が読めるのは版 1 です）。何も変更していません。',
    en: 'Submission version {version} is not supported (this lab reads version 1). Nothing was changed.',
  },
  'grading.import_other_learner': {
    ja: 'このファイルは別の学習者（{found}）の提出ファイルです。いまの学習者は {expected} です。何も変更していません。',
    en: 'This file is another learner’s submission ({found}); the current learner is {expected}. Nothing was changed.',
  },
  'grading.import_field': {
    ja: '提出ファイルの {field} が正しくありません：{problem}。何も変更していません。',
    en: 'The submission’s {field} is not valid: {problem}. Nothing was changed.',
  },

  // What is wrong with one field of an imported submission ({field} names it).
  'grading.problem_string': { ja: '空でない文字列が必要です', en: 'it must be a non-empty string' },
  'grading.problem_hash': { ja: '16 桁の 16 進数（内容ハッシュ）が必要です', en: 'it must be 16 hex digits (a content hash)' },
  'grading.problem_seed': { ja: '0 以上 4294967295 以下の整数が必要です', en: 'it must be an integer from 0 to 4294967295' },
  'grading.problem_number': { ja: '数値が必要です', en: 'it must be a number' },
  'grading.problem_object': { ja: 'オブジェクト（{…}）が必要です', en: 'it must be an object ({…})' },
  'grading.problem_list': { ja: 'リスト（[…]）が必要です', en: 'it must be a list ([…])' },
  'grading.problem_answer': { ja: '回答がありません', en: 'the answer is missing' },
  'grading.problem_lang': { ja: '"ja" か "en" が必要です', en: 'it must be "ja" or "en"' },
  'grading.problem_time': { ja: 'ISO 8601 の日時が必要です', en: 'it must be an ISO 8601 date and time' },

  // Learner id.
  'grading.learner_label': { ja: '学習者 ID', en: 'Learner id' },
  'grading.learner_save': { ja: 'この ID で始める', en: 'Use this id' },
  'grading.learner_saved': { ja: '学習者 ID を {id} にしました。', en: 'Learner id set to {id}.' },
  'grading.learner_needed': { ja: '採点を記録するには、まず学習者 ID を入力してください。', en: 'Enter your learner id first, so that your answers can be graded.' },
  'grading.learner_from_url': {
    ja: '学習者 ID はページのアドレスで指定されています：{id}',
    en: 'The learner id is given by the page address: {id}',
  },
  'grading.learner_help': {
    ja: '講師から指定された ID（学籍番号など）を入力してください。同じ ID では毎回同じ問題の値が出ます。',
    en: 'Enter the id your instructor gave you (e.g. your student number). The same id always gets the same values.',
  },
  'grading.learner_empty': { ja: '学習者 ID を入力してください。', en: 'Enter a learner id.' },
  'grading.learner_too_long': {
    ja: '学習者 ID は {max} 文字までです（{length} 文字あります）。',
    en: 'A learner id has at most {max} characters (this one has {length}).',
  },
  'grading.learner_bad_char': {
    ja: '学習者 ID に使えない文字（制御文字）が含まれています。',
    en: 'The learner id contains a character that is not allowed (a control character).',
  },
  'grading.learner_from_host': {
    ja: '学習者 ID はコースのページから渡されています：{id}',
    en: 'The learner id comes from the course page: {id}',
  },

  // Embedding.
  'grading.embed_no_origin': {
    ja: '埋め込み表示（embed=1）ですが parentOrigin が指定されていないため、親ページへは何も送りません。',
    en: 'Embedded (embed=1) without parentOrigin: nothing is sent to the parent page.',
  },
  'grading.embed_bad_origin': {
    ja: 'parentOrigin「{value}」はオリジン（https://example.edu の形）ではないため、親ページへは何も送りません。',
    en: 'parentOrigin "{value}" is not an origin (like https://example.edu): nothing is sent to the parent page.',
  },
  'grading.embed_null_origin': {
    ja: 'parentOrigin=null（ファイルとして開いたコースページ）には宛先を限定して送れません。その場合は講師が parentOrigin=* を明示してください。親ページへは何も送りません。',
    en: 'parentOrigin=null (a course page opened as a file) cannot be addressed by origin; the instructor must give parentOrigin=* explicitly for that case. Nothing is sent to the parent page.',
  },
  'grading.verb_answered': { ja: '回答した', en: 'answered' },
  'grading.verb_completed': { ja: '完了した', en: 'completed' },
};

/* global __I18N__ */
// Newer strings live in web/i18n/*.json only (embedded by the build as __I18N__).
const I18N = typeof __I18N__ !== 'undefined' ? __I18N__ : null;

// The text of `key` in `lang` (falling back to Japanese) with {name}s filled.
export function message(key, lang = 'ja', params = {}) {
  const entry = STRINGS[key] ?? (I18N && key in I18N.ja ? { ja: I18N.ja[key], en: I18N.en[key] } : null);
  if (!entry) return key;
  const s = entry[lang] ?? entry.ja;
  return s.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

// Both languages at once: what warnings and errors carry, so the page can
// show them in whichever language it is in.
export function messages(key, params = {}) {
  return { ja: message(key, 'ja', params), en: message(key, 'en', params) };
}
