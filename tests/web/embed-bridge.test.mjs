// The lab's embed bridge with fake windows: messages go only to
// parentOrigin and come only from it (and from window.parent); heights in
// H5P's and Canvas's forms; H5P-shaped xAPI statements.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEmbedBridge, parseEmbedParams, normalizeOrigin, isoDuration, activityId, buildStatement, responseText } from '../../web/js/grading/embed-bridge.js';
import { createLearner } from '../../web/js/grading/learner.js';
import { PostTarget, messageEvent } from './fakes.mjs';

const LMS = 'https://lms.example.edu';
const LAB = 'https://lab.example.org/position-lab/index.html';

// A framed lab window: parent records posts; the root element's height is
// settable; the ResizeObserver is one we can fire.
function labWindow(query, { height = 639.4, framed = true } = {}) {
  const win = new EventTarget();
  const parent = framed ? new PostTarget('parent') : win;
  const root = { height, getBoundingClientRect: () => ({ height: root.height }) };
  const observers = [];
  win.parent = parent;
  win.location = { href: `${LAB}?${query}` };
  win.document = { documentElement: root };
  win.ResizeObserver = class {
    constructor(cb) {
      this.cb = cb;
      observers.push(this);
    }
    observe(el) {
      this.el = el;
    }
    disconnect() {
      this.off = true;
    }
  };
  const resize = (h) => {
    root.height = h;
    for (const o of observers) if (!o.off) o.cb([{ target: o.el }]);
  };
  return { win, parent, root, resize, observers };
}

const exercise = { id: 'hand-calc', title: { ja: '手で計算する', en: 'By hand' }, contentHash: '0123456789abcdef', seed: 3141592653 };
const question = { id: 'weights', type: 'numeric', prompt: { ja: '重みを求める', en: 'Find the weights' } };

test('normalizeOrigin accepts http(s) origins and an explicit *, nothing else', () => {
  assert.equal(normalizeOrigin('https://lms.example.edu'), LMS);
  assert.equal(normalizeOrigin('https://lms.example.edu/'), LMS);
  assert.equal(normalizeOrigin('HTTPS://LMS.Example.edu'), LMS);
  assert.equal(normalizeOrigin('http://127.0.0.1:8080'), 'http://127.0.0.1:8080');
  assert.equal(normalizeOrigin('*'), '*');
  for (const bad of ['', 'null', 'lms.example.edu', 'https://lms.example.edu/course/1', 'https://lms.example.edu?x', 'javascript:alert(1)', 'file:///srv/lab', 'https://u:p@lms.example.edu', '**']) {
    assert.equal(normalizeOrigin(bad), null, bad);
  }
});

test('parseEmbedParams: embed=1 needs a usable parentOrigin, and says why not', () => {
  assert.deepEqual(parseEmbedParams(`${LAB}?exercise=rope`), { embed: false, parentOrigin: null, problem: null });
  assert.deepEqual(parseEmbedParams(`${LAB}?embed=1&parentOrigin=${encodeURIComponent(LMS)}`), { embed: true, parentOrigin: LMS, problem: null });
  assert.deepEqual(parseEmbedParams(`${LAB}#embed=1&parentOrigin=*`), { embed: true, parentOrigin: '*', problem: null });
  assert.equal(parseEmbedParams(`${LAB}?embed=1`).problem.code, 'embed_no_origin');
  assert.equal(parseEmbedParams(`${LAB}?embed=1&parentOrigin=null`).problem.code, 'embed_null_origin');
  assert.deepEqual(parseEmbedParams(`${LAB}?embed=1&parentOrigin=https://lms.example.edu/x`).problem, { code: 'embed_bad_origin', value: 'https://lms.example.edu/x' });
});

test('without a usable parentOrigin, or unframed, nothing is ever posted', () => {
  for (const query of ['embed=1', 'embed=1&parentOrigin=null', 'embed=1&parentOrigin=evil', 'exercise=rope']) {
    const { win, parent } = labWindow(query);
    const b = createEmbedBridge({ window: win, learner: () => 'alice' });
    assert.equal(b.enabled, false, query);
    assert.equal(b.answered({ exercise, question, score: { raw: 1, max: 1 }, success: true, answer: ['1'] }), null);
    win.dispatchEvent(messageEvent({ context: 'h5p', action: 'hello' }, LMS, parent));
    assert.deepEqual(parent.posted, [], query);
    if (query !== 'exercise=rope') assert.match(b.warnings[0].message.ja, /親ページへは何も送りません/);
  }
  const { win } = labWindow(`embed=1&parentOrigin=${LMS}`, { framed: false });
  assert.equal(createEmbedBridge({ window: win }).enabled, false);
});

