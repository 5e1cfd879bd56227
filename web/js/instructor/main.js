// The class results page (dist/instructor.html): the instructor drops in the
// learners' submission files; each is re-graded in a Web Worker by the core's
// gradeSubmission, the same function `poslab grade` runs (claimed scores are
// only compared; code attempts are first run again in the Python sandbox, as
// scripts/grade-code.mjs does), and the page shows the roster, score distributions, item
// analysis, common wrong answers by named mistake and the explanations, and
// exports CSV (UTF-8 BOM) and JSON. Nothing leaves the machine.
/* global __EXERCISES__ */
import { h } from './h.js';
import { t, pick, setLang, lang, LANGS } from '../i18n.js';
import { createCore } from '../core-client.js';
import { analyse, histogram, minutesSpent, rosterCsv, itemsCsv, plainTex, codeRunsText } from './analysis.js';
import { countCodeRuns, rerunCodeAttempts, codeRunsCell, RUN_STATUSES } from '../grading/code-rerun.js';
import { runPython, loadRuntime } from '../python/py-client.js';
import { histogramFigure } from './charts.js';
import { detailsText } from './details.js';
import { filePicker } from '../file-picker.js';

// As their files say them (the build's loader adds `file`, which the core must not hash).
const exercises = (typeof __EXERCISES__ !== 'undefined' ? __EXERCISES__ : []).map(({ file, ...data }) => data);
export const MAX_FILES = 1000;
export const MAX_BYTES = 8 * 1024 * 1024; // as poslab grade (kMaxSubmissionBytes)
const BATCH = 10;

const header = document.getElementById('site-header');
const root = document.getElementById('main');
const state = { files: [], result: null, sort: { key: 'learner', dir: 1 }, filter: '', busy: false, core: null, error: null, progress: '' };

const num = (x, d = 2) => (x == null || !Number.isFinite(x) ? '—' : Number.isInteger(x) ? String(x) : x.toFixed(d));
const pct = (x) => (x == null ? '—' : `${Math.round(x * 100)}%`);
const exTitle = (id) => {
  const ex = exercises.find((e) => e.id === id);
  return ex ? pick(ex.title) : id;
};
const byId = new Map(exercises.map((e) => [e.id, e]));
const exNumber = (id) => exercises.findIndex((e) => e.id === id) + 1;
const qLabel = (key) => {
  const [ex, q] = key.split('/');
  return `${exNumber(ex)}. ${q}`;
};
const statusText = (s) => t(`instructor.status_${s}`);


function renderHeader() {
  const langs = h(
    'div',
    { class: 'lang-switch', role: 'group', 'aria-label': t('nav.language') },
    ...LANGS.map((l) => h('button', { type: 'button', lang: l, 'aria-pressed': String(l === lang()), 'data-lang': l, onclick: () => switchLang(l) }, t(`lang.${l}`))),
  );
  header.replaceChildren(
    h('div', { class: 'header-row' }, h('a', { class: 'brand', href: 'index.html' }, h('span', { class: 'brand-name' }, t('site.name')), h('span', { class: 'brand-sub' }, t('instructor.title'))), h('div', { class: 'tools' }, langs)),
  );
}

function switchLang(l) {
  setLang(l);
  const u = new URL(location.href);
  u.hash = l === 'ja' ? '' : `lang=${l}`;
  history.replaceState(null, '', u);
  document.title = `${t('instructor.title')} — Position Lab`;
  render();
  header.querySelector(`[data-lang="${l}"]`)?.focus();
}

// ---- reading and re-grading files ----

