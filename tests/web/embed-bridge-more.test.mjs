// web/js/grading/embed-bridge.js: the URL helpers at their edges, the
// statement's optional parts, and the bridge on windows that lack parts of a
// browser (StrykerJS survivors, issue #23). Every expected value is the rule
// as the module's comments state it, worked out for these inputs by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  activityId,
  buildStatement,
  createEmbedBridge,
  defaultActivityBase,
  EXTENSIONS,
  homePageFromUrl,
  normalizeOrigin,
  parseEmbedParams,
  responseText,
} from '../../web/js/grading/embed-bridge.js';
import { PostTarget, messageEvent } from './fakes.mjs';

const LMS = 'https://lms.example.edu';
const LAB = 'https://lab.example.org/position-lab/index.html';
const exercise = { id: 'hand-calc', title: { ja: '手で計算する', en: 'By hand' } };
const question = { id: 'weights', type: 'numeric', prompt: { ja: '重み', en: 'weights' } };
const base = { verb: 'answered', learner: 'alice', homePage: LMS, activityBase: LAB, exercise, question, score: { raw: 1, max: 2 }, success: false, durationMs: 5 };

function labWindow(href, extra = {}) {
  const win = new EventTarget();
  const parent = new PostTarget('parent');
  const root = { height: 100, getBoundingClientRect: () => ({ height: root.height }) };
  win.parent = parent;
  win.location = { href };
  win.document = { documentElement: root };
  Object.assign(win, extra);
  return { win, parent, root };
}
const embedded = (query = '') => `${LAB}?embed=1&parentOrigin=${encodeURIComponent(LMS)}${query}`;

test('normalizeOrigin: http as well as https; other schemes and non-strings are no origin', () => {
  assert.equal(normalizeOrigin('http://lms.example.edu'), 'http://lms.example.edu');
  assert.equal(normalizeOrigin('https://lms.example.edu/'), 'https://lms.example.edu');
  assert.equal(normalizeOrigin('ftp://lms.example.edu'), null);
  assert.equal(normalizeOrigin('ws://lms.example.edu'), null);
  // Not a string, even one that reads as an origin: null, never an exception.
  assert.equal(normalizeOrigin(new String('https://lms.example.edu')), null);
  assert.equal(normalizeOrigin(['https://lms.example.edu']), null);
  assert.equal(normalizeOrigin(undefined), null);
});

test('parseEmbedParams: embed=true as embed=1, an empty or missing parentOrigin, an unreadable URL', () => {
  assert.deepEqual(parseEmbedParams(`${LAB}?embed=true&parentOrigin=${LMS}`), { embed: true, parentOrigin: LMS, problem: null });
  assert.deepEqual(parseEmbedParams(`${LAB}#embed=1&parentOrigin=${LMS}`), { embed: true, parentOrigin: LMS, problem: null });
  assert.equal(parseEmbedParams(`${LAB}?embed=yes&parentOrigin=${LMS}`).embed, false);
  assert.equal(parseEmbedParams(`${LAB}?embed=0&parentOrigin=${LMS}`).embed, false);
  assert.deepEqual(parseEmbedParams(`${LAB}?embed=1`), { embed: true, parentOrigin: null, problem: { code: 'embed_no_origin', value: '' } });
  assert.deepEqual(parseEmbedParams(`${LAB}?embed=1&parentOrigin=`), { embed: true, parentOrigin: null, problem: { code: 'embed_no_origin', value: '' } });
  assert.deepEqual(parseEmbedParams('not a url'), { embed: false, parentOrigin: null, problem: null });
});

test('homePageFromUrl: from the query or the hash, http or https, else exactly null', () => {
  assert.equal(homePageFromUrl(`${LAB}?homePage=${encodeURIComponent('http://accounts.example.edu/x')}`), 'http://accounts.example.edu/x');
  assert.equal(homePageFromUrl(`${LAB}#homePage=${encodeURIComponent('https://accounts.example.edu')}&embed=1`), 'https://accounts.example.edu/');
  assert.equal(homePageFromUrl(`${LAB}?homePage=${encodeURIComponent('mailto:a@b.c')}`), null);
  assert.equal(homePageFromUrl(`${LAB}?homePage=nonsense`), null);
  assert.equal(homePageFromUrl('not a url'), null);
  assert.equal(homePageFromUrl(LAB), null);
});