test('heights: Canvas form and H5P hello at start, then the H5P handshake, all to parentOrigin only', () => {
  const { win, parent, resize, root, observers } = labWindow(`embed=1&parentOrigin=${encodeURIComponent(LMS)}`);
  const b = createEmbedBridge({ window: win });
  assert.equal(b.enabled, true);
  assert.equal(observers[0].el, root, 'the root element is observed');
  // 639.4 px of content reports 640: rounding down would leave a scrollbar.
  assert.deepEqual(parent.posted, [
    { data: { subject: 'lti.frameResize', height: 640 }, targetOrigin: LMS },
    { data: { context: 'h5p', action: 'hello' }, targetOrigin: LMS },
  ]);
  parent.posted.length = 0;
  // The host's resizer answers hello: from now on, prepareResize.
  win.dispatchEvent(messageEvent({ context: 'h5p', action: 'hello' }, LMS, parent));
  assert.equal(b.friendly, true);
  assert.deepEqual(parent.posted.map((p) => p.data), [
    { subject: 'lti.frameResize', height: 640 },
    { context: 'h5p', action: 'prepareResize', scrollHeight: 640, clientHeight: 640 },
  ]);
  parent.posted.length = 0;
  win.dispatchEvent(messageEvent({ context: 'h5p', action: 'resizePrepared' }, LMS, parent));
  assert.deepEqual(parent.posted.map((p) => p.data), [{ context: 'h5p', action: 'resize', scrollHeight: 640 }]);
  parent.posted.length = 0;
  // Content grows: one report; the same height again: none.
  resize(1200);
  resize(1200);
  assert.deepEqual(parent.posted.map((p) => p.data), [
    { subject: 'lti.frameResize', height: 1200 },
    { context: 'h5p', action: 'prepareResize', scrollHeight: 1200, clientHeight: 1200 },
  ]);
  parent.posted.length = 0;
  // The host's window resized (H5P sends 'resize'); a host that loaded late says 'ready'.
  win.dispatchEvent(messageEvent({ context: 'h5p', action: 'resize' }, LMS, parent));
  win.dispatchEvent(messageEvent({ context: 'h5p', action: 'ready' }, LMS, parent));
  assert.deepEqual(parent.posted.map((p) => p.data.action ?? p.data.subject), ['lti.frameResize', 'prepareResize', 'hello']);
  b.close();
  resize(300);
  assert.equal(parent.posted.length, 3, 'closed: no more reports');
});

test('incoming messages count only from parentOrigin and from window.parent', () => {
  const { win, parent } = labWindow(`embed=1&parentOrigin=${LMS}`);
  const got = [];
  createEmbedBridge({ window: win, onLearner: (id) => got.push(id) });
  const other = new PostTarget('another frame');
  win.dispatchEvent(messageEvent({ context: 'position-lab', action: 'learner', learner: 'mallory' }, 'https://evil.example', parent));
  win.dispatchEvent(messageEvent({ context: 'position-lab', action: 'learner', learner: 'mallory' }, LMS, other));
  win.dispatchEvent(messageEvent({ context: 'position-lab', action: 'learner', learner: 'mallory' }, 'null', parent));
  win.dispatchEvent(messageEvent({ context: 'h5p', action: 'hello' }, 'https://lms.example.edu.evil.example', parent));
  assert.deepEqual(got, []);
  assert.equal(parent.posted.filter((p) => p.data.action === 'prepareResize').length, 0, 'a foreign hello is not a handshake');
  win.dispatchEvent(messageEvent({ context: 'position-lab', action: 'learner', learner: 's1234567' }, LMS, parent));
  win.dispatchEvent(messageEvent({ context: 'position-lab', action: 'learner', learner: 42 }, LMS, parent));
  win.dispatchEvent(messageEvent('a string', LMS, parent));
  assert.deepEqual(got, ['s1234567']);
  assert.ok(parent.posted.every((p) => p.targetOrigin === LMS), 'never * unless asked');
});