async function readOne(file) {
  const name = file.webkitRelativePath || file.name;
  if (file.size > MAX_BYTES) {
    return { file: name, rows: [{ file: name, learner: '', exercise: '', points: null, max: null, status: 'too_large', message: `the file is larger than ${MAX_BYTES >> 20} MB; a submission is never that large`, details: [{ code: 'file_too_large', params: { mb: MAX_BYTES >> 20 } }], flags: [] }], minutes: null };
  }
  let text;
  try {
    // As the CLI: bytes that are not UTF-8 make the file invalid, never replaced silently.
    text = new TextDecoder('utf-8', { fatal: true }).decode(await file.arrayBuffer());
  } catch (e) {
    return { file: name, rows: [{ file: name, learner: '', exercise: '', points: null, max: null, status: 'invalid_file', message: 'not JSON: the file is not UTF-8 text', details: [{ code: 'not_utf8', params: {} }], flags: [] }], minutes: null };
  }
  let minutes = null;
  let sub;
  try {
    sub = JSON.parse(text);
    minutes = minutesSpent(sub);
  } catch {
    minutes = null; // the core says why the file is not JSON
  }
  return { file: name, text, minutes, sub };
}

// Code questions: the results the student's page stored are never trusted.
// Every code attempt is run again in the page's Python sandbox
// (py-client.js: a fresh blob: Worker per run, terminated after the
// question's time limit; one at a time) on the learner's hidden cases (the
// core's variant), by the same code as scripts/grade-code.mjs
// (grading/code-rerun.js), and the file is graded with the fresh results.
// The Python runtime is loaded only when a file has code attempts.
async function rerunCode(r, filesDone, filesCount) {
  const sub = r.sub;
  delete r.sub;
  const count = countCodeRuns(sub, byId);
  if (!count) return;
  const variants = new Map();
  const hiddenCases = async (learner, ex, question) => {
    const key = `${learner}\n${ex.id}`;
    if (!variants.has(key)) {
      let v = null;
      try {
        v = (await state.core.call('variant', { exercise: ex, learner })).variant;
      } catch {
        v = null; // as poslab variant failing in grade-code.mjs: the attempt is left as it is
      }
      variants.set(key, v);
    }
    return variants.get(key)?.[`code:${question}`]?.hidden ?? null;
  };
  // The runtime could not be loaded (py-runtime.js missing or refused): the
  // attempts are still run and end `crashed` (never their stored results
  // trusted), and the page says that their points are not the learners'.
  try {
    await loadRuntime();
  } catch (e) {
    state.pythonError = t('instructor.python_failed', { message: e.message });
  }
  const show = (done) => setProgress(t('instructor.code_progress', { file: r.file, done, count, files: filesDone, total: filesCount }));
  show(0);
  r.codeRuns = await rerunCodeAttempts(sub, {
    byId,
    hiddenCases,
    run: (code, fn, cases, { timeLimitMs }) => runPython({ code, fn, cases, timeLimitMs }),
    onRun: show,
  });
  r.text = JSON.stringify(sub);
}

async function gradeFiles(list) {
  const files = [...list].filter((f) => f && typeof f.size === 'number');
  if (!files.length) return;
  if (state.files.length + files.length > MAX_FILES) {
    state.error = t('instructor.too_many_files', { max: MAX_FILES, count: state.files.length + files.length });
    render();
    return;
  }
  state.error = null;
  state.pythonError = null;
  state.busy = true;
  const start = performance.now();
  try {
    state.core ??= await createCore();
    let done = 0;
    for (let i = 0; i < files.length; i += BATCH) {
      const read = await Promise.all(files.slice(i, i + BATCH).map(readOne));
      for (const r of read) {
        if (r.sub !== undefined) await rerunCode(r, done, files.length);
        delete r.sub;
      }
      const calls = read
        .filter((r) => r.text !== undefined)
        .map((r) => {
          // The core keeps the exercises from the first call (gradeSubmission): sent once, not 200 times.
          const args = { file: r.file, text: r.text };
          if (!state.sentExercises) {
            args.exercises = exercises;
            state.sentExercises = true;
          }
          return { method: 'gradeSubmission', args };
        });
      const results = calls.length ? await state.core.batch(calls) : [];
      let k = 0;
      for (const r of read) {
        if (r.text !== undefined) {
          const res = results[k++];
          r.rows = res.ok ? res.result : [{ file: r.file, learner: '', exercise: '', points: null, max: null, status: 'invalid_file', message: res.error.message, details: [{ code: 'core_error', params: { error: res.error.code, errorParams: res.error.params } }], flags: [] }];
          // As grade-code.mjs's code_runs column, per row.
          if (r.codeRuns) for (const row of r.rows) row.codeRuns = codeRunsCell(r.codeRuns, row.exercise);
          delete r.text;
        }
        // The same file picked again replaces its earlier result.
        const seen = state.files.findIndex((f) => f.file === r.file);
        if (seen >= 0) state.files[seen] = r;
        else state.files.push(r);
      }
      done += read.length;
      setProgress(t('instructor.progress', { done, count: files.length }));
    }
    state.lastSeconds = (performance.now() - start) / 1000;
    setProgress(t('instructor.done', { count: files.length, seconds: state.lastSeconds.toFixed(2) }));
  } catch (e) {
    state.error = t('instructor.core_failed', { message: e.message });
  } finally {
    state.busy = false;
    // What was graded before a failure is kept and shown.
    if (state.files.length) state.result = analyse(state.files, exercises);
  }
  render();
  state.runs = (state.runs ?? 0) + 1; // for tests and the bench: a re-grade has finished and is shown
}

