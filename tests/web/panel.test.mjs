// The student's grading panel (web/js/grading/panel.js) on a small stand-in
// DOM: what it shows for each kind of learner id, what its buttons do, and the
// status line, in ja and en. Expected texts come from the catalog
// (web/i18n/*.json through catalog.js's format), not from the panel.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mountGradingPanel } from '../../web/js/grading/panel.js';
import { createLearner } from '../../web/js/grading/learner.js';
import { PRACTICE_LEARNER } from '../../web/js/grading/session.js';
import { format } from '../../web/js/catalog.js';
import { FakeStorage } from './fakes.mjs';

// ---- a stand-in DOM: elements with attributes, text, children, listeners ----
class El {
  constructor(doc, tag) {
    this.ownerDocument = doc;
    this.tagName = tag.toUpperCase();
    this.attrs = new Map();
    this.children = [];
    this.text = '';
    this.listeners = {};
    this.files = null;
    this._value = undefined;
  }
  setAttribute(k, v) { this.attrs.set(k, String(v)); }
  getAttribute(k) { return this.attrs.has(k) ? this.attrs.get(k) : null; }
  hasAttribute(k) { return this.attrs.has(k); }
  get value() { return this._value ?? this.getAttribute('value') ?? ''; }
  set value(v) { this._value = String(v); }
  set textContent(v) { this.text = String(v); this.children = []; }
  get textContent() { return this.text + this.children.map((c) => c.textContent).join(''); }
  append(...c) { this.children.push(...c); }
  replaceChildren(...c) { this.children = c; }
  addEventListener(type, f) { (this.listeners[type] ??= []).push(f); }
  // Runs the listeners as the browser would; resolves when async ones finish.
  async fire(type, extra = {}) {
    const event = { type, defaultPrevented: false, preventDefault() { this.defaultPrevented = true; }, ...extra };
    await Promise.all((this.listeners[type] ?? []).map((f) => f(event)));
    return event;
  }
  all(pred) { return [...(pred(this) ? [this] : []), ...this.children.flatMap((c) => c.all(pred))]; }
  one(pred, what) {
    const found = this.all(pred);
    assert.equal(found.length, 1, `exactly one ${what}`);
    return found[0];
  }
}
const doc = { createElement: (tag) => new El(doc, tag) };
const byClass = (name) => (e) => (e.getAttribute('class') ?? '').split(' ').includes(name);
const byTag = (tag) => (e) => e.tagName === tag.toUpperCase();

function setup({ id = null, source = 'typed', records = [], storeWarnings = [], warnings, lang = 'ja', session: s = {}, confirm = () => true, status, exerciseId } = {}) {
  const href = source === 'url' && id ? `https://lab.example/?learner=${id}` : 'https://lab.example/';
  const learner = createLearner({ href, storage: new FakeStorage() });
  if (id && source === 'typed') learner.setTyped(id);
  if (id && source === 'host') learner.setFromHost(id);
  const asked = [];
  const store = { warnings: storeWarnings, records: (q) => (asked.push(q), records) };
  const calls = [];
  const session = {
    download: async (a) => (calls.push(['download', a]), 'poslab-submission.json'),
    import: (text) => (calls.push(['import', text]), { message: { ja: '取り込みました', en: 'Imported' } }),
    reset: (a) => (calls.push(['reset', a]), { backupKey: 'poslab.backup.1' }),
    ...s,
  };
  const changes = [];
  const statuses = [];
  const confirms = [];
  let L = lang;
  const root = doc.createElement('section');
  const panel = mountGradingPanel(root, {
    session, store, learner, labVersion: '0.1.0', exercises: ['ex'], lang: () => L, warnings, status, exerciseId,
    confirm: (text) => (confirms.push(text), confirm(text)),
    onChange: (what) => changes.push(what),
    onStatus: (x) => statuses.push(x),
  });
  return { root, panel, learner, calls, changes, statuses, confirms, asked, setLang: (l) => { L = l; } };
}
const statusLine = (root) => root.one(byClass('grading-status'), 'status line');
const statusTexts = (root) => statusLine(root).children.map((p) => p.textContent);

