// web/embed.js (the course page's kit) with a fake document: it sizes only
// its Position Lab iframes, only from each iframe's own origin, answers H5P's
// handshake, and re-dispatches statements as DOM events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { PostTarget, messageEvent } from './fakes.mjs';

const require = createRequire(import.meta.url);
const { start } = require('../../web/embed.js');

const LAB_ORIGIN = 'https://lab.example.org';

class FakeFrame extends EventTarget {
  constructor(src, attrs = {}) {
    super();
    this.attrs = { src, 'data-position-lab': '', ...attrs };
    this.style = {};
    this.contentWindow = new PostTarget(src);
  }
  getAttribute(name) {
    return name in this.attrs ? this.attrs[name] : null;
  }
  matches(selector) {
    return selector === 'iframe[data-position-lab]' && 'data-position-lab' in this.attrs;
  }
}

function host(frames) {
  const win = new EventTarget();
  const doc = new EventTarget();
  doc.baseURI = 'https://course.example.edu/week3/index.html';
  doc.querySelectorAll = (selector) => {
    assert.equal(selector, 'iframe[data-position-lab]');
    return frames.filter((f) => f.matches(selector));
  };
  win.document = doc;
  win.URL = URL;
  win.CustomEvent = CustomEvent;
  const events = [];
  for (const type of ['positionlab:statement', 'positionlab:resize']) win.addEventListener(type, (e) => events.push([type, e.detail]));
  return { win, doc, events, api: start({ window: win }) };
}

const statement = { verb: { id: 'http://adlnet.gov/expapi/verbs/answered' }, object: { id: 'x' }, result: { score: { raw: 1, max: 1, min: 0, scaled: 1 } } };

test('on start every lab frame is told the host is ready, at its own origin', () => {
  const a = new FakeFrame(`${LAB_ORIGIN}/position-lab/index.html?exercise=hand-calc&embed=1`);
  const b = new FakeFrame('../lab/index.html?exercise=rope&embed=1'); // relative: the course's origin
  const other = new FakeFrame('https://video.example/player', {});
  delete other.attrs['data-position-lab'];
  host([a, b, other]);
  assert.deepEqual(a.contentWindow.posted, [{ data: { context: 'h5p', action: 'ready' }, targetOrigin: LAB_ORIGIN }]);
  assert.deepEqual(b.contentWindow.posted, [{ data: { context: 'h5p', action: 'ready' }, targetOrigin: 'https://course.example.edu' }]);
  assert.deepEqual(other.contentWindow.posted, []);
});

test('heights in H5P and Canvas form size the frame that sent them, with events', () => {
  const a = new FakeFrame(`${LAB_ORIGIN}/position-lab/index.html?embed=1`);
  const { win, events } = host([a]);
  const onFrame = [];
  a.addEventListener('positionlab:resize', (e) => onFrame.push(e.detail.height));
  win.dispatchEvent(messageEvent({ context: 'h5p', action: 'resize', scrollHeight: 733.2 }, LAB_ORIGIN, a.contentWindow));
  assert.equal(a.style.height, '734px');
  win.dispatchEvent(messageEvent({ subject: 'lti.frameResize', height: 512 }, LAB_ORIGIN, a.contentWindow));
  assert.equal(a.style.height, '512px');
  win.dispatchEvent(messageEvent({ subject: 'lti.frameResize', height: '600px' }, LAB_ORIGIN, a.contentWindow));
  assert.equal(a.style.height, '600px');
  assert.deepEqual(onFrame, [734, 512, 600]);
  assert.deepEqual(events.map(([type, d]) => [type, d.height, d.origin, d.iframe === a]), [
    ['positionlab:resize', 734, LAB_ORIGIN, true],
    ['positionlab:resize', 512, LAB_ORIGIN, true],
    ['positionlab:resize', 600, LAB_ORIGIN, true],
  ]);
  for (const bad of [-1, NaN, 1e9, 'tall', null]) win.dispatchEvent(messageEvent({ subject: 'lti.frameResize', height: bad }, LAB_ORIGIN, a.contentWindow));
  assert.equal(a.style.height, '600px', 'not a height: ignored, not clamped');
});