function setProgress(text) {
  state.progress = text;
  const el = document.getElementById('progress');
  if (el) el.textContent = text;
}

// Files and folders dropped: a folder's files are read where the browser can.
async function droppedFiles(dt) {
  const items = [...(dt.items ?? [])];
  const entries = items.map((i) => i.webkitGetAsEntry?.()).filter(Boolean);
  if (!entries.length) return [...dt.files];
  const out = [];
  const walk = async (entry, depth) => {
    if (out.length > MAX_FILES) return;
    if (entry.isFile) out.push(await new Promise((res, rej) => entry.file(res, rej)));
    else if (entry.isDirectory && depth < 4) {
      const reader = entry.createReader();
      for (;;) {
        const batch = await new Promise((res, rej) => reader.readEntries(res, rej));
        if (!batch.length) break;
        for (const e of batch) await walk(e, depth + 1);
      }
    }
  };
  for (const e of entries) await walk(e, 0);
  return out;
}

// ---- the page ----

function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

function picker() {
  // Buttons in the page's language open the hidden file inputs (file-picker.js).
  const { button, input } = filePicker({ id: 'files', label: t('instructor.pick_files'), multiple: true, accept: '.json,application/json' });
  input.addEventListener('change', () => gradeFiles(input.files).then(() => (input.value = '')));
  const parts = [button, input];
  if ('webkitdirectory' in HTMLInputElement.prototype) {
    const { button: folderButton, input: folder } = filePicker({ id: 'folder', label: t('instructor.pick_folder'), multiple: true, directory: true });
    folder.addEventListener('change', () => gradeFiles([...folder.files].filter((f) => f.name.toLowerCase().endsWith('.json'))).then(() => (folder.value = '')));
    parts.push(folderButton, folder);
  }
  const zone = h('div', { class: 'drop-zone', id: 'drop-zone' }, h('p', {}, t('instructor.drop_here')), h('div', { class: 'pickers' }, ...parts));
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', async (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    gradeFiles(await droppedFiles(e.dataTransfer));
  });
  return zone;
}

function section(id, title, ...content) {
  return h('section', { class: 'ins-section', 'aria-labelledby': `${id}-h` }, h('h2', { id: `${id}-h` }, title), ...content);
}

function scroller(label, table) {
  return h('div', { class: 'table-scroll', tabindex: '0', role: 'region', 'aria-label': label }, table);
}

const COLUMNS = () => [
  { key: 'learner', label: t('instructor.col_learner'), value: (L) => L.learner, text: true },
  { key: 'total', label: t('instructor.col_total'), value: (L) => L.total },
  ...exercises.map((ex) => ({ key: `ex:${ex.id}`, label: `${exNumber(ex.id)}`, title: pick(ex.title), value: (L) => L.perExercise[ex.id] ?? null })),
  { key: 'completion', label: t('instructor.col_completion'), value: (L) => L.completion, show: pct },
  { key: 'minutes', label: t('instructor.col_minutes'), value: (L) => L.minutes, show: (v) => num(v, 0) },
  { key: 'code', label: t('instructor.col_code_runs'), value: (L) => codeRunsText(L.codeRuns), text: true, show: (_, L) => codeRunsShown(L.codeRuns) },
  { key: 'status', label: t('instructor.col_status'), value: (L) => L.statuses.join(' '), text: true, show: (_, L) => L.statuses.map(statusText).join('・') + (L.flags.length ? ` (${L.flags.join(', ')})` : '') },
];

