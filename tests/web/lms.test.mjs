// The LMS adapter's pure parts (web/js/lms/) under Node: API discovery over
// fake windows (frames that throw, as cross-origin ones do), the score model,
// suspend_data compaction within its limits, durations, cmi5 launch
// parameters, and the package manifests. Expected values are worked out by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findApi, findScormApi } from '../../web/js/lms/scorm-api.js';
import { createProgress, percent, buildSuspendData, parseSuspendData, unpackAttempts } from '../../web/js/lms/progress.js';
import { scormDuration, interactionResponse, interactionId } from '../../web/js/lms/scorm.js';
import { xapiDuration, launchParameters, actorLearnerId } from '../../web/js/lms/cmi5.js';
import { lmsParams } from '../../web/js/lms/reporter.js';
import { parseArgs, units, scorm12Manifest, scorm2004Manifest, cmi5Xml, cmi5Page } from '../../scripts/package.mjs';

// A window whose every property access throws (a cross-origin frame).
const hostile = () =>
  new Proxy(
    {},
    {
      get() {
        throw new Error('SecurityError: cross-origin');
      },
    },
  );
const frame = (props = {}) => {
  const w = { ...props };
  w.parent = props.parent ?? w;
  return w;
};

test('findApi: walks parent frames, skipping ones that throw; then the opener', () => {
  const api = { LMSInitialize() {} };
  const top = frame({ API: api });
  const middle = frame({ parent: top });
  const lab = frame({ parent: middle });
  assert.equal(findApi(lab, 'API'), api);
  assert.equal(findApi(lab, 'API_1484_11'), null);
  // A cross-origin frame in the chain: its parent cannot be read, so the walk stops there without an error.
  const blocked = frame({ parent: hostile() });
  assert.equal(findApi(blocked, 'API'), null);
  // A pop-up: the LMS window is the opener of the top window.
  const lms = frame({ API_1484_11: { Initialize() {} } });
  const popupTop = frame({ opener: lms });
  const popupFrame = frame({ parent: popupTop });
  assert.equal(findScormApi(popupFrame, 'scorm2004').api, lms.API_1484_11);
  assert.equal(findScormApi(popupFrame, 'scorm12'), null);
  // An opener that throws, and no API anywhere: null, no error.
  assert.equal(findApi(frame({ opener: hostile() }), 'API'), null);
  assert.throws(() => findScormApi(lab, 'scorm3'), /scorm12 or scorm2004/);
});

test('progress: 0–100 raw, scaled and success from the points, by hand', () => {
  const p = createProgress({ scope: [{ id: 'a', max: 8, questions: ['q1', 'q2'] }, { id: 'b', max: 2, questions: ['r'] }], mastery: 0.8 });
  assert.equal(p.started, false);
  assert.equal(p.success, 'unknown');
  assert.equal(p.apply('z', { points: 1, questions: [] }), false);
  p.apply('a', { points: 3, questions: [{ id: 'q1', attempts: 1, solved: true }, { id: 'q2', attempts: 0, solved: false }] });
  // 3 of 10 = 30.
  assert.equal(p.raw, 30);
  assert.equal(p.scaled, 0.3);
  assert.equal(p.complete, false);
  assert.equal(p.success, 'unknown');
  p.apply('a', { points: 7, questions: [{ id: 'q1', attempts: 1, solved: true }, { id: 'q2', attempts: 2, solved: false }] });
  p.apply('b', { points: 0, questions: [{ id: 'r', attempts: 1, solved: false }] });
  // 7 of 10 < 0.8, every question answered: failed.
  assert.equal(p.raw, 70);
  assert.equal(p.success, 'failed');
  p.apply('b', { points: 1, questions: [{ id: 'r', attempts: 2, solved: false }] });
  assert.equal(p.success, 'passed'); // 8 of 10
  // 1 of 3 = 33.33 (two decimals).
  assert.equal(percent(1, 3), 33.33);
  assert.throws(() => percent(4, 3), /from 0 to max/);
  const q = createProgress({ scope: [{ id: 'a', max: 8, questions: ['q1', 'q2'] }, { id: 'b', max: 2, questions: ['r'] }], mastery: 0.8 });
  q.restore(p.summary());
  assert.equal(q.raw, 80);
  assert.throws(() => createProgress({ scope: [], mastery: 0.8 }), /at least one/);
});

