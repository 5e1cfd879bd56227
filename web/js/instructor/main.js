// The class results page (dist/instructor.html): the instructor drops in the
// learners' submission files; each is re-graded in a Web Worker by the core's
// gradeSubmission, the same function `poslab grade` runs (claimed scores are
// only compared; code attempts are first run again in the Python sandbox, as
// scripts/grade-code.mjs does), and the page shows the roster, score distributions, item
// analysis, common wrong answers by named mistake and the explanations, and
// exports CSV (UTF-8 BOM) and JSON. Nothing leaves the machine.
/* global __EXERCISES__ */
import { h } from './h.js';
import { t, pick, setLang, lang, LANGS, has as hasText } from '../i18n.js';
import { createCore } from '../core/core-client.js';
import { analyse, histogram, minutesSpent, rosterTable as rosterCells, itemsTable as itemsCells, plainTex, codeRunsText } from './analysis.js';
import { countRunnable, runListedAttempts, RUN_STATUSES, DEFAULT_BUDGET_MS } from '../grading/code-rerun.js';
import { runPython, loadRuntime } from '../python/py-client.js';
import { histogramFigure } from './charts.js';
import { detailsText } from './details.js';
import { filePicker } from '../file-picker.js';

// As their files say them (the build's loader adds `file`, which the core must not hash).
const exercises = (typeof __EXERCISES__ !== 'undefined' ? __EXERCISES__ : []).map(({ file, ...data }) => data);
export const MAX_FILES = 1000;
export const MAX_BYTES = 8 * 1024 * 1024; // as poslab grade (kMaxSubmissionBytes)

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

// Minutes of work are read from the file's attempt times in the page (a
// display only); past this size they are not (the core still grades the file).
const MINUTES_MAX_BYTES = 1 << 20;

async function readOne(file) {
  const name = file.webkitRelativePath || file.name;
  if (file.size > MAX_BYTES) {
    return { file: name, rows: [{ file: name, learner: '', exercise: '', points: null, max: null, status: 'too_large', message: `the file is larger than ${MAX_BYTES >> 20} MB; a submission is never that large`, details: [{ code: 'file_too_large', params: { mb: MAX_BYTES >> 20 } }], flags: [] }], minutes: null };
  }
  // The bytes as they are: the core's parser (the one poslab grade uses)
  // decides what a NUL, a BOM or a byte that is not UTF-8 means.
  const bytes = new Uint8Array(await file.arrayBuffer());
  let minutes = null;
  if (bytes.length <= MINUTES_MAX_BYTES) {
    try {
      minutes = minutesSpent(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)));
    } catch {
      minutes = null; // the core says why the file is not a submission
    }
  }
  return { file: name, bytes, minutes };
}

// Code questions: the results the student's page stored are never read. The
// core lists the code attempts that can count (codeAttempts: the grader's own
// parse and rules, the learner's hidden cases), each is run in the page's
// Python sandbox (py-client.js: a fresh Worker per run, terminated after the
// question's time limit; one at a time) within a time budget per learner,
// and the core grades the file with those results (gradeSubmissionBytes,
// codeResults). The Python runtime is loaded only when a file has code to run.
async function rerunCode(r, filesDone, filesCount) {
  const list = await state.core.call('codeAttempts', { file: r.file, bytes: r.bytes, ...exercisesOnce() });
  const count = countRunnable(list);
  r.codeResults = {};
  if (!list.ok || !list.attempts.length) return;
  let notRun = null;
  if (count) {
    try {
      await loadRuntime();
    } catch (e) {
      // No sandbox: nothing is run, the attempts score 0 (not_rerun), and the page says why.
      state.pythonError = `${t('instructor.python_failed', { message: e.message })} ${t('instructor.sandbox_unavailable')}`;
      notRun = 'sandbox_unavailable';
    }
  }
  const budget = state.budgets.get(list.learner) ?? { spentMs: 0 };
  state.budgets.set(list.learner, budget);
  const show = (done) => setProgress(t('instructor.code_progress', { file: r.file, done, count: list.attempts.length, files: filesDone, total: filesCount }));
  show(0);
  const { results, runs } = await runListedAttempts(list, {
    run: (code, fn, cases, { timeLimitMs }) => runPython({ code, fn, cases, timeLimitMs }),
    budget,
    budgetMs: DEFAULT_BUDGET_MS,
    notRun,
    now: () => performance.now(),
    onRun: show,
  });
  r.codeResults = results;
  state.codeRunCount = (state.codeRunCount ?? 0) + runs;
}