// A learner's code runs, per code question: "12. sinusoidal: passed the sandbox 1, time limit 1".
function codeRunsShown(codeRuns) {
  const entries = Object.entries(codeRuns ?? {}).filter(([, tally]) => Object.keys(tally).length);
  if (!entries.length) return '—';
  return h(
    'ul',
    { class: 'code-runs' },
    ...entries.map(([key, tally]) =>
      h(
        'li',
        { 'data-code-run': key, 'data-statuses': Object.keys(tally).join(' ') },
        t('instructor.code_runs_item', {
          question: qLabel(key),
          runs: RUN_STATUSES.filter((s) => tally[s]).map((s) => t('instructor.code_run_count', { status: t(`instructor.run_${s}`), n: tally[s] })).join(t('instructor.code_run_sep')),
        }),
      ),
    ),
  );
}

function rosterTable(result) {
  const cols = COLUMNS();
  const { key, dir } = state.sort;
  const col = cols.find((c) => c.key === key) ?? cols[0];
  const f = state.filter.trim().toLowerCase();
  const rows = result.roster
    .filter((L) => !f || L.learner.toLowerCase().includes(f) || L.statuses.join(' ').includes(f) || codeRunsText(L.codeRuns).includes(f))
    .sort((a, b) => {
      const x = col.value(a);
      const y = col.value(b);
      if (x == null && y == null) return a.order - b.order;
      if (x == null) return 1;
      if (y == null) return -1;
      const c = col.text ? String(x).localeCompare(String(y), lang()) : x - y;
      return dir * c || a.order - b.order;
    });
  const th = (c) => {
    const sorted = c.key === key;
    return h(
      'th',
      { scope: 'col', 'aria-sort': sorted ? (dir > 0 ? 'ascending' : 'descending') : 'none', title: c.title },
      h('button', { type: 'button', class: 'sort', 'data-sort': c.key, onclick: () => sortBy(c.key) }, c.label, h('span', { 'aria-hidden': 'true' }, sorted ? (dir > 0 ? ' ▲' : ' ▼') : '')),
    );
  };
  return h(
    'table',
    { class: 'content-table roster', id: 'roster' },
    h('caption', {}, t('instructor.roster_caption', { shown: rows.length, count: result.roster.length, max: num(result.maxTotal) })),
    h('thead', {}, h('tr', {}, ...cols.map(th))),
    h(
      'tbody',
      {},
      ...rows.map((L) =>
        h(
          'tr',
          { 'data-learner': L.learner, 'data-total': L.total },
          ...cols.map((c, i) => {
            const v = c.value(L);
            const shown = c.show ? c.show(v, L) : v == null ? '—' : c.text ? v : num(v);
            return i === 0 ? h('th', { scope: 'row' }, shown) : h('td', { class: c.text ? '' : 'num' }, shown);
          }),
        ),
      ),
    ),
  );
}

function sortBy(key) {
  state.sort = state.sort.key === key ? { key, dir: -state.sort.dir } : { key, dir: key === 'learner' || key === 'status' || key === 'code' ? 1 : -1 };
  const old = document.getElementById('roster');
  old.replaceWith(rosterTable(state.result));
  document.querySelector(`#roster [data-sort="${CSS.escape(key)}"]`)?.focus();
}

// A row's message in the page's language (the core's details), else the core's English text.
function rowMessage(r) {
  const text = detailsText(r.details, lang());
  return text === null ? h('code', {}, r.message) : h('p', { class: 'detail' }, text);
}