test('title, the honest-grading line and the warnings, in the page\'s language', () => {
  const w1 = { code: 'storage_full', message: { ja: '保存先がいっぱいです', en: 'Storage is full' } };
  const w2 = { code: 'bridge_origin', message: { ja: '親ページの origin が違います' } };
  const { root, panel, setLang } = setup({ storeWarnings: [w1], warnings: [w2] });
  assert.equal(root.one(byTag('h2'), 'title').textContent, format('ja', 'grading.panel_title'));
  assert.equal(root.one(byClass('grading-honest'), 'honest line').textContent, format('ja', 'grading.honest'));
  const box = root.one(byClass('grading-warnings'), 'warnings box');
  assert.equal(box.getAttribute('role'), 'alert');
  assert.equal(box.one(byTag('h3'), 'warnings title').textContent, format('ja', 'grading.warnings_title'));
  assert.deepEqual(box.all(byTag('li')).map((li) => [li.getAttribute('data-code'), li.textContent]), [
    ['storage_full', '保存先がいっぱいです'],
    ['bridge_origin', '親ページの origin が違います'],
  ]);
  setLang('en');
  panel.render();
  assert.equal(root.one(byTag('h2'), 'title').textContent, 'Grading and submission');
  assert.deepEqual(root.all(byTag('li')).map((li) => li.textContent), ['Storage is full', '親ページの origin が違います'], 'a warning without English falls back to Japanese');
  // No warnings: no box at all.
  assert.equal(setup().root.all(byClass('grading-warnings')).length, 0);
});

test('no learner id yet: a form to type it, buttons that need an id disabled, and the reason', () => {
  const { root } = setup();
  const form = root.one(byTag('form'), 'form');
  assert.equal(form.getAttribute('class'), 'grading-learner');
  const input = form.one(byTag('input'), 'id input');
  assert.equal(input.getAttribute('value'), '');
  assert.equal(input.getAttribute('id'), 'grading-learner');
  assert.equal(form.one(byTag('label'), 'label').getAttribute('for'), 'grading-learner');
  assert.equal(form.one(byTag('label'), 'label').textContent, format('ja', 'grading.learner_label'));
  assert.equal(form.one(byTag('button'), 'save').textContent, format('ja', 'grading.learner_save'));
  assert.equal(root.one(byClass('grading-download'), 'download').hasAttribute('disabled'), true);
  assert.equal(root.one(byClass('grading-import-file'), 'file input').hasAttribute('disabled'), true);
  assert.equal(root.one(byClass('grading-import'), 'import label').getAttribute('class'), 'grading-import button disabled');
  const help = root.all(byClass('grading-help')).map((p) => p.textContent);
  assert.ok(help.includes(format('ja', 'grading.learner_needed')));
  assert.equal(root.one(byClass('grading-import-chosen'), 'chosen').textContent, format('ja', 'grading.import_none'));
  assert.equal(statusLine(root).getAttribute('class'), 'grading-status');
  assert.equal(statusLine(root).children.length, 0);
});

test('typing an id: saved, said, the exercise re-rendered; a bad id is an error in the page\'s language', async () => {
  const t = setup({ lang: 'en' });
  let input = t.root.one((e) => e.getAttribute('id') === 'grading-learner', 'id input');
  input.value = ' s42 ';
  const ev = await t.root.one(byTag('form'), 'form').fire('submit');
  assert.equal(ev.defaultPrevented, true, 'the form does not navigate');
  assert.equal(t.learner.id, 's42');
  assert.deepEqual(t.changes, ['learner']);
  assert.deepEqual(statusTexts(t.root), [format('en', 'grading.learner_saved', { id: 's42' })]);
  assert.equal(statusLine(t.root).getAttribute('class'), 'grading-status info');
  assert.deepEqual(t.statuses, [{ key: 'grading.learner_saved', params: { id: 's42' }, kind: 'info' }]);
  // With an id, the buttons are enabled and the "needs an id" line is gone.
  assert.equal(t.root.one(byClass('grading-download'), 'download').hasAttribute('disabled'), false);
  assert.equal(t.root.one(byClass('grading-import'), 'import label').getAttribute('class'), 'grading-import button');
  assert.ok(!t.root.all(byClass('grading-help')).some((p) => p.textContent === format('en', 'grading.learner_needed')));
  input = t.root.one((e) => e.getAttribute('id') === 'grading-learner', 'id input');
  assert.equal(input.getAttribute('value'), 's42', 'the form shows the id in use');

  input.value = 'a\u0001b';
  await t.root.one(byTag('form'), 'form').fire('submit');
  assert.equal(t.learner.id, 's42');
  assert.deepEqual(t.changes, ['learner']);
  assert.equal(statusLine(t.root).getAttribute('class'), 'grading-status error');
  assert.deepEqual(statusTexts(t.root), [format('en', 'grading.learner_bad_char')]);
  t.setLang('ja');
  t.panel.render();
  assert.deepEqual(statusTexts(t.root), [format('ja', 'grading.learner_bad_char')], 'the error is shown again in Japanese');
});

