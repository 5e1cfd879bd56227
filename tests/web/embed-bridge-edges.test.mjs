// web/js/grading/embed-bridge.js at its edges (found by `npm run mutate:js`):
// statements refused field by field, the learner message accepted only in its
// exact form from the parent at parentOrigin, the account's homePage by
// default, the 500-message log, and close() really stopping the bridge.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEmbedBridge, buildStatement, URN_BASE } from '../../web/js/grading/embed-bridge.js';
import { PostTarget, messageEvent } from './fakes.mjs';

const LMS = 'https://lms.example.edu';
const LAB = 'https://lab.example.org/position-lab/index.html';

function labWindow(query, { href = `${LAB}?${query}` } = {}) {
  const win = new EventTarget();
  const parent = new PostTarget('parent');
  const root = { height: 100, getBoundingClientRect: () => ({ height: root.height }) };
  win.parent = parent;
  win.location = { href };
  win.document = { documentElement: root };
  return { win, parent, root };
}

const exercise = { id: 'hand-calc', title: { ja: '手で計算する', en: 'By hand' }, contentHash: '0123456789abcdef', seed: 1 };
const question = { id: 'weights', type: 'numeric', prompt: { ja: '重み', en: 'weights' } };
const good = { verb: 'answered', learner: 'alice', homePage: LMS, activityBase: LAB, exercise, question, score: { raw: 1, max: 2 }, success: false, answer: ['1'], durationMs: 5 };

test('buildStatement refuses each missing or bad field, and accepts the edges', () => {
  assert.equal(buildStatement(good).actor.account.name, 'alice');
  const bad = [
    [{ verb: 'liked' }, RangeError],
    [{ learner: '' }, TypeError],
    [{ learner: 7 }, TypeError],
    [{ exercise: null }, TypeError],
    [{ exercise: { id: '' } }, TypeError],
    [{ exercise: { id: 3 } }, TypeError],
    [{ question: null }, TypeError],
    [{ question: { id: '' } }, TypeError],
    [{ question: { id: 9 } }, TypeError],
    [{ score: { raw: 1, max: -1 } }, RangeError],
    [{ score: { raw: 1, max: NaN } }, RangeError],
    [{ score: { raw: -0.5, max: 2 } }, RangeError],
    [{ score: { raw: 2.5, max: 2 } }, RangeError],
    [{ score: { raw: NaN, max: 2 } }, RangeError],
    [{ score: undefined }, RangeError],
  ];
  for (const [change, type] of bad) assert.throws(() => buildStatement({ ...good, ...change }), type, JSON.stringify(change));
  // Edges: raw 0, raw = max, max 0; a completed statement needs no question.
  for (const score of [{ raw: 0, max: 2 }, { raw: 2, max: 2 }, { raw: 0, max: 0 }]) assert.ok(buildStatement({ ...good, score }));
  assert.ok(buildStatement({ ...good, verb: 'completed', question: undefined }));
});

test('the host learner message: only its exact form, only from the parent at parentOrigin', () => {
  const { win, parent } = labWindow(`embed=1&parentOrigin=${encodeURIComponent(LMS)}`);
  const got = [];
  const b = createEmbedBridge({ window: win, onLearner: (id) => got.push(id) });
  assert.equal(b.enabled, true);
  const msg = { context: 'position-lab', action: 'learner', learner: 'bob' };
  win.dispatchEvent(messageEvent({ ...msg, context: 'h5p' }, LMS, parent));
  win.dispatchEvent(messageEvent({ ...msg, action: 'hello' }, LMS, parent));
  win.dispatchEvent(messageEvent({ ...msg, learner: 42 }, LMS, parent));
  win.dispatchEvent(messageEvent(msg, 'https://evil.example', parent));
  win.dispatchEvent(messageEvent(msg, LMS, new PostTarget('another frame')));
  win.dispatchEvent(messageEvent('position-lab learner bob', LMS, parent));
  win.dispatchEvent(messageEvent(null, LMS, parent));
  assert.deepEqual(got, []);
  win.dispatchEvent(messageEvent(msg, LMS, parent));
  assert.deepEqual(got, ['bob']);
  // A handler that throws leaves a warning, not an exception.
  const { win: w2, parent: p2 } = labWindow(`embed=1&parentOrigin=${encodeURIComponent(LMS)}`);
  const b2 = createEmbedBridge({ window: w2, onLearner: () => { throw new Error('no such id'); } });
  w2.dispatchEvent(messageEvent(msg, LMS, p2));
  assert.equal(b2.warnings.length, 1);
  assert.equal(b2.warnings[0].code, 'host_learner');
  assert.deepEqual(b2.warnings[0].message, { ja: 'no such id', en: 'no such id' });
  // After close(), nothing is heard.
  b.close();
  win.dispatchEvent(messageEvent({ ...msg, learner: 'carol' }, LMS, parent));
  assert.deepEqual(got, ['bob']);
});

test('the account homePage: homePage= in the URL, else parentOrigin, else the lab origin, else the URN', () => {
  const page = (query, href) => {
    const { win } = labWindow(query, href ? { href } : {});
    const b = createEmbedBridge({ window: win, learner: () => 'alice' });
    return b.answered({ exercise, question, score: { raw: 1, max: 1 }, success: true, answer: ['1'] })?.actor.account.homePage;
  };
  assert.equal(page(`embed=1&parentOrigin=${encodeURIComponent(LMS)}`), LMS);
  assert.equal(page('embed=1&parentOrigin=*'), 'https://lab.example.org');
  assert.equal(page(`embed=1&parentOrigin=*&homePage=${encodeURIComponent('https://accounts.example.edu')}`), 'https://accounts.example.edu/');
  assert.equal(page('', 'file:///srv/lab/index.html?embed=1&parentOrigin=*'), URN_BASE);
});

test('the log keeps the last 500 messages posted, newest last', () => {
  const { win, root } = labWindow(`embed=1&parentOrigin=${encodeURIComponent(LMS)}`);
  const b = createEmbedBridge({ window: win });
  for (let i = 0; i < 400; i += 1) {
    root.height = 200 + i;
    b.notifySize();
  }
  assert.equal(b.sent.length, 500);
  assert.deepEqual(b.sent.at(-2), { subject: 'lti.frameResize', height: 599 });
  assert.equal(b.sent.filter((m) => m.subject === 'lti.frameResize').length, 250);
});