function problemsTable(result) {
  const bad = result.files.filter((f) => f.statuses.some((s) => s !== 'graded') || f.flags.length);
  if (!bad.length) return h('p', {}, t('instructor.no_problems'));
  return scroller(
    t('instructor.problems'),
    h(
      'table',
      { class: 'content-table', id: 'problems' },
      h('caption', {}, t('instructor.problems_caption', { count: bad.length })),
      h('thead', {}, h('tr', {}, ...['col_file', 'col_learner', 'col_exercise', 'col_status', 'col_message'].map((k) => h('th', { scope: 'col' }, t(`instructor.${k}`))))),
      h(
        'tbody',
        {},
        ...bad.flatMap((f) =>
          f.rows
            .filter((r) => r.status !== 'graded' || r.flags?.length)
            .map((r) => h('tr', { 'data-status': r.status }, h('th', { scope: 'row' }, f.file), h('td', {}, r.learner), h('td', {}, r.exercise), h('td', {}, statusText(r.status), r.flags?.length ? ` (${r.flags.join(', ')})` : ''), h('td', { class: 'msg' }, r.status === 'graded' ? '' : h('p', { class: 'why' }, t(`instructor.why_${r.status}`)), rowMessage(r)))),
        ),
      ),
    ),
  );
}

function itemTable(result) {
  const flagText = (f) => t(`instructor.flag_${f}`);
  return h(
    'table',
    { class: 'content-table', id: 'items' },
    h('caption', {}, t('instructor.items_caption')),
    h('thead', {}, h('tr', {}, ...['col_question', 'col_type', 'col_n', 'col_facility', 'col_full', 'col_attempts', 'col_discrimination', 'col_flags'].map((k) => h('th', { scope: 'col' }, t(`instructor.${k}`))))),
    h(
      'tbody',
      {},
      ...result.items.map((i) =>
        h(
          'tr',
          { 'data-question': i.key },
          h('th', { scope: 'row', title: exTitle(i.exercise) }, qLabel(i.key)),
          h('td', {}, t(`instructor.type_${i.type}`)),
          h('td', { class: 'num' }, String(i.n)),
          h('td', { class: 'num', 'data-facility': i.facility ?? '' }, num(i.facility, 3)),
          h('td', { class: 'num' }, pct(i.fullCredit)),
          h('td', { class: 'num' }, num(i.attemptsToCorrect)),
          h('td', { class: 'num' }, num(i.discrimination, 2), i.unreliable && i.discrimination != null ? h('span', { class: 'unreliable', title: t('instructor.unreliable_short') }, ' *') : ''),
          h('td', {}, i.flags.map(flagText).join('・')),
        ),
      ),
    ),
  );
}

function mistakesList(result) {
  if (!result.mistakes.length) return h('p', {}, t('instructor.no_wrong'));
  return h(
    'div',
    { id: 'mistakes' },
    ...result.mistakes.map((m) =>
      h(
        'div',
        { class: 'mistake-q', 'data-question': m.key },
        h('h3', {}, `${qLabel(m.key)} — ${exTitle(m.exercise)}`),
        h(
          'ul',
          {},
          ...m.groups.map((g) =>
            h(
              'li',
              { 'data-mistake': g.id || 'unmatched', 'data-count': g.count },
              h(
                'details',
                {},
                h('summary', {}, h('span', { class: 'mistake-name' }, g.id ? plainTex(pick(g.feedback)) : t('instructor.unmatched')), ' ', t('instructor.mistake_counts', { count: g.count, learners: g.learners.length })),
                h('ul', { class: 'learner-list' }, ...g.learners.map((l) => h('li', {}, l))),
              ),
            ),
          ),
        ),
      ),
    ),
  );
}

function explanationsList(result) {
  if (!result.explanations.length) return h('p', {}, t('instructor.no_explanations'));
  return h(
    'div',
    { id: 'explanations' },
    ...result.explanations.map((e) =>
      h('details', { class: 'explain-q', 'data-question': e.key }, h('summary', {}, `${qLabel(e.key)} — ${exTitle(e.exercise)} (${t('instructor.answers', { count: e.texts.length })})`), h('dl', {}, ...e.texts.flatMap((x) => [h('dt', {}, x.learner), h('dd', {}, x.text)]))),
    ),
  );
}

