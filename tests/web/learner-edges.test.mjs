// The learner id at its edges (issue #23, mutation testing of learner.js):
// which characters are control characters, the length limit, what a damaged
// kept id does, which source outranks which, and the change listeners.
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createLearner, learnerFromUrl, normalizeLearner, variantFor, LEARNER_KEY, MAX_LEARNER_LENGTH, LearnerError } from '../../web/js/grading/learner.js';
import { FakeStorage } from './fakes.mjs';
import en from '../../web/i18n/en.json' with { type: 'json' };
import ja from '../../web/i18n/ja.json' with { type: 'json' };

const page = 'https://lab.example/index.html';
const saved = Object.getOwnPropertyDescriptor(globalThis, 'localStorage');
afterEach(() => {
  if (saved) Object.defineProperty(globalThis, 'localStorage', saved);
  else delete globalThis.localStorage;
});

test('control characters are C0, DEL and C1 (U+0000–U+001F, U+007F–U+009F); their neighbours are allowed', () => {
  for (const cp of [0x00, 0x09, 0x1f, 0x7f, 0x80, 0x9f]) {
    assert.throws(() => normalizeLearner(`a${String.fromCodePoint(cp)}b`), (e) => e instanceof LearnerError && e.code === 'bad_char', `U+${cp.toString(16)}`);
  }
  for (const cp of [0x20, 0x7e, 0xa0, 0x3000]) {
    const id = `a${String.fromCodePoint(cp)}b`;
    assert.equal(normalizeLearner(id), id, `U+${cp.toString(16)} is allowed inside an id`);
  }
});

test('the length limit is 200 characters, said with its numbers, in both languages', () => {
  assert.equal(MAX_LEARNER_LENGTH, 200);
  assert.equal(normalizeLearner('x'.repeat(200)), 'x'.repeat(200));
  // Astral characters count once each (a surrogate pair is one character).
  assert.equal(normalizeLearner('😀'.repeat(200)), '😀'.repeat(200));
  let caught;
  try {
    normalizeLearner('😀'.repeat(201));
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof LearnerError && caught instanceof Error);
  assert.equal(caught.name, 'LearnerError');
  assert.equal(caught.code, 'too_long');
  assert.deepEqual(caught.params, { max: 200, length: 201 });
  assert.equal(caught.message, caught.text.en);
  assert.equal(caught.text.en, en['grading.learner_too_long'].replace('{max}', '200').replace('{length}', '201'));
  assert.equal(caught.text.ja, ja['grading.learner_too_long'].replace('{max}', '200').replace('{length}', '201'));
  // An empty id: nothing, null and undefined alike.
  for (const v of [null, undefined, '', ' \t ']) assert.throws(() => normalizeLearner(v), (e) => e.code === 'empty' && e.text.en === en['grading.learner_empty']);
  assert.equal(normalizeLearner(12345), '12345', 'a number is read as its digits');
});

test('learner= in the query wins over the hash; an unusable value in the URL counts as none', () => {
  assert.equal(learnerFromUrl(`${page}?learner=q1#learner=h1`), 'q1');
  assert.equal(learnerFromUrl(`${page}#learner=h1`), 'h1');
  assert.equal(learnerFromUrl(`${page}#x=1&learner=h2`), 'h2');
  assert.equal(learnerFromUrl(`${page}?learner=a%0Ab`), null, 'a control character');
  assert.equal(learnerFromUrl(`${page}?learner=${'x'.repeat(201)}`), null, 'too long');
  assert.equal(learnerFromUrl(`${page}?learner=${'x'.repeat(200)}`), 'x'.repeat(200));
  assert.equal(learnerFromUrl(`${page}?learners=a`), null, 'another parameter');
  // The URL's id is used without reading what was typed before (no warning for a damaged kept id).
  const storage = new FakeStorage({ [LEARNER_KEY]: 'a\u0001b' });
  const l = createLearner({ href: `${page}?learner=u1`, storage });
  assert.deepEqual([l.id, l.source, l.warnings], ['u1', 'url', []]);
});

test('a damaged kept id is not used, and the panel is told so in ja and en', () => {
  for (const kept of ['   ', 'a\u0007b', 'x'.repeat(201), 'x'.repeat(801)]) {
    const l = createLearner({ href: page, storage: new FakeStorage({ [LEARNER_KEY]: kept }) });
    assert.equal(l.id, null, JSON.stringify(kept.slice(0, 10)));
    assert.equal(l.source, null);
    assert.equal(l.editable, true);
    assert.deepEqual(l.warnings, [{ code: 'learner_dropped', message: { ja: ja['grading.learner_dropped'], en: en['grading.learner_dropped'] } }]);
  }
  const good = createLearner({ href: page, storage: new FakeStorage({ [LEARNER_KEY]: ' s1 ' }) });
  assert.deepEqual([good.id, good.source, good.editable, good.warnings], ['s1', 'typed', true, []]);
});