test('a learner id the page refuses becomes a warning, not an error in the message handler', () => {
  const { win, parent } = labWindow(`embed=1&parentOrigin=${LMS}`);
  const b = createEmbedBridge({
    window: win,
    onLearner: (id) => learner.setFromHost(id),
  });
  const learner = createLearner({ href: LAB, storage: null });
  win.dispatchEvent(messageEvent({ context: 'position-lab', action: 'learner', learner: 'x'.repeat(201) }, LMS, parent));
  assert.deepEqual(b.warnings.map((w) => [w.code, w.message.en]), [['host_learner', 'A learner id has at most 200 characters (this one has 201).']]);
  assert.match(b.warnings[0].message.ja, /200 文字まで/);
  assert.equal(learner.id, null);
  win.dispatchEvent(messageEvent({ context: 'position-lab', action: 'learner', learner: 's1' }, LMS, parent));
  assert.equal(learner.id, 's1');
});

test('parentOrigin=* (asked for explicitly) posts to * and accepts any origin, still only from the parent', () => {
  const { win, parent } = labWindow('embed=1&parentOrigin=*');
  const got = [];
  createEmbedBridge({ window: win, onLearner: (id) => got.push(id) });
  assert.ok(parent.posted.length > 0 && parent.posted.every((p) => p.targetOrigin === '*'));
  win.dispatchEvent(messageEvent({ context: 'position-lab', action: 'learner', learner: 'a' }, 'null', parent));
  win.dispatchEvent(messageEvent({ context: 'position-lab', action: 'learner', learner: 'b' }, 'null', new PostTarget('x')));
  assert.deepEqual(got, ['a']);
});

test('isoDuration: seconds with up to two decimals, as H5P writes them', () => {
  assert.equal(isoDuration(0), 'PT0S');
  assert.equal(isoDuration(12500), 'PT12.5S');
  assert.equal(isoDuration(61234), 'PT61.23S');
  assert.equal(isoDuration(1005), 'PT1.01S');
  assert.equal(isoDuration(999), 'PT1S');
  assert.equal(isoDuration(3600000), 'PT3600S');
  assert.throws(() => isoDuration(-1), /≥ 0, got -1/);
  assert.throws(() => isoDuration(NaN), /finite/);
});

test('activity ids come from the lab address and the ids; file:// labs use a URN', () => {
  assert.equal(activityId(LAB, 'hand-calc'), `${LAB}?exercise=hand-calc`);
  assert.equal(activityId(LAB, 'hand-calc', 'w 1'), `${LAB}?exercise=hand-calc&question=w%201`);
  assert.equal(activityId('urn:position-lab', 'hand-calc', 'dot'), 'urn:position-lab:exercise:hand-calc:question:dot');
  assert.equal(responseText(['0.670', '0.330']), '0.670[,]0.330');
  assert.equal(responseText({ positionOffset: 1023 }), '{"positionOffset":1023}');
});

test('answered and completed statements are H5P-shaped, in the xAPI envelope, to parentOrigin', () => {
  const { win, parent } = labWindow(`embed=1&parentOrigin=${LMS}&learner=s1234567`);
  let t = 1_000_000;
  const b = createEmbedBridge({ window: win, learner: () => 's1234567', now: () => t });
  b.opened('hand-calc');
  t += 12_500;
  parent.posted.length = 0;
  const answered = b.answered({ exercise, question, score: { raw: 1, max: 2 }, success: false, answer: ['0.670', '0.331'] });
  const expected = {
    actor: { objectType: 'Agent', account: { homePage: LMS, name: 's1234567' } },
    verb: { id: 'http://adlnet.gov/expapi/verbs/answered', display: { 'en-US': 'answered', ja: '回答した' } },
    object: {
      objectType: 'Activity',
      id: `${LAB}?exercise=hand-calc&question=weights`,
      definition: { name: { ja: '重みを求める', en: 'Find the weights' }, type: 'http://adlnet.gov/expapi/activities/cmi.interaction', interactionType: 'fill-in' },
    },
    context: {
      extensions: { 'urn:position-lab:extension:content-hash': '0123456789abcdef', 'urn:position-lab:extension:seed': 3141592653 },
      contextActivities: { parent: [{ objectType: 'Activity', id: `${LAB}?exercise=hand-calc` }] },
    },
    result: { score: { raw: 1, max: 2, min: 0, scaled: 0.5 }, success: false, completion: true, duration: 'PT12.5S', response: '0.670[,]0.331' },
    timestamp: answered.timestamp,
  };
  assert.deepEqual(answered, expected);
  assert.ok(!Number.isNaN(Date.parse(answered.timestamp)));
  assert.deepEqual(parent.posted, [{ data: { context: 'h5p', action: 'xAPI', statement: expected }, targetOrigin: LMS }]);

  t += 30_000;
  const completed = b.completed({ exercise, score: { raw: 3, max: 4 }, success: false });
  assert.deepEqual(completed.verb.id, 'http://adlnet.gov/expapi/verbs/completed');
  assert.deepEqual(completed.object, { objectType: 'Activity', id: `${LAB}?exercise=hand-calc`, definition: { name: { ja: '手で計算する', en: 'By hand' }, type: 'http://adlnet.gov/expapi/activities/assessment' } });
  assert.deepEqual(completed.result, { score: { raw: 3, max: 4, min: 0, scaled: 0.75 }, success: false, completion: true, duration: 'PT42.5S' });
  assert.equal(completed.context.contextActivities, undefined);
  assert.equal(b.completed({ exercise, score: { raw: 4, max: 4 }, success: true }), null, 'once per exercise version');
  assert.equal(b.completed({ exercise, score: { raw: 4, max: 4 }, success: true, force: true }).result.score.scaled, 1);
  assert.equal(b.completed({ exercise: { ...exercise, contentHash: 'fedcba9876543210' }, score: { raw: 0, max: 4 }, success: false }).result.score.raw, 0, 'an edited exercise completes anew');
  assert.equal(parent.posted.length, 4);
  assert.ok(parent.posted.every((p) => p.targetOrigin === LMS && p.data.context === 'h5p' && p.data.action === 'xAPI'));
});

