// What data-ready waits for (web/js/ready.js): every tracked core call and
// promise, and the code that runs on each reply (its then/await chain), also
// calls started from that code; a failed call counts as landed; data-busy
// (onBusy) follows the calls in flight.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPending } from '../../web/js/ready.js';

// A core whose calls are answered when the test says so (as the Worker's
// replies arrive, in any order).
function fakeCore() {
  const waiting = [];
  return {
    waiting,
    mode: 'worker',
    version: 'x',
    call: (method) => new Promise((resolve, reject) => waiting.push({ method, resolve, reject })),
    batch: () => new Promise((resolve, reject) => waiting.push({ method: 'batch', resolve, reject })),
  };
}
const turn = () => new Promise((r) => setTimeout(r, 0));

test('idle waits for the reply and for everything its continuation draws', async () => {
  const raw = fakeCore();
  const pending = createPending();
  const core = pending.core(raw);
  assert.equal(core.version, 'x', 'the rest of the core is passed through');
  const drawn = [];
  let idle = false;
  // A widget: ask, then draw after two more awaits (as prepare() and redraw do).
  (async () => {
    const v = await core.call('forward');
    await null;
    await Promise.resolve();
    drawn.push([v, idle ? 'after idle' : 'before idle']);
  })();
  pending.idle().then(() => (idle = true));
  await turn();
  await turn();
  assert.equal(idle, false, 'not idle while the reply is out');
  assert.equal(pending.count, 1);
  raw.waiting[0].resolve('A');
  await turn();
  await turn();
  assert.deepEqual(drawn, [['A', 'before idle']], 'drawn before the page says idle');
  assert.equal(idle, true);
  assert.equal(pending.count, 0);
});

test('a call started by a reply (the second view, the attempts line) is waited for too', async () => {
  const raw = fakeCore();
  const pending = createPending();
  const core = pending.core(raw);
  const lines = [];
  core.call('tokenize').then(() => core.call('attemptStatus').then((s) => lines.push(s)));
  let idle = false;
  pending.idle().then(() => (idle = true));
  raw.waiting[0].resolve(['a']);
  await turn();
  await turn();
  assert.equal(raw.waiting.length, 2, 'the second call was made');
  assert.equal(idle, false, 'not idle: the second reply is out');
  raw.waiting[1].resolve('2 attempts left');
  await turn();
  await turn();
  assert.deepEqual(lines, ['2 attempts left']);
  assert.equal(idle, true);
});

test('a failed call, a batch and a tracked promise count as landed once settled', async () => {
  const raw = fakeCore();
  const pending = createPending();
  const core = pending.core(raw);
  const failed = core.call('forward').catch((e) => e.message);
  core.batch([]);
  let release;
  pending.track(new Promise((r) => (release = r)));
  assert.equal(pending.count, 3);
  let idle = false;
  pending.idle().then(() => (idle = true));
  raw.waiting[0].reject(new Error('too long'));
  assert.equal(await failed, 'too long', 'the caller still sees the error');
  raw.waiting[1].resolve([]);
  await turn();
  assert.equal(idle, false, 'the editor is still loading');
  release();
  await turn();
  await turn();
  assert.equal(idle, true);
});

test('idle with nothing pending resolves; onBusy follows the calls in flight', async () => {
  const raw = fakeCore();
  const seen = [];
  const pending = createPending({ onBusy: (on) => seen.push(on) });
  await pending.idle();
  const core = pending.core(raw);
  core.call('a');
  core.call('b');
  assert.deepEqual(seen, [true], 'busy once, not once per call');
  raw.waiting[0].resolve();
  await turn();
  assert.deepEqual(seen, [true]);
  raw.waiting[1].resolve();
  await turn();
  assert.deepEqual(seen, [true, false]);
});