test('H5P handshake: hello is answered with hello, prepareResize with resizePrepared', () => {
  const a = new FakeFrame(`${LAB_ORIGIN}/position-lab/index.html?embed=1`);
  const { win } = host([a]);
  a.contentWindow.posted.length = 0;
  win.dispatchEvent(messageEvent({ context: 'h5p', action: 'hello' }, LAB_ORIGIN, a.contentWindow));
  win.dispatchEvent(messageEvent({ context: 'h5p', action: 'prepareResize', scrollHeight: 900, clientHeight: 900 }, LAB_ORIGIN, a.contentWindow));
  assert.deepEqual(a.contentWindow.posted, [
    { data: { context: 'h5p', action: 'hello' }, targetOrigin: LAB_ORIGIN },
    { data: { context: 'h5p', action: 'resizePrepared' }, targetOrigin: LAB_ORIGIN },
  ]);
  // The host window resizing asks every lab to re-measure.
  win.dispatchEvent(new Event('resize'));
  assert.deepEqual(a.contentWindow.posted.at(-1), { data: { context: 'h5p', action: 'resize' }, targetOrigin: LAB_ORIGIN });
});

test('statements are re-dispatched on the frame and the window', () => {
  const a = new FakeFrame(`${LAB_ORIGIN}/position-lab/index.html?exercise=hand-calc&embed=1`);
  const b = new FakeFrame(`${LAB_ORIGIN}/position-lab/index.html?exercise=rope&embed=1`);
  const { win, events, api } = host([a, b]);
  const onB = [];
  b.addEventListener('positionlab:statement', (e) => onB.push(e.detail.statement));
  win.dispatchEvent(messageEvent({ context: 'h5p', action: 'xAPI', statement }, LAB_ORIGIN, b.contentWindow));
  assert.deepEqual(onB, [statement]);
  assert.equal(events.length, 1);
  assert.equal(events[0][0], 'positionlab:statement');
  assert.deepEqual(events[0][1].statement, statement);
  assert.equal(events[0][1].iframe, b);
  assert.equal(events[0][1].origin, LAB_ORIGIN);
  assert.equal(api.statements.length, 1);
  win.dispatchEvent(messageEvent({ context: 'h5p', action: 'xAPI', statement: 'not an object' }, LAB_ORIGIN, b.contentWindow));
  assert.equal(events.length, 1);
});

test('messages from another origin, or from a window that is not a lab frame, are ignored', () => {
  const a = new FakeFrame(`${LAB_ORIGIN}/position-lab/index.html?embed=1`);
  const { win, events, api } = host([a]);
  a.contentWindow.posted.length = 0;
  // The frame navigated to another origin (same window, other origin).
  for (const origin of ['https://evil.example', 'null', 'https://lab.example.org:8443', 'http://lab.example.org']) {
    win.dispatchEvent(messageEvent({ context: 'h5p', action: 'xAPI', statement }, origin, a.contentWindow));
    win.dispatchEvent(messageEvent({ subject: 'lti.frameResize', height: 5 }, origin, a.contentWindow));
    win.dispatchEvent(messageEvent({ context: 'h5p', action: 'hello' }, origin, a.contentWindow));
  }
  // The right origin, but from some other window.
  const stranger = new PostTarget('stranger');
  win.dispatchEvent(messageEvent({ context: 'h5p', action: 'xAPI', statement }, LAB_ORIGIN, stranger));
  win.dispatchEvent(messageEvent({ context: 'h5p', action: 'resize', scrollHeight: 5 }, LAB_ORIGIN, stranger));
  assert.deepEqual(events, []);
  assert.equal(a.style.height, undefined);
  assert.deepEqual(a.contentWindow.posted, [], 'no handshake with a foreign origin');
  assert.deepEqual(stranger.posted, []);
  assert.equal(api.ignored.filter((x) => x.reason === 'origin').length, 12);
  assert.ok(api.ignored.every((x) => x.reason !== 'origin' || x.expected === LAB_ORIGIN));
});