test('an id from the URL or the course page is shown, not editable', () => {
  const url = setup({ id: 'u7', source: 'url' });
  assert.equal(url.root.all(byTag('form')).length, 0);
  assert.equal(url.root.one(byClass('grading-learner-fixed'), 'fixed id').textContent, format('ja', 'grading.learner_from_url', { id: 'u7' }));
  const host = setup({ id: 'lms-1', source: 'host', lang: 'en' });
  assert.equal(host.root.all(byTag('form')).length, 0);
  assert.equal(host.root.one(byClass('grading-learner-fixed'), 'fixed id').textContent, format('en', 'grading.learner_from_host', { id: 'lms-1' }));
});

test('download: the session makes the file; its name or the failure is said', async () => {
  const t = setup({ id: 's1' });
  await t.root.one(byClass('grading-download'), 'download').fire('click');
  assert.deepEqual(t.calls, [['download', { labVersion: '0.1.0', exercises: ['ex'] }]]);
  assert.deepEqual(statusTexts(t.root), [format('ja', 'grading.download_done', { name: 'poslab-submission.json' })]);
  const bad = setup({ id: 's1', lang: 'en', session: { download: async () => { throw new Error('disk full'); } } });
  await bad.root.one(byClass('grading-download'), 'download').fire('click');
  assert.deepEqual(statusTexts(bad.root), [format('en', 'grading.download_failed', { detail: 'disk full' })]);
  assert.equal(statusLine(bad.root).getAttribute('class'), 'grading-status error');
});

test('import: the chosen file is named, read and handed to the session; a refusal is an error', async () => {
  const t = setup({ id: 's1', lang: 'en' });
  let file = t.root.one(byClass('grading-import-file'), 'file input');
  assert.equal(file.getAttribute('type'), 'file');
  assert.equal(file.hasAttribute('disabled'), false);
  file.files = [];
  await file.fire('change');
  assert.deepEqual(t.calls, [], 'no file chosen: nothing happens');
  file.files = [{ name: 'mine.json', text: async () => '{"x":1}' }];
  await file.fire('change');
  assert.deepEqual(t.calls, [['import', '{"x":1}']]);
  assert.deepEqual(t.changes, ['import']);
  assert.deepEqual(statusTexts(t.root), ['Imported']);
  // After the re-render the chosen file is still named.
  assert.equal(t.root.one(byClass('grading-import-chosen'), 'chosen').textContent, format('en', 'grading.import_chosen', { name: 'mine.json' }));

  const err = Object.assign(new Error('not json'), { text: { ja: 'JSON ではありません', en: 'Not JSON' } });
  const bad = setup({ id: 's1', session: { import: () => { throw err; } } });
  file = bad.root.one(byClass('grading-import-file'), 'file input');
  file.files = [{ name: 'x.json', text: async () => 'nope' }];
  await file.fire('change');
  assert.deepEqual(bad.changes, []);
  assert.deepEqual(statusTexts(bad.root), ['JSON ではありません']);
  assert.equal(statusLine(bad.root).getAttribute('class'), 'grading-status error');
  // An error without its own text shows its message.
  const plain = setup({ id: 's1', lang: 'en', session: { import: () => { throw new Error('boom'); } } });
  file = plain.root.one(byClass('grading-import-file'), 'file input');
  file.files = [{ name: 'y.json', text: async () => '' }];
  await file.fire('change');
  assert.deepEqual(statusTexts(plain.root), ['boom']);
});

test('reset: asks first, naming how many answers go; clears only when confirmed', async () => {
  const records = [{ attempts: [1, 2] }, { attempts: [3] }];
  const t = setup({ id: 's1', records, lang: 'en', exerciseId: 'rope', confirm: () => false });
  assert.deepEqual(t.asked, [{ learner: 's1' }]);
  await t.root.one(byClass('grading-reset'), 'reset').fire('click');
  assert.deepEqual(t.confirms, [format('en', 'grading.reset_confirm', { count: 3, id: 's1' })]);
  assert.match(t.confirms[0], /3 answers/);
  assert.deepEqual(t.calls, [], 'not confirmed: nothing cleared');
  assert.deepEqual(t.changes, []);

  const yes = setup({ id: 's1', records, exerciseId: 'rope' });
  await yes.root.one(byClass('grading-reset'), 'reset').fire('click');
  assert.deepEqual(yes.calls, [['reset', { exerciseId: 'rope' }]]);
  assert.deepEqual(yes.changes, ['reset']);
  assert.deepEqual(statusTexts(yes.root), [format('ja', 'grading.reset_done', { key: 'poslab.backup.1' })]);

  // Before an id: the practice answers, said so.
  const practice = setup({ records: [{ attempts: [1] }], lang: 'en', session: { reset: () => ({ backupKey: null }) } });
  assert.deepEqual(practice.asked, [{ learner: PRACTICE_LEARNER }]);
  await practice.root.one(byClass('grading-reset'), 'reset').fire('click');
  assert.deepEqual(practice.confirms, [format('en', 'grading.reset_confirm_practice', { count: 1 })]);
  assert.match(practice.confirms[0], /the 1 practice answer /);
  assert.deepEqual(statusTexts(practice.root), [format('en', 'grading.reset_nothing')]);
  assert.deepEqual(practice.changes, ['reset']);
});