test('no learner id yet: no statement', () => {
  const { win, parent } = labWindow(`embed=1&parentOrigin=${LMS}`);
  const b = createEmbedBridge({ window: win, learner: () => null });
  parent.posted.length = 0;
  assert.equal(b.answered({ exercise, question, score: { raw: 1, max: 1 }, success: true, answer: ['1'] }), null);
  assert.deepEqual(parent.posted, []);
});

test('statements refuse scores outside [0, max] instead of clamping them', () => {
  const args = { verb: 'answered', learner: 'a', homePage: LMS, activityBase: LAB, exercise, question, success: true, answer: ['1'], durationMs: 0 };
  assert.throws(() => buildStatement({ ...args, score: { raw: 3, max: 2 } }), /score.raw must be a number from 0 to score.max \(2\), got 3/);
  assert.throws(() => buildStatement({ ...args, score: { raw: -0.5, max: 2 } }), /got -0.5/);
  assert.throws(() => buildStatement({ ...args, score: { raw: 1 } }), /score.max must be a number ≥ 0, got undefined/);
  assert.throws(() => buildStatement({ ...args, verb: 'attempted', score: { raw: 1, max: 1 } }), /verb must be answered or completed/);
  assert.throws(() => buildStatement({ ...args, question: undefined, score: { raw: 1, max: 1 } }), /needs question.id/);
  // max 0 (an exercise with no points) has scaled 0, not NaN.
  assert.equal(buildStatement({ ...args, verb: 'completed', score: { raw: 0, max: 0 } }).result.score.scaled, 0);
});

test('a lab opened from file:// names its activities by URN and its actor by the parent origin', () => {
  const win = new EventTarget();
  win.parent = new PostTarget('parent');
  win.location = { href: `file:///home/t/dist/index.html?embed=1&parentOrigin=${LMS}` };
  win.document = { documentElement: { getBoundingClientRect: () => ({ height: 499.5 }) } };
  const b = createEmbedBridge({ window: win, learner: () => 'u1' });
  assert.deepEqual(win.parent.posted[0], { data: { subject: 'lti.frameResize', height: 500 }, targetOrigin: LMS });
  const s = b.answered({ exercise, question: { id: 'dot', type: 'choice' }, score: { raw: 1, max: 1 }, success: true, answer: ['equivariance'] });
  assert.equal(s.object.id, 'urn:position-lab:exercise:hand-calc:question:dot');
  assert.equal(s.object.definition.interactionType, 'choice');
  assert.equal(s.object.definition.name.en, 'By hand', 'no prompt: the exercise title');
  assert.deepEqual(s.actor.account, { homePage: LMS, name: 'u1' });
  assert.equal(s.result.response, 'equivariance');
});

test('homePage= in the URL names where the learner account lives; a non-http value is ignored', () => {
  for (const [value, expected] of [
    ['https://lms.example.edu/users', 'https://lms.example.edu/users'],
    ['javascript:alert(1)', LMS],
    ['not a url', LMS],
  ]) {
    const { win } = labWindow(`embed=1&parentOrigin=${LMS}&homePage=${encodeURIComponent(value)}`);
    const b = createEmbedBridge({ window: win, learner: () => 'u1' });
    const s = b.completed({ exercise, score: { raw: 0, max: 1 }, success: false });
    assert.equal(s.actor.account.homePage, expected, value);
  }
});