test('activity ids and bases: URN questions, http labs', () => {
  assert.equal(activityId('urn:position-lab', 'hand calc', 'w/1'), 'urn:position-lab:exercise:hand%20calc:question:w%2F1');
  assert.equal(activityId('urn:position-lab', 'e'), 'urn:position-lab:exercise:e');
  assert.equal(defaultActivityBase('http://lab.example.org/a/index.html?x=1#y'), 'http://lab.example.org/a/index.html');
  assert.equal(defaultActivityBase('https://lab.example.org/a/?x=1'), 'https://lab.example.org/a/');
  assert.equal(defaultActivityBase('file:///srv/lab/index.html'), 'urn:position-lab');
});

test('responseText: a string answer as it is, an object as JSON, a code answer as its code', () => {
  assert.equal(responseText('abc'), 'abc');
  assert.equal(responseText(3), '3');
  assert.equal(responseText(['a', 2]), 'a[,]2');
  assert.equal(responseText({ pe: 'rope' }), '{"pe":"rope"}');
  assert.equal(responseText({ code: 'def f(): pass' }), 'def f(): pass');
});

test('statements: interaction types, names that fall back, no response or extensions unless given', () => {
  const type = (t) => buildStatement({ ...base, question: { ...question, type: t } }).object.definition.interactionType;
  assert.equal(type('numeric'), 'fill-in');
  assert.equal(type('choice'), 'choice');
  assert.equal(type('task'), 'other');
  assert.equal(type('code'), 'long-fill-in');
  assert.equal(type('prediction'), 'other');
  // A prompt in one language names the question in both; no prompt and no title: its id.
  assert.deepEqual(buildStatement({ ...base, question: { id: 'q', prompt: { ja: '問い' } } }).object.definition.name, { ja: '問い', en: '問い' });
  assert.deepEqual(buildStatement({ ...base, question: { id: 'q', prompt: { en: 'Q' } } }).object.definition.name, { ja: 'Q', en: 'Q' });
  assert.deepEqual(buildStatement({ ...base, exercise: { id: 'e' }, question: { id: 'q' } }).object.definition.name, { ja: 'q', en: 'q' });
  assert.deepEqual(buildStatement({ ...base, exercise: { id: 'e', title: {} }, question: { id: 'q' } }).object.definition.name, { ja: 'q', en: 'q' });
  const s = buildStatement(base);
  assert.equal('response' in s.result, false);
  assert.deepEqual(s.context.extensions, {});
  const t = buildStatement({ ...base, answer: ['1'], exercise: { ...exercise, contentHash: 'abc', seed: 0 } });
  assert.equal(t.result.response, '1');
  assert.deepEqual(t.context.extensions, { [EXTENSIONS.contentHash]: 'abc', [EXTENSIONS.seed]: 0 });
});

test('statement errors say which field', () => {
  assert.throws(() => buildStatement({ ...base, learner: '' }), /learner must be a non-empty string/);
  assert.throws(() => buildStatement({ ...base, exercise: { id: '' } }), /exercise\.id must be a non-empty string/);
  assert.throws(() => buildStatement({ ...base, score: { raw: 0, max: -1 } }), /score\.max must be a number ≥ 0/);
});

test('a bad parentOrigin warns with the value it got', () => {
  const { win } = labWindow(`${LAB}?embed=1&parentOrigin=lms.example.edu`);
  const b = createEmbedBridge({ window: win });
  assert.equal(b.enabled, false);
  assert.equal(b.warnings[0].code, 'embed_bad_origin');
  assert.match(b.warnings[0].message.en, /"lms\.example\.edu"/);
  assert.match(b.warnings[0].message.ja, /「lms\.example\.edu」/);
});

test('a window without location, document or documentElement: no exception, height 0', () => {
  const bare = new EventTarget();
  assert.equal(createEmbedBridge({ window: bare }).enabled, false);
  class RO {
    observe() {}
    disconnect() {}
  }
  for (const document of [undefined, {}]) {
    const { win } = labWindow(embedded(), { document, ResizeObserver: RO });
    const b = createEmbedBridge({ window: win });
    assert.equal(b.enabled, true);
    assert.deepEqual(b.sent[0], { subject: 'lti.frameResize', height: 0 });
  }
});