test('suspend_data: compacted until it fits, never over the limit, attempts round-trip', () => {
  const t0 = Date.parse('2026-12-01T08:00:00Z');
  const attempt = (q, i, lab = {}) => ({ question: q, answer: ['1.234', '5.678'], lab, lang: i % 2 ? 'en' : 'ja', time: new Date(t0 + i * 1000).toISOString() });
  const big = { pe: 'sinusoidal', d: 16, seed: 3, sentence: 'x'.repeat(200) };
  const records = [
    { id: 'old', contentHash: 'h1', updatedAt: '2026-12-01T08:00:00Z', attempts: Array.from({ length: 10 }, (_, i) => attempt('n1', i, big)) },
    { id: 'new', contentHash: 'h2', updatedAt: '2026-12-01T09:00:00Z', attempts: [attempt('task1', 1, { pe: 'rope' }), attempt('n2', 2)] },
  ];
  const args = { summary: { old: [1, ['n1'], []] }, interactions: ['old/n1'], records, taskQuestions: new Set(['task1']) };
  const roomy = buildSuspendData({ ...args, limit: 64000 });
  assert.deepEqual(roomy.omitted, []);
  const parsed = parseSuspendData(roomy.text);
  const back = unpackAttempts(parsed.records.old.a, parsed.base);
  assert.deepEqual(back[3], { question: 'n1', answer: ['1.234', '5.678'], lab: big, lang: 'en', time: new Date(t0 + 3000).toISOString() });
  // Without room for the numeric attempts' lab settings: dropped from them, kept for the task.
  const noLab = buildSuspendData({ ...args, limit: roomy.text.length - 1 });
  assert.ok(noLab.text.length <= roomy.text.length - 1);
  const p2 = parseSuspendData(noLab.text);
  assert.deepEqual(unpackAttempts(p2.records.old.a, p2.base)[0].lab, {});
  assert.deepEqual(unpackAttempts(p2.records.new.a, p2.base)[0].lab, { pe: 'rope' });
  // Tighter: the older exercise's attempts are left out whole, the newer kept.
  const tight = buildSuspendData({ ...args, limit: 300 });
  assert.ok(tight.text.length <= 300, `${tight.text.length} ≤ 300`);
  assert.deepEqual(tight.omitted, ['old']);
  assert.ok(parseSuspendData(tight.text).records.new);
  assert.equal(buildSuspendData({ ...args, limit: 20 }), null);
  assert.equal(parseSuspendData('not json'), null);
  assert.equal(parseSuspendData(''), null);
});

test('durations and interaction formats', () => {
  // 1 h 2 min 3.45 s.
  assert.equal(scormDuration(3723450, 'scorm12'), '0001:02:03.45');
  assert.equal(scormDuration(3723450, 'scorm2004'), 'PT1H2M3.45S');
  assert.equal(scormDuration(0, 'scorm2004'), 'PT0H0M0S');
  assert.equal(xapiDuration(3723450), 'PT1H2M3.45S');
  assert.equal(xapiDuration(12500), 'PT12.5S');
  assert.deepEqual(interactionResponse('numeric', ['1', '0'], 'scorm12'), { type: 'fill-in', response: '1,0' });
  assert.deepEqual(interactionResponse('choice', ['a', 'b'], 'scorm2004'), { type: 'choice', response: 'a[,]b' });
  assert.deepEqual(interactionResponse('task', { pe: 'rope' }, 'scorm2004'), { type: 'other', response: '{"pe":"rope"}' });
  // Too long for 1.2's 255 characters: left out, not cut.
  assert.equal(interactionResponse('task', { s: 'x'.repeat(300) }, 'scorm12').response, null);
  assert.equal(interactionId('hand-calc', 'dots-a', 'scorm12'), 'hand-calc.dots-a');
});

test('cmi5 launch parameters and the lms= switch', () => {
  const actor = { objectType: 'Agent', account: { homePage: 'http://lms.example', name: 'u1' } };
  const q = new URLSearchParams({ endpoint: 'http://lrs.example/xapi', fetch: 'http://lms.example/f', actor: JSON.stringify(actor), registration: 'r', activityId: 'a' });
  const p = launchParameters(`http://x/index.html?lms=cmi5&${q}`);
  assert.equal(p.endpoint, 'http://lrs.example/xapi/');
  assert.deepEqual(p.actor, actor);
  assert.equal(actorLearnerId(p.actor), 'u1');
  assert.equal(actorLearnerId({ mbox: 'mailto:a@b.c' }), 'a@b.c');
  q.delete('fetch');
  assert.equal(launchParameters(`http://x/?${q}`), null);
  assert.deepEqual(lmsParams('http://x/index.html?lms=scorm2004&exercise=rope'), { kind: 'scorm2004', exercise: 'rope' });
  assert.equal(lmsParams('http://x/index.html').kind, null);
  assert.equal(lmsParams('http://x/index.html?lms=aicc').kind, null);
});

