// The student's grading controls, in plain DOM: the honest-grading line,
// storage warnings, the learner id (typed when no course page gave one),
// "Download submission", "Import", and a reset that keeps a backup. Classes
// are grading-*; the page's stylesheet styles them. Texts: strings.js.
import { message } from './strings.js';
import { PRACTICE_LEARNER } from './session.js';

function el(doc, tag, attrs = {}, ...children) {
  const e = doc.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c) e.append(c);
  return e;
}

/**
 * @param {Element} root   where the panel goes (its content is replaced)
 * @param {object} o
 * @param {object} o.session      createGradingSession()
 * @param {object} o.store        createAttemptStore() (for its warnings)
 * @param {object} o.learner      createLearner()
 * @param {string} o.labVersion
 * @param {object[]} o.exercises  the page's exercise files (for the submission's scores)
 * @param {() => 'ja'|'en'} [o.lang]
 * @param {{code, message: {ja, en}}[]} [o.warnings]  more warnings to show (e.g. the bridge's)
 * @param {(text: string) => boolean} [o.confirm]
 * @param {(what: 'learner'|'import'|'reset') => void} [o.onChange]  re-render the exercise
 * @param {string} [o.exerciseId]  reset only this exercise (default: all of the learner's)
 * @param {object} [o.status]  the status line to show first ({key, params, kind} or {text, kind};
 *   `also: [{key, params}]` adds lines): a re-mounted panel keeps what it last said
 * @param {(status: object) => void} [o.onStatus]  told of each new status line
 * Returns {render()}: call it again when the language changes.
 */
export function mountGradingPanel(root, { session, store, learner, labVersion, exercises, lang = () => 'ja', warnings = [], confirm = (t) => globalThis.confirm(t), onChange, exerciseId, status: initial = null, onStatus }) {
  const doc = root.ownerDocument;
  let status = initial; // {key, params, kind} or {text, kind}
  let chosenName = null; // the file last chosen for import

  const setStatus = (s) => {
    status = s;
    onStatus?.(s);
    render();
  };
  const say = (key, params = {}, kind = 'info') => setStatus({ key, params, kind });
  const sayText = (text, kind) => setStatus({ text, kind });

  function render() {
    const L = lang();
    const t = (key, params) => message(key, L, params);
    const shown = [...store.warnings, ...warnings];
    const parts = [el(doc, 'h2', { class: 'grading-title', text: t('grading.panel_title') }), el(doc, 'p', { class: 'grading-honest', text: t('grading.honest') })];
    if (shown.length) {
      parts.push(
        el(doc, 'div', { class: 'grading-warnings', role: 'alert' }, el(doc, 'h3', { text: t('grading.warnings_title') }), el(doc, 'ul', {}, ...shown.map((w) => el(doc, 'li', { 'data-code': w.code, text: w.message[L] ?? w.message.ja })))),
      );
    }

    // The learner id.
    if (learner.editable) {
      const id = 'grading-learner';
      const input = el(doc, 'input', { id, type: 'text', autocomplete: 'off', spellcheck: 'false', value: learner.id ?? '', 'aria-describedby': 'grading-learner-help' });
      const form = el(
        doc,
        'form',
        { class: 'grading-learner' },
        el(doc, 'label', { for: id, text: t('grading.learner_label') }),
        input,
        el(doc, 'button', { type: 'submit', text: t('grading.learner_save') }),
        el(doc, 'p', { id: 'grading-learner-help', class: 'grading-help', text: t('grading.learner_help') }),
      );
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        try {
          learner.setTyped(input.value);
          say('grading.learner_saved', { id: learner.id });
          onChange?.('learner');
        } catch (err) {
          sayText(err.text ?? { ja: err.message, en: err.message }, 'error');
        }
      });
      parts.push(form);
    } else {
      parts.push(el(doc, 'p', { class: 'grading-learner-fixed', text: t(learner.source === 'url' ? 'grading.learner_from_url' : 'grading.learner_from_host', { id: learner.id }) }));
    }

    // Download, import, reset. A button that cannot be used yet is disabled
    // (and looks it: the stylesheet's button:disabled) with the reason below.
    const download = el(doc, 'button', { type: 'button', class: 'grading-download', text: t('grading.download_button'), disabled: !learner.id });
    download.addEventListener('click', async () => {
      try {
        const name = await session.download({ labVersion, exercises });
        say('grading.download_done', { name });
      } catch (err) {
        say('grading.download_failed', { detail: err.message }, 'error');
      }
    });
    // The file picker: the browser's own control speaks the browser's
    // language, so it is visually hidden (still focusable: its label, styled
    // as a button, shows its focus) and the chosen file is named here.
    const fileId = 'grading-import';
    const file = el(doc, 'input', { id: fileId, type: 'file', accept: 'application/json,.json', class: 'grading-import-file sr-only', disabled: !learner.id, 'aria-describedby': 'grading-import-chosen' });
    const chosen = el(doc, 'span', { id: 'grading-import-chosen', class: 'grading-import-chosen', text: chosenName === null ? t('grading.import_none') : t('grading.import_chosen', { name: chosenName }) });
    file.addEventListener('change', async () => {
      const f = file.files?.[0];
      if (!f) return;
      chosenName = f.name;
      chosen.textContent = t('grading.import_chosen', { name: f.name });
      try {
        const r = session.import(await f.text());
        sayText(r.message, 'info');
        onChange?.('import');
      } catch (err) {
        sayText(err.text ?? { ja: err.message, en: err.message }, 'error');
      }
    });
    // One reset: the learner's answers (or, before an id, the practice
    // answers) and the path's state; the confirmation says what goes.
    const who = learner.id ?? PRACTICE_LEARNER;
    const kept = store.records({ learner: who }).reduce((n, r) => n + r.attempts.length, 0);
    const reset = el(doc, 'button', { type: 'button', class: 'grading-reset secondary', text: t('grading.reset_button') });
    reset.addEventListener('click', () => {
      const question = learner.id ? t('grading.reset_confirm', { count: kept, id: learner.id }) : t('grading.reset_confirm_practice', { count: kept });
      if (!confirm(question)) return;
      const r = session.reset({ exerciseId });
      if (r.backupKey) say('grading.reset_done', { key: r.backupKey });
      else say('grading.reset_nothing');
      onChange?.('reset');
    });
    parts.push(
      el(doc, 'div', { class: 'grading-actions' }, download, file, el(doc, 'label', { for: fileId, class: `grading-import button${learner.id ? '' : ' disabled'}`, text: t('grading.import_button') }), chosen, reset),
      learner.id ? null : el(doc, 'p', { class: 'grading-help', text: t('grading.learner_needed') }),
    );
    const line = el(doc, 'div', { class: `grading-status${status ? ` ${status.kind}` : ''}`, role: 'status' });
    if (status) {
      const lines = [status.text ? status.text[L] ?? status.text.ja : t(status.key, status.params), ...(status.also ?? []).map((x) => t(x.key, x.params))];
      line.append(...lines.map((text) => el(doc, 'p', { text })));
    }
    parts.push(line);
    root.replaceChildren(...parts.filter(Boolean));
  }

  render();
  return { render };
}