test('a disabled bridge posts nothing, watches nothing, and says so', () => {
  let observers = 0;
  class RO {
    constructor() {
      observers += 1;
    }
    observe() {}
    disconnect() {}
  }
  const { win, parent } = labWindow(`${LAB}?parentOrigin=${encodeURIComponent(LMS)}`, { ResizeObserver: RO });
  const b = createEmbedBridge({ window: win, learner: () => 'alice' });
  assert.equal(b.enabled, false);
  assert.equal(b.sendStatement({}), false);
  b.notifySize();
  assert.deepEqual(b.sent, []);
  assert.deepEqual(parent.posted ?? [], []);
  assert.equal(observers, 0);
});

test('an enabled bridge: sendStatement, notifySize at an unchanged height, ready, unknown actions', () => {
  const { win, parent } = labWindow(embedded());
  const b = createEmbedBridge({ window: win });
  assert.deepEqual(b.sent, [{ subject: 'lti.frameResize', height: 100 }, { context: 'h5p', action: 'hello' }]);
  const statement = { id: 's' };
  assert.equal(b.sendStatement(statement), true);
  assert.deepEqual(b.sent.at(-1), { context: 'h5p', action: 'xAPI', statement });
  const before = b.sent.length;
  b.notifySize(); // same height: still reported
  assert.deepEqual(b.sent.slice(before), [{ subject: 'lti.frameResize', height: 100 }, { context: 'h5p', action: 'hello' }]);
  const n = b.sent.length;
  win.dispatchEvent(messageEvent({ context: 'h5p', action: 'somethingElse' }, LMS, parent));
  win.dispatchEvent(messageEvent({ context: 'elsewhere', action: 'learner', learner: 'bob' }, LMS, parent));
  assert.equal(b.sent.length, n);
  win.dispatchEvent(messageEvent({ context: 'h5p', action: 'ready' }, LMS, parent));
  assert.deepEqual(b.sent.slice(n), [{ context: 'h5p', action: 'hello' }]);
  // A learner message with no onLearner handler: nothing happens, no warning.
  win.dispatchEvent(messageEvent({ context: 'position-lab', action: 'learner', learner: 'bob' }, LMS, parent));
  assert.deepEqual(b.warnings, []);
});

test('durations count from opened(), else from the bridge start', () => {
  let t = 0;
  const { win } = labWindow(embedded());
  const b = createEmbedBridge({ window: win, learner: () => 'alice', now: () => t });
  t = 1000;
  b.opened('hand-calc');
  t = 3500;
  assert.equal(b.answered({ exercise, question, score: { raw: 1, max: 1 }, success: true }).result.duration, 'PT2.5S');
  assert.equal(b.answered({ exercise: { id: 'other' }, question, score: { raw: 1, max: 1 }, success: true }).result.duration, 'PT3.5S');
});

test('no learner id: neither answered nor completed sends', () => {
  const { win } = labWindow(embedded());
  const b = createEmbedBridge({ window: win, learner: () => '' });
  const n = b.sent.length;
  assert.equal(b.completed({ exercise, score: { raw: 1, max: 1 }, success: true }), null);
  assert.equal(b.answered({ exercise, question, score: { raw: 1, max: 1 }, success: true }), null);
  assert.equal(b.sent.length, n);
});

test('homePage falls back to the lab origin for an http lab under parentOrigin=*', () => {
  const { win } = labWindow('http://lab.example.org/lab/?embed=1&parentOrigin=*');
  const b = createEmbedBridge({ window: win, learner: () => 'alice' });
  assert.equal(b.answered({ exercise, question, score: { raw: 1, max: 1 }, success: true }).actor.account.homePage, 'http://lab.example.org');
});

test('the host learner message needs the position-lab context, even with a handler', () => {
  const { win, parent } = labWindow(embedded());
  const got = [];
  createEmbedBridge({ window: win, onLearner: (id) => got.push(id) });
  win.dispatchEvent(messageEvent({ context: 'elsewhere', action: 'learner', learner: 'bob' }, LMS, parent));
  assert.deepEqual(got, []);
  win.dispatchEvent(messageEvent({ context: 'position-lab', action: 'learner', learner: 'bob' }, LMS, parent));
  assert.deepEqual(got, ['bob']);
});