test('data-position-lab-origin overrides the origin taken from src', () => {
  const a = new FakeFrame('/redirect?to=lab', { 'data-position-lab-origin': LAB_ORIGIN });
  const { win, events } = host([a]);
  win.dispatchEvent(messageEvent({ context: 'h5p', action: 'xAPI', statement }, 'https://course.example.edu', a.contentWindow));
  assert.equal(events.length, 0);
  win.dispatchEvent(messageEvent({ context: 'h5p', action: 'xAPI', statement }, LAB_ORIGIN, a.contentWindow));
  assert.equal(events.length, 1);
});

test('a lab opened from file:// (origin "null") is accepted only from its frame, answered with *', () => {
  const a = new FakeFrame('file:///home/t/dist/index.html?exercise=rope&embed=1&parentOrigin=*');
  const { win, events, api } = host([a]);
  assert.deepEqual(a.contentWindow.posted, [{ data: { context: 'h5p', action: 'ready' }, targetOrigin: '*' }]);
  win.dispatchEvent(messageEvent({ context: 'h5p', action: 'hello' }, 'null', a.contentWindow));
  assert.deepEqual(a.contentWindow.posted.at(-1), { data: { context: 'h5p', action: 'hello' }, targetOrigin: '*' });
  win.dispatchEvent(messageEvent({ context: 'h5p', action: 'xAPI', statement }, 'null', new PostTarget('sandboxed')));
  assert.equal(events.length, 0);
  win.dispatchEvent(messageEvent({ context: 'h5p', action: 'xAPI', statement }, 'null', a.contentWindow));
  assert.equal(events.length, 1);
  // The learner id is data: never sent to '*'.
  assert.throws(() => api.setLearner(a, 's1'), /no addressable origin/);
});

test('Chromium\'s spelling of a file: origin ("file://") counts as the same opaque origin', () => {
  const a = new FakeFrame('file:///home/t/dist/index.html?embed=1&parentOrigin=*');
  const win = new EventTarget();
  const doc = new EventTarget();
  doc.baseURI = 'file:///home/t/course.html';
  doc.querySelectorAll = () => [a];
  win.document = doc;
  win.CustomEvent = CustomEvent;
  // A URL implementation that, like Chromium's, gives file: URLs the origin "file://".
  win.URL = class extends URL {
    get origin() {
      return this.protocol === 'file:' ? 'file://' : super.origin;
    }
  };
  const api = start({ window: win });
  assert.deepEqual(a.contentWindow.posted, [{ data: { context: 'h5p', action: 'ready' }, targetOrigin: '*' }]);
  win.dispatchEvent(messageEvent({ context: 'h5p', action: 'xAPI', statement }, 'file://', a.contentWindow));
  win.dispatchEvent(messageEvent({ context: 'h5p', action: 'xAPI', statement }, 'null', a.contentWindow));
  win.dispatchEvent(messageEvent({ context: 'h5p', action: 'xAPI', statement }, 'https://evil.example', a.contentWindow));
  assert.equal(api.statements.length, 2);
  assert.throws(() => api.setLearner(a, 's1'), /no addressable origin/);
});

test('setLearner sends the id to the frame at its origin; frames that load later get ready', () => {
  const a = new FakeFrame(`${LAB_ORIGIN}/position-lab/index.html?embed=1`);
  const frames = [a];
  const { doc, api } = host(frames);
  api.setLearner(a, 's1234567');
  assert.deepEqual(a.contentWindow.posted.at(-1), { data: { context: 'position-lab', action: 'learner', learner: 's1234567' }, targetOrigin: LAB_ORIGIN });
  const late = new FakeFrame(`${LAB_ORIGIN}/position-lab/index.html?exercise=alibi&embed=1`);
  frames.push(late);
  late.contentWindow.posted.length = 0;
  // A load event reaches the document's capture listener with the frame as target.
  const load = new Event('load');
  Object.defineProperty(load, 'target', { value: late });
  doc.dispatchEvent(load);
  assert.deepEqual(late.contentWindow.posted, [{ data: { context: 'h5p', action: 'ready' }, targetOrigin: LAB_ORIGIN }]);
  api.stop();
});