test('a re-mounted panel keeps its last status line, with the lines it adds', () => {
  const t = setup({ lang: 'en', status: { key: 'grading.download_done', params: { name: 'a.json' }, kind: 'info', also: [{ key: 'grading.reset_nothing' }] } });
  assert.deepEqual(statusTexts(t.root), [format('en', 'grading.download_done', { name: 'a.json' }), format('en', 'grading.reset_nothing')]);
  assert.equal(statusLine(t.root).getAttribute('role'), 'status');
  const text = setup({ lang: 'en', status: { text: { ja: 'だけ' }, kind: 'error' } });
  assert.deepEqual(statusTexts(text.root), ['だけ'], 'a text without English falls back to Japanese');
  assert.equal(statusLine(text.root).getAttribute('class'), 'grading-status error');
});

// The whole panel as a tree of [tag, attributes, own text, children]: the
// structure a screen reader and the stylesheet rely on (labels tied to their
// inputs, help tied by aria-describedby, the roles of the warnings and the
// status line), written out here from the panel's design.
const tree = (e) => [e.tagName.toLowerCase(), Object.fromEntries([...e.attrs].sort(([a], [b]) => a.localeCompare(b))), e.text, e.children.map(tree)];
const T = (key, params) => format('ja', key, params);

test('the panel\'s elements and attributes, without an id and with one', () => {
  const w = { code: 'w1', message: { ja: '警告です' } };
  const none = setup({ storeWarnings: [w] });
  assert.deepEqual(none.root.children.map(tree), [
    ['h2', { class: 'grading-title' }, T('grading.panel_title'), []],
    ['p', { class: 'grading-honest' }, T('grading.honest'), []],
    ['div', { class: 'grading-warnings', role: 'alert' }, '', [
      ['h3', {}, T('grading.warnings_title'), []],
      ['ul', {}, '', [['li', { 'data-code': 'w1' }, '警告です', []]]],
    ]],
    ['form', { class: 'grading-learner' }, '', [
      ['label', { for: 'grading-learner' }, T('grading.learner_label'), []],
      ['input', { 'aria-describedby': 'grading-learner-help', autocomplete: 'off', id: 'grading-learner', spellcheck: 'false', type: 'text', value: '' }, '', []],
      ['button', { type: 'submit' }, T('grading.learner_save'), []],
      ['p', { class: 'grading-help', id: 'grading-learner-help' }, T('grading.learner_help'), []],
    ]],
    ['div', { class: 'grading-actions' }, '', [
      ['button', { class: 'grading-download', disabled: '', type: 'button' }, T('grading.download_button'), []],
      ['input', { accept: 'application/json,.json', 'aria-describedby': 'grading-import-chosen', class: 'grading-import-file sr-only', disabled: '', id: 'grading-import', type: 'file' }, '', []],
      ['label', { class: 'grading-import button disabled', for: 'grading-import' }, T('grading.import_button'), []],
      ['span', { class: 'grading-import-chosen', id: 'grading-import-chosen' }, T('grading.import_none'), []],
      ['button', { class: 'grading-reset secondary', type: 'button' }, T('grading.reset_button'), []],
    ]],
    ['p', { class: 'grading-help' }, T('grading.learner_needed'), []],
    ['div', { class: 'grading-status', role: 'status' }, '', []],
  ]);

  const host = setup({ id: 'h1', source: 'host', status: { key: 'grading.reset_nothing', kind: 'info' } });
  assert.deepEqual(host.root.children.map(tree), [
    ['h2', { class: 'grading-title' }, T('grading.panel_title'), []],
    ['p', { class: 'grading-honest' }, T('grading.honest'), []],
    ['p', { class: 'grading-learner-fixed' }, T('grading.learner_from_host', { id: 'h1' }), []],
    ['div', { class: 'grading-actions' }, '', [
      ['button', { class: 'grading-download', type: 'button' }, T('grading.download_button'), []],
      ['input', { accept: 'application/json,.json', 'aria-describedby': 'grading-import-chosen', class: 'grading-import-file sr-only', id: 'grading-import', type: 'file' }, '', []],
      ['label', { class: 'grading-import button', for: 'grading-import' }, T('grading.import_button'), []],
      ['span', { class: 'grading-import-chosen', id: 'grading-import-chosen' }, T('grading.import_none'), []],
      ['button', { class: 'grading-reset secondary', type: 'button' }, T('grading.reset_button'), []],
    ]],
    ['div', { class: 'grading-status info', role: 'status' }, '', [['p', {}, T('grading.reset_nothing'), []]]],
  ]);
});