test('package: options, one unit per exercise or the whole path, manifests', () => {
  assert.throws(() => parseArgs(['--sco', 'some']), /per-exercise or whole/);
  assert.throws(() => parseArgs(['--mastery', '80']), /from 0 to 1/);
  assert.throws(() => parseArgs(['--zip']), /unknown option/);
  const exercises = [
    { id: 'a', title: { ja: 'あ', en: 'A' }, summary: { ja: 's', en: 's' } },
    { id: 'b&c', title: { ja: 'い', en: 'B' } },
  ];
  const per = units(exercises, 'per-exercise');
  assert.equal(per.length, 2);
  const whole = units(exercises, 'whole');
  assert.equal(whole.length, 1);
  const files = ['index.html', 'app.js'];
  const m12 = scorm12Manifest({ units: per, files, mastery: 0.8 });
  assert.equal(m12.split('adlcp:scormtype="sco"').length - 1, 2);
  assert.match(m12, /parameters="\?lms=scorm12&amp;exercise=b%26c"/);
  assert.match(m12, /<adlcp:masteryscore>80<\/adlcp:masteryscore>/);
  assert.match(m12, /<schemaversion>1\.2<\/schemaversion>/);
  assert.match(m12, /<title>あ \/ A<\/title>/);
  const m04 = scorm2004Manifest({ units: whole, files, mastery: 0.8 });
  assert.equal(m04.split('adlcp:scormType="sco"').length - 1, 1);
  assert.match(m04, /parameters="\?lms=scorm2004"/);
  assert.match(m04, /<imsss:minNormalizedMeasure>0\.8<\/imsss:minNormalizedMeasure>/);
  const c = cmi5Xml({ units: per, mastery: 0.8 });
  assert.equal(c.split('<au ').length - 1, 2);
  assert.match(c, /<url>index\.html\?lms=cmi5&amp;exercise=b%26c<\/url>/);
  assert.match(cmi5Page(Buffer.from(`connect-src 'self' data:;`)).toString(), /connect-src 'self' data: https: http:;/);
  assert.throws(() => cmi5Page(Buffer.from('<html>')), /connect-src/);
});

// A fake LRS whose answers wait until released, as on a slow network: the
// page is left (finish with keepalive) while earlier requests still queue.
test('cmi5: leaving the page starts every queued request at once with keepalive (the sent-state PUT included)', async () => {
  const { connectCmi5 } = await import('../../web/js/lms/cmi5.js');
  const actor = { objectType: 'Agent', mbox: 'mailto:a@b.c' };
  const q = new URLSearchParams({ endpoint: 'http://lrs.example/xapi', fetch: 'http://lms.example/f', actor: JSON.stringify(actor), registration: 'r1', activityId: 'urn:a' });
  const started = [];
  let hold = true;
  const releases = [];
  const ok = (body) => ({ ok: true, status: 200, json: async () => body });
  const fetchFn = async (url, init = {}) => {
    if (url === 'http://lms.example/f') return ok({ 'auth-token': 't' });
    if (url.includes('LMS.LaunchData')) return ok({ masteryScore: 0.5, launchMode: 'Normal', contextTemplate: {} });
    if (init.method === undefined) return { ok: false, status: 404, json: async () => ({}) };
    started.push({ what: init.method === 'PUT' ? 'PUT' : JSON.parse(init.body).verb.display['en-US'], keepalive: !!init.keepalive });
    if (hold) await new Promise((r) => releases.push(r));
    return ok({});
  };
  const c = await connectCmi5({ href: `http://x/index.html?lms=cmi5&${q}`, fetch: fetchFn });
  c.initialize();
  c.report({ scaled: 1, points: 1, max: 1, complete: true, success: 'passed' });
  await new Promise((r) => setTimeout(r, 10));
  // Only the first request has started; passed, completed and the PUT wait behind it.
  assert.deepEqual(started.map((s) => s.what), ['initialized']);
  c.finish({ keepalive: true });
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(started.map((s) => s.what).sort(), ['PUT', 'completed', 'initialized', 'passed', 'terminated']);
  assert.ok(started.slice(1).every((s) => s.keepalive), 'everything started at pagehide carries keepalive');
  hold = false;
  releases.forEach((r) => r());
  await c.flush();
});