// The core keeps the exercises from the first call: sent once, not 200 times.
function exercisesOnce() {
  if (state.sentExercises) return {};
  state.sentExercises = true;
  return { exercises };
}

// Learner ids as one learner and visibly: NFC (composed and decomposed "José"
// are one learner), then invisible and bidirectional-control characters as
// \uXXXX (the core's displayText, as its CSV writes them).
async function showLearners(rows) {
  const names = [...new Set(rows.map((row) => row.learner).filter((x) => typeof x === 'string' && x))];
  if (!names.length) return;
  const shown = await state.core.batch(names.map((text) => ({ method: 'displayText', args: { text: text.normalize('NFC') } })));
  const map = new Map(names.map((n, k) => [n, shown[k].ok ? shown[k].result : n.normalize('NFC')]));
  for (const row of rows) if (map.has(row.learner)) row.learner = map.get(row.learner);
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
  state.budgets ??= new Map();
  const start = performance.now();
  try {
    state.core ??= await createCore();
    let done = 0;
    // One file at a time: at most one file's bytes are held, and one bad file costs only its own rows.
    for (const file of files) {
      const r = await readOne(file);
      if (r.bytes !== undefined) {
        try {
          await rerunCode(r, done, files.length);
          r.rows = await state.core.call('gradeSubmissionBytes', { file: r.file, bytes: r.bytes, codeResults: r.codeResults, ...exercisesOnce() });
        } catch (e) {
          r.rows = [{ file: r.file, learner: '', exercise: '', points: null, max: null, status: 'invalid_file', message: e.message, details: [{ code: 'core_error', params: { error: e.code ?? 'error', errorParams: e.params ?? {} } }], flags: [] }];
        }
        delete r.bytes;
        delete r.codeResults;
      }
      await showLearners(r.rows);
      // The same file picked again replaces its earlier result.
      const seen = state.files.findIndex((f) => f.file === r.file);
      if (seen >= 0) state.files[seen] = r;
      else state.files.push(r);
      done += 1;
      setProgress(t('instructor.progress', { done, count: files.length }));
      // Let the page breathe between files (progress, scrolling, the keyboard).
      await new Promise((ok) => setTimeout(ok, 0));
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

// Every CSV the page writes is the core's (the one writer poslab grade uses):
// the same cells, numbers and quoting.
async function downloadCsv(name, rows) {
  try {
    download(name, await state.core.call('csvTable', { rows, bom: true }), 'text/csv;charset=utf-8');
  } catch (e) {
    state.error = t('instructor.core_failed', { message: e.message });
    render();
  }
}
async function downloadRowsCsv(name) {
  try {
    const rows = state.files.flatMap((f) => f.rows ?? []);
    download(name, await state.core.call('gradeCsv', { rows, bom: true }), 'text/csv;charset=utf-8');
  } catch (e) {
    state.error = t('instructor.core_failed', { message: e.message });
    render();
  }
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

// A run status as the core's codeRuns says it: a re-run status, or not_rerun(reason).
function runStatusText(s) {
  const m = /^not_rerun\(([a-z_]{1,32})\)$/.exec(s);
  if (m) return t('instructor.run_not_rerun', { reason: hasText(`instructor.not_rerun_${m[1]}`) ? t(`instructor.not_rerun_${m[1]}`) : m[1] });
  return RUN_STATUSES.includes(s) ? t(`instructor.run_${s}`) : s;
}

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
          runs: [...RUN_STATUSES.filter((s) => tally[s]), ...Object.keys(tally).filter((s) => !RUN_STATUSES.includes(s)).sort()]
            .map((s) => t('instructor.code_run_count', { status: runStatusText(s), n: tally[s] }))
            .join(t('instructor.code_run_sep')),
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
  const flagText = (f, i) => t(`instructor.flag_${f}`, { n: i.ranFirst });
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
          h('td', {}, i.flags.map((f) => flagText(f, i)).join('・')),
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
    h('button', { type: 'button', id: 'export-roster', onclick: () => downloadCsv(`position-lab-roster-${stamp}.csv`, rosterCells(result, ids)) }, t('instructor.export_roster')),
    h('button', { type: 'button', id: 'export-items', onclick: () => downloadCsv(`position-lab-items-${stamp}.csv`, itemsCells(result)) }, t('instructor.export_items')),
    h('button', { type: 'button', id: 'export-rows', onclick: () => downloadRowsCsv(`position-lab-grades-${stamp}.csv`) }, t('instructor.export_rows')),
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