test('the panel works without onChange or onStatus, and the strings default to Japanese', async () => {
  const learner = createLearner({ href: 'https://lab.example/', storage: new FakeStorage() });
  const root = doc.createElement('section');
  const calls = [];
  const session = { download: async () => 'f.json', import: () => ({ message: { ja: '済', en: 'done' } }), reset: () => (calls.push('reset'), { backupKey: null }) };
  mountGradingPanel(root, { session, store: { warnings: [], records: () => [] }, learner, labVersion: '1', exercises: [], confirm: () => true });
  const input = root.one((e) => e.getAttribute('id') === 'grading-learner', 'id input');
  input.value = 'z1';
  await root.one(byTag('form'), 'form').fire('submit');
  assert.equal(learner.id, 'z1');
  assert.deepEqual(statusTexts(root), [T('grading.learner_saved', { id: 'z1' })], 'no lang given: Japanese');
  const file = root.one(byClass('grading-import-file'), 'file input');
  file.files = [{ name: 'a.json', text: async () => '{}' }];
  await file.fire('change');
  assert.deepEqual(statusTexts(root), ['済']);
  await root.one(byClass('grading-reset'), 'reset').fire('click');
  assert.deepEqual(calls, ['reset']);
  // A file input with no file list at all (an old browser) does nothing.
  const again = root.one(byClass('grading-import-file'), 'file input');
  again.files = null;
  await again.fire('change');
  assert.deepEqual(statusTexts(root), [T('grading.reset_nothing')]);
});

test('while a chosen file is read, it is already named; a thrown error without its own text shows its message', async () => {
  let release;
  const t = setup({ id: 's1', lang: 'en' });
  const file = t.root.one(byClass('grading-import-file'), 'file input');
  file.files = [{ name: 'slow.json', text: () => new Promise((ok) => (release = ok)) }];
  const done = file.fire('change');
  assert.equal(t.root.one(byClass('grading-import-chosen'), 'chosen').textContent, format('en', 'grading.import_chosen', { name: 'slow.json' }));
  release('{}');
  await done;
  assert.equal(statusLine(t.root).getAttribute('class'), 'grading-status info');
  // onChange failing after a saved id: its message is the status, as an error.
  const learner = createLearner({ href: 'https://lab.example/', storage: new FakeStorage() });
  const root = doc.createElement('section');
  mountGradingPanel(root, { session: {}, store: { warnings: [], records: () => [] }, learner, labVersion: '1', exercises: [], lang: () => 'en', onChange: () => { throw new Error('re-render failed'); } });
  root.one((e) => e.getAttribute('id') === 'grading-learner', 'id input').value = 'q1';
  await root.one(byTag('form'), 'form').fire('submit');
  assert.deepEqual(statusTexts(root), ['re-render failed']);
});

test('without a confirm given, the browser\'s confirm() is asked', async () => {
  const saved = globalThis.confirm;
  const asked = [];
  globalThis.confirm = (text) => (asked.push(text), false);
  try {
    const learner = createLearner({ href: 'https://lab.example/', storage: new FakeStorage() });
    const root = doc.createElement('section');
    let resets = 0;
    mountGradingPanel(root, { session: { reset: () => (resets++, {}) }, store: { warnings: [], records: () => [] }, learner, labVersion: '1', exercises: [] });
    await root.one(byClass('grading-reset'), 'reset').fire('click');
    assert.deepEqual(asked, [T('grading.reset_confirm_practice', { count: 0 })]);
    assert.equal(resets, 0);
  } finally {
    globalThis.confirm = saved;
  }
});