function exportsBlock(result) {
  const ids = exercises.map((e) => e.id);
  const stamp = new Date().toISOString().slice(0, 10);
  return h(
    'div',
    { class: 'exports' },
    h('button', { type: 'button', id: 'export-roster', onclick: () => download(`position-lab-roster-${stamp}.csv`, rosterCsv(result, ids), 'text/csv;charset=utf-8') }, t('instructor.export_roster')),
    h('button', { type: 'button', id: 'export-items', onclick: () => download(`position-lab-items-${stamp}.csv`, itemsCsv(result), 'text/csv;charset=utf-8') }, t('instructor.export_items')),
    h(
      'button',
      { type: 'button', id: 'export-json', onclick: () => download(`position-lab-results-${stamp}.json`, `${JSON.stringify({ format: 'position-lab-results', version: 1, files: state.files, roster: result.roster.map(({ questions, order, ...L }) => L), items: result.items, mistakes: result.mistakes }, null, 1)}\n`, 'application/json') },
      t('instructor.export_json'),
    ),
  );
}

function render() {
  renderHeader();
  const r = state.result;
  const filter = h('input', { type: 'search', id: 'roster-filter', value: state.filter, 'aria-describedby': 'filter-help' });
  filter.addEventListener('input', () => {
    state.filter = filter.value;
    document.getElementById('roster').replaceWith(rosterTable(state.result));
  });
  root.replaceChildren(
    h('h1', { id: 'page-title', tabindex: '-1' }, t('instructor.title')),
    h('p', {}, t('instructor.lead')),
    picker(),
    h('p', { id: 'progress', role: 'status', class: 'progress-line' }, state.progress),
    state.error ? h('p', { class: 'core-error', role: 'alert' }, state.error) : '',
    state.pythonError ? h('p', { class: 'core-error', role: 'alert', id: 'python-error' }, state.pythonError) : '',
    ...(r
      ? [
          h('p', { id: 'summary' }, t('instructor.summary', { files: t('instructor.n_files', { count: r.files.length }), learners: t('instructor.n_learners', { count: r.roster.length }) })),
          r.unreliable ? h('p', { class: 'note' }, t('instructor.unreliable', { min: 50 })) : '',
          section('problems', t('instructor.problems'), problemsTable(r)),
          section('roster', t('instructor.roster'), h('div', { class: 'filter' }, h('label', { for: 'roster-filter' }, t('instructor.filter')), filter, h('span', { id: 'filter-help', class: 'help' }, t('instructor.filter_help'))), h('p', { class: 'help' }, t('instructor.sort_help')), scroller(t('instructor.roster'), rosterTable(r))),
          section(
            'dist',
            t('instructor.distribution'),
            h(
              'div',
              { class: 'hist-grid' },
              histogramFigure({ id: 'hist-all', title: t('instructor.overall'), bins: histogram(r.overall.values, r.overall.max), stats: r.overall.stats, max: r.overall.max }),
              ...r.perExercise.map((e) => histogramFigure({ id: `hist-${e.exercise}`, title: `${exNumber(e.exercise)}. ${exTitle(e.exercise)}`, bins: histogram(e.values, e.max, Math.min(10, Math.max(2, Math.ceil(e.max)))), stats: e.stats, max: e.max })),
            ),
          ),
          section('items', t('instructor.items'), h('p', { class: 'help' }, t('instructor.items_help')), r.unreliable ? h('p', { class: 'note' }, t('instructor.unreliable_short')) : '', scroller(t('instructor.items'), itemTable(r))),
          section('wrong', t('instructor.wrong'), h('p', { class: 'help' }, t('instructor.wrong_help')), mistakesList(r)),
          section('explain', t('instructor.explanations'), explanationsList(r)),
          section('export', t('instructor.export'), h('p', { class: 'help' }, t('instructor.export_help')), exportsBlock(r)),
        ]
      : []),
  );
}

const fromHash = new URLSearchParams(location.hash.slice(1)).get('lang');
setLang(fromHash === 'en' ? 'en' : 'ja');
document.title = `${t('instructor.title')} — Position Lab`;
render();
// For the bench and tests: how long the last re-grade took (seconds).
globalThis.__instructor = { state };