test('without a storage given, the page\'s localStorage is used; one that cannot be reached is none', () => {
  const store = new FakeStorage({ [LEARNER_KEY]: 'from-local' });
  Object.defineProperty(globalThis, 'localStorage', { value: store, configurable: true });
  const l = createLearner({ href: page });
  assert.equal(l.id, 'from-local');
  l.setTyped('t2');
  assert.equal(store.getItem(LEARNER_KEY), 't2');

  Object.defineProperty(globalThis, 'localStorage', {
    get() {
      throw new Error('SecurityError');
    },
    configurable: true,
  });
  const blocked = createLearner({ href: page });
  assert.equal(blocked.id, null);
  assert.equal(blocked.setTyped('t3'), true);
  assert.equal(blocked.id, 't3');
  // No page address at all (a worker, a test): no id until one is given.
  const none = createLearner({ href: undefined, storage: null });
  assert.deepEqual([none.id, none.source], [null, null]);
});

test('ranks: host replaces typed, the same rank replaces itself, a weaker one never; only typed ids are kept', () => {
  const storage = new FakeStorage();
  const l = createLearner({ href: page, storage });
  const seen = [];
  const off = l.onChange((c) => seen.push({ ...c }));
  assert.equal(l.setTyped('a'), true);
  assert.equal(l.setTyped('a'), false, 'the same id again is no change');
  assert.equal(l.setTyped('b'), true, 'typed replaces typed');
  assert.equal(l.setFromHost('h1'), true);
  assert.equal(storage.getItem(LEARNER_KEY), 'b', 'the host\'s id is not kept in the browser');
  assert.equal(l.setFromHost('h1'), false);
  assert.equal(l.setFromHost('h2'), true, 'the host may change it again');
  assert.equal(l.setTyped('c'), false);
  assert.equal(storage.getItem(LEARNER_KEY), 'b', 'a refused typed id is not kept either');
  assert.deepEqual(seen, [
    { id: 'a', source: 'typed' },
    { id: 'b', source: 'typed' },
    { id: 'h1', source: 'host' },
    { id: 'h2', source: 'host' },
  ]);
  // A bad id throws and changes nothing.
  assert.throws(() => l.setFromHost('x\u0000'), LearnerError);
  assert.equal(l.id, 'h2');
  // After unsubscribing, no more calls; other listeners still get them.
  const other = [];
  l.onChange((c) => other.push(c.id));
  assert.equal(off(), true);
  assert.equal(l.setFromHost('h3'), true);
  assert.equal(seen.length, 4);
  assert.deepEqual(other, ['h3']);
});

test('variantFor refuses a bad id before asking the core', async () => {
  let asked = 0;
  const core = { variant: () => { asked++; return {}; } };
  await assert.rejects(variantFor(core, {}, 'a\u0001'), (e) => e.code === 'bad_char');
  assert.equal(asked, 0);
  assert.deepEqual(await variantFor(core, {}, 'ok'), {});
  assert.equal(asked, 1);
});

test('no kept id is no warning; a kept id far too long is dropped without being normalized', () => {
  assert.deepEqual(createLearner({ href: page, storage: new FakeStorage() }).warnings, []);
  assert.deepEqual(createLearner({ href: page, storage: null }).warnings, []);
  // "Far longer than any id can be": past 4 × 200 UTF-16 units the kept value
  // is dropped before String.prototype.normalize sees it (a megabyte-long
  // value costs nothing); up to that, it is normalized and then judged.
  const normalize = String.prototype.normalize;
  const seen = [];
  String.prototype.normalize = function (...args) {
    seen.push(this.length);
    return normalize.apply(this, args);
  };
  try {
    for (const n of [801, 100000]) {
      const l = createLearner({ href: page, storage: new FakeStorage({ [LEARNER_KEY]: 'x'.repeat(n) }) });
      assert.equal(l.id, null);
      assert.equal(l.warnings.length, 1);
    }
    assert.deepEqual(seen, [], 'not normalized');
    const at = createLearner({ href: page, storage: new FakeStorage({ [LEARNER_KEY]: 'x'.repeat(800) }) });
    assert.equal(at.id, null);
    assert.deepEqual(at.warnings.map((w) => w.code), ['learner_dropped']);
    assert.deepEqual(seen, [800], '800 units: normalized, then too long');
    seen.length = 0;
    assert.equal(createLearner({ href: page, storage: new FakeStorage({ [LEARNER_KEY]: 'y'.repeat(60) }) }).id, 'y'.repeat(60));
    assert.deepEqual(seen, [60]);
  } finally {
    String.prototype.normalize = normalize;
  }
});
