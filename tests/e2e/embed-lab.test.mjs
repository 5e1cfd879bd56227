// The real lab page embedded in a course page, across origins, in headless
// Chromium. Three loopback servers are three origins: B serves dist/ as
// `npm start` does (scripts/serve.mjs); A serves the course page as built,
// dist/embed-example.html, which embeds B's
// index.html?exercise=…&embed=1&parentOrigin=A&learner=… and includes B's
// embed.js; C is a third party. A student answers inside the iframes; the
// course page receives the lab's heights and H5P-shaped xAPI statements;
// nothing reaches C, and nothing from C is taken. Points are counted here by
// hand (one point a question, fields share it); the seed and content hash
// in the statements are compared with the core's, run in Node.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { artifacts, dist, nodeCore, requireDist, root, watchCsp, nextFrames, CHROMIUM_ARGS } from './helpers.mjs';
import { writeCoursePage } from './fixtures/course-page.mjs';
import { serveDirs } from './fixtures/serve-dirs.mjs';
import { serve } from '../../scripts/serve.mjs';

const VERB = 'http://adlnet.gov/expapi/verbs/';
const hostDir = mkdtempSync(join(tmpdir(), 'poslab-embed-lab-host-'));
const thirdDir = mkdtempSync(join(tmpdir(), 'poslab-embed-lab-third-'));
let A, B, C, browser, core, exercises;

before(async () => {
  requireDist();
  copyFileSync(join(root, 'tests', 'e2e', 'fixtures', 'embed-intruder.html'), join(thirdDir, 'intruder.html'));
  // A page on C that posts host-like messages to every other frame of its
  // parent (the lab windows next to it), as if it were the course page.
  writeFileSync(
    join(thirdDir, 'talker.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>talker</title></head><body><script>
      window.talk = function () {
        for (var i = 0; i < parent.frames.length; i++) {
          var w = parent.frames[i];
          if (w === window) continue;
          w.postMessage({ context: 'h5p', action: 'ready' }, '*');
          w.postMessage({ context: 'h5p', action: 'hello' }, '*');
          w.postMessage({ context: 'h5p', action: 'resizePrepared' }, '*');
          w.postMessage({ context: 'h5p', action: 'resize' }, '*');
          w.postMessage({ context: 'position-lab', action: 'learner', learner: 'mallory' }, '*');
        }
      };
      document.body.dataset.ready = 'true';
    </script></body></html>`,
  );
  [A, C] = await Promise.all([serveDirs({ '/course/': hostDir, '/third/': thirdDir }), serveDirs({ '/course/': hostDir, '/third/': thirdDir })]);
  // The lab as `npm start` serves it, letting both course sites frame it
  // (FRAME_ANCESTORS): C's postMessage filtering is what one test checks.
  const lab = await serve({ root: dist, port: 0, frameAncestors: `'self' ${A.origin} ${C.origin}` });
  B = { origin: new URL(lab.url).origin, close: () => new Promise((done) => lab.server.close(done)) };
  // The course page as built (dist/), configured by its author for the lab on B
  // (its <meta> and CSP), served from the course sites.
  writeCoursePage(hostDir, dist, { base: labBase() });
  // One that also frames other content from C (a third party it trusts less than the lab).
  writeCoursePage(hostDir, dist, { base: labBase(), frames: [C.origin], name: 'with-third-party.html' });
  // A course page of the test's own: the lab without learner=, which the host sends by postMessage.
  writeFileSync(
    join(hostDir, 'host-sends-learner.html'),
    `<!doctype html><html lang="ja"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>host</title></head><body>
      <iframe id="lab-hand-calc" data-position-lab title="Position Lab" style="width:100%;height:400px"
        src="${B.origin}/index.html?exercise=hand-calc&amp;embed=1&amp;parentOrigin=${encodeURIComponent(A.origin)}&amp;lang=ja"></iframe>
      <script src="${B.origin}/embed.js"></script>
    </body></html>`,
  );
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  core = await nodeCore();
  exercises = JSON.parse(readFileSync(join(dist, 'exercises.json'), 'utf8')).map(({ file, ...data }) => data);
});
after(async () => {
  await browser?.close();
  for (const s of [A, B, C]) await s?.close();
  rmSync(hostDir, { recursive: true, force: true });
  rmSync(thirdDir, { recursive: true, force: true });
});

const labBase = () => `${B.origin}/`;
const labPage = () => `${B.origin}/index.html`;
const exampleUrl = (host, params) => `${host.origin}/course/embed-example.html?${new URLSearchParams(params)}`;

// A course page with watchers: errors (console and page, in every frame),
// requests that leave the three origins, and every message the top window
// receives, before embed.js filters it.
async function openHost(url, { viewport = { width: 1000, height: 800 } } = {}) {
  const context = await browser.newContext({ viewport });
  await watchCsp(context);
  const page = await context.newPage();
  const errors = [];
  const requests = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await context.addInitScript(() => {
    if (window !== window.top) return;
    window.received = [];
    window.addEventListener('message', (e) => window.received.push({ origin: e.origin, data: e.data }));
  });
  await context.route('**/*', (route) => {
    const u = route.request().url();
    requests.push(u);
    if ([A, B, C].some((s) => u.startsWith(`${s.origin}/`))) return route.continue();
    errors.push(`off-origin request ${u}`);
    return route.abort();
  });
  await page.goto(url);
  return { page, context, errors, requests };
}

// The lab frame showing one exercise, once the exercise is rendered.
async function labFrame(page, exercise) {
  let frame;
  for (let i = 0; i < 400 && !frame; i++) {
    frame = page.frames().find((f) => f.url().startsWith(labPage()) && new URL(f.url()).searchParams.get('exercise') === exercise);
    if (!frame) await page.waitForTimeout(25);
  }
  assert.ok(frame, `no lab frame for ${exercise}`);
  await frame.waitForSelector(`article.exercise[data-exercise="${exercise}"][data-ready="true"]`, { timeout: 30000 });
  return frame;
}

// The lab's height as the bridge measures it (the root element's box).
const labHeight = (frame) => frame.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
const frameHeight = (page, id) => page.evaluate((id) => document.getElementById(id).style.height, id);

// Waits until the iframe's height is the lab's content height (and stays so for a moment).
async function settled(page, frame, id) {
  let last = null;
  let same = 0;
  for (let i = 0; i < 300; i++) {
    const want = `${await labHeight(frame)}px`;
    const got = await frameHeight(page, id);
    if (want === got && got === last) same += 1;
    else same = 0;
    last = got;
    if (same >= 3) return Number.parseInt(got, 10);
    await page.waitForTimeout(50);
  }
  throw new Error(`#${id}: height ${last}, the lab's is ${await labHeight(frame)}px`);
}

// One numeric question answered inside the lab; resolves to the feedback's class.
async function answer(frame, id, values) {
  const q = frame.locator(`[data-question="${id}"]`);
  for (const [i, v] of values.entries()) await q.locator(`input[data-field="${i}"]`).fill(v);
  await q.locator('.feedback').evaluate((el) => el.replaceChildren());
  await q.locator('button[type="submit"]').click();
  await frame.waitForFunction((qid) => document.querySelector(`[data-question="${qid}"] .feedback`)?.textContent.length > 0, id);
  assert.doesNotMatch(await q.locator('.feedback').innerText(), /\b(null|undefined)\b/, `${id}: the feedback shows no absent part`);
  return q.locator('.feedback').getAttribute('class');
}

async function choose(frame, id, option) {
  const q = frame.locator(`[data-question="${id}"]`);
  await q.locator(`input[value="${option}"]`).check();
  await q.locator('.feedback').evaluate((el) => el.replaceChildren());
  await q.locator('button[type="submit"]').click();
  await frame.waitForFunction((qid) => document.querySelector(`[data-question="${qid}"] .feedback`)?.textContent.length > 0, id);
  assert.doesNotMatch(await q.locator('.feedback').innerText(), /\b(null|undefined)\b/, `${id}: the feedback shows no absent part`);
  return q.locator('.feedback').getAttribute('class');
}

// What the course page's embed.js passed on: [{frame, origin, statement}].
const statements = (page) => page.evaluate(() => PositionLabEmbed.statements.map((d) => ({ frame: d.iframe.id, origin: d.origin, statement: d.statement })));
// Exactly n (not "at least n": one statement too many is a failure, said with the count).
async function waitStatements(page, n) {
  try {
    await page.waitForFunction((n) => window.PositionLabEmbed?.statements.length === n, n, { timeout: 15000 });
  } catch (e) {
    const got = await page.evaluate(() => window.PositionLabEmbed?.statements.length);
    throw new Error(`waited for ${n} statements, the course page has ${got}: ${e.message}`);
  }
  return statements(page);
}

// A message the lab frame posts to its parent now: the page receives it
// after everything the lab posted before it (one sender, one receiver, in
// order), so once it is in, a message the lab did not post will not come.
async function labFlushed(page, frame) {
  const id = `e2e-marker-${Math.random().toString(36).slice(2)}`;
  await frame.evaluate((id) => parent.postMessage({ subject: id }, '*'), id);
  await page.waitForFunction((id) => window.received.some((m) => m.data?.subject === id), id);
  return id;
}

const exerciseNamed = (id) => exercises.find((e) => e.id === id);

// The whole course page. A full-page screenshot leaves off-screen
// cross-origin frames unpainted (Chromium throttles them), so the viewport is
// made as tall as the page first.
async function screenshotWhole(page, name) {
  const { width } = page.viewportSize();
  const height = await page.evaluate(() => Math.min(16000, document.documentElement.scrollHeight));
  await page.setViewportSize({ width, height });
  await page.evaluate(() => window.scrollTo(0, 0));
  // The frames laid out and painted at the new size: two frames of the page.
  await nextFrames(page, 2);
  await page.screenshot({ path: join(artifacts, name) });
}

test('the course page embeds two real exercises: no site chrome, heights from both protocols, answered and completed statements for alice', { timeout: 120000 }, async () => {
  const { page, context, errors, requests } = await openHost(exampleUrl(A, { learner: 'alice', lang: 'ja', exercises: 'hand-calc,wall-1024' }));
  const hand = await labFrame(page, 'hand-calc');
  const wall = await labFrame(page, 'wall-1024');

  // The course page built the lab URLs, and took embed.js from the lab's origin.
  const q = new URL(hand.url()).searchParams;
  assert.deepEqual(
    ['exercise', 'embed', 'parentOrigin', 'learner'].map((k) => q.get(k)),
    ['hand-calc', '1', A.origin, 'alice'],
  );
  assert.ok(requests.includes(`${B.origin}/embed.js`), 'embed.js from the lab origin');
  assert.ok(!requests.some((u) => u.startsWith(A.origin) && u.endsWith('embed.js')), 'no embed.js from the course site');
  assert.equal(await hand.locator('h1').textContent(), '手で計算する');
  assert.equal(await wall.locator('h1').textContent(), '1024 の壁');

  // Embed mode: no header (brand, language switch, path), footer or pager in the iframe.
  for (const frame of [hand, wall]) {
    assert.equal(await frame.evaluate(() => document.documentElement.classList.contains('embed')), true);
    for (const sel of ['#site-header', '#site-footer', '.steps-nav', '.pager', '.lang-switch']) {
      assert.equal(await frame.locator(sel).first().isVisible(), false, `${sel} is hidden in the iframe`);
    }
  }

  // Heights: the iframe takes the lab's content height, without an inner scroll bar.
  const h0 = await settled(page, hand, 'lab-hand-calc');
  // The second lab is below the fold, where Chromium pauses a cross-origin
  // frame's ResizeObserver: its height must come all the same.
  assert.ok(await page.evaluate(() => document.getElementById('lab-wall-1024').getBoundingClientRect().top > innerHeight), 'the second lab is off screen');
  await settled(page, wall, 'lab-wall-1024');
  assert.ok(h0 > 480, `the hand calculation is taller than the example's 480px default: ${h0}`);
  for (const frame of [hand, wall]) {
    const { scroll, client } = await frame.evaluate(() => ({ scroll: document.documentElement.scrollHeight, client: document.documentElement.clientHeight }));
    assert.ok(scroll <= client + 1, `no inner scrolling: ${scroll} > ${client}`);
  }
  // Both protocols reached the host, from B only: Canvas's frameResize and H5P's handshake.
  const fromLab = await page.evaluate((b) => window.received.filter((m) => m.origin === b).map((m) => m.data), B.origin);
  const kinds = new Set(fromLab.map((d) => d.subject ?? `h5p:${d.action}`));
  for (const k of ['lti.frameResize', 'h5p:hello', 'h5p:prepareResize', 'h5p:resize']) assert.ok(kinds.has(k), `the host received ${k}: ${[...kinds]}`);
  const canvas = fromLab.filter((d) => d.subject === 'lti.frameResize');
  assert.ok(canvas.every((d) => Number.isInteger(d.height) && d.height > 0));
  assert.ok(canvas.some((d) => d.height === h0), `a frameResize said ${h0}`);
  assert.ok(fromLab.filter((d) => d.action === 'resize').every((d) => Number.isInteger(d.scrollHeight) && d.scrollHeight > 0));
  assert.ok(Number(await page.locator('#resizes').textContent()) >= 2);

  // x1 = (1, 0), x2 = (0, 1): x1·x1 = 1, x1·x2 = 0.
  assert.match(await answer(hand, 'dots-a', ['1', '0']), /correct/);
  let got = await waitStatements(page, 1);
  const s1 = got[0].statement;
  const ex = exerciseNamed('hand-calc');
  const variant = core.variant({ exercise: ex, learner: 'alice' });
  assert.equal(got[0].origin, B.origin);
  assert.equal(got[0].frame, 'lab-hand-calc');
  assert.equal(s1.verb.id, `${VERB}answered`);
  assert.deepEqual(s1.actor, { objectType: 'Agent', account: { homePage: A.origin, name: 'alice' } });
  assert.equal(s1.object.id, `${labPage()}?exercise=hand-calc&question=dots-a`);
  assert.deepEqual(s1.object.definition.name, { ja: '内積を求めてください。', en: 'Compute the dot products.' });
  assert.equal(s1.object.definition.interactionType, 'fill-in');
  assert.deepEqual(s1.context.contextActivities.parent, [{ objectType: 'Activity', id: `${labPage()}?exercise=hand-calc` }]);
  assert.deepEqual(s1.result.score, { raw: 1, max: 1, min: 0, scaled: 1 });
  assert.equal(s1.result.success, true);
  assert.equal(s1.result.completion, true);
  assert.equal(s1.result.response, '1[,]0');
  assert.match(s1.result.duration, /^PT\d+(\.\d{1,2})?S$/);
  // The statement names the exercise version and the learner's variant, as the core computes them.
  assert.equal(s1.context.extensions['urn:position-lab:extension:content-hash'], variant.contentHash);
  assert.equal(s1.context.extensions['urn:position-lab:extension:seed'], variant.seed);

  // The scores without √d_k: 1 is wrong (1/√2 ≈ 0.707), 0 is right: one field of two, half a point.
  assert.match(await answer(hand, 'scaled-a', ['1', '0']), /wrong/);
  got = await waitStatements(page, 2);
  assert.deepEqual(got[1].statement.result.score, { raw: 0.5, max: 1, min: 0, scaled: 0.5 });
  assert.equal(got[1].statement.result.success, false);
  assert.equal(got[1].statement.result.response, '1[,]0');
  assert.equal(got[1].statement.object.id, `${labPage()}?exercise=hand-calc&question=scaled-a`);

  // The feedback made the lab taller: the iframe follows.
  const h1 = await settled(page, hand, 'lab-hand-calc');
  assert.ok(h1 > h0, `the iframe grew with the feedback: ${h0} → ${h1}`);

  // The rest of the hand calculation, by hand: 1/√2 = 0.70711, e^{0.70711} = 2.02811,
  // softmax (2.02811/3.02811, 1/3.02811) = (0.670, 0.330); V = X, so y1 = 0.670·x1 + 0.330·x2.
  // Order B (x2, x1): the same numbers in the order the tokens stand.
  const s = 1 / Math.SQRT2;
  const w11 = Math.exp(s) / (Math.exp(s) + 1);
  const f3 = (x) => x.toFixed(3);
  assert.deepEqual([f3(s), f3(w11), f3(1 - w11)], ['0.707', '0.670', '0.330']);
  const rest = [
    ['scaled-a', [f3(s), '0']],
    ['softmax-a', [f3(w11), f3(1 - w11)]],
    ['output-a', [f3(w11), f3(1 - w11)]],
    ['dots-b', ['0', '1']],
    ['scaled-b', ['0', f3(s)]],
    ['softmax-b', [f3(1 - w11), f3(w11)]],
    ['output-b', [f3(w11), f3(1 - w11)]],
  ];
  for (const [id, values] of rest) assert.match(await answer(hand, id, values), /correct/, id);
  got = await waitStatements(page, 2 + rest.length + 1);
  const fromHand = got.filter((g) => g.frame === 'lab-hand-calc').map((g) => g.statement);
  assert.deepEqual(
    fromHand.map((st) => [st.verb.id.slice(VERB.length), st.object.id.split('?')[1], st.result.score.raw, st.result.success]),
    [
      ['answered', 'exercise=hand-calc&question=dots-a', 1, true],
      ['answered', 'exercise=hand-calc&question=scaled-a', 0.5, false],
      ...rest.map(([id]) => ['answered', `exercise=hand-calc&question=${id}`, 1, true]),
      // Eight questions of one point each, every one solved (the best attempt counts).
      ['completed', 'exercise=hand-calc', 8, true],
    ],
  );
  const done = fromHand.at(-1);
  assert.deepEqual(done.result.score, { raw: 8, max: 8, min: 0, scaled: 1 });
  assert.deepEqual(done.object.definition.name, { ja: '手で計算する', en: 'Compute it by hand' });
  assert.equal(done.object.definition.type, 'http://adlnet.gov/expapi/activities/assessment');
  assert.deepEqual(done.actor.account, { homePage: A.origin, name: 'alice' });
  assert.equal(done.result.response, undefined);

  // The 1024 wall: the slider past position 1023 (the learned table has rows 0…1023), then the reason.
  // Typed, then Tab on (leaving the field commits it, as a person does).
  await wall.fill('[data-widget="wall"] input[type="number"]', '1024');
  await page.keyboard.press('Tab');
  await wall.waitForSelector('[data-question="past-wall"].done');
  assert.match(await choose(wall, 'why-1024', 'no-row'), /correct/);
  got = await waitStatements(page, fromHand.length + 3);
  const fromWall = got.filter((g) => g.frame === 'lab-wall-1024');
  assert.ok(fromWall.every((g) => g.origin === B.origin));
  assert.deepEqual(
    fromWall.map((g) => [g.statement.verb.id.slice(VERB.length), g.statement.object.id, g.statement.result.score.raw, g.statement.result.score.max, g.statement.result.success, g.statement.result.response]),
    [
      ['answered', `${labPage()}?exercise=wall-1024&question=past-wall`, 1, 1, true, '{"positionOffset":1024}'],
      ['answered', `${labPage()}?exercise=wall-1024&question=why-1024`, 1, 1, true, 'no-row'],
      ['completed', `${labPage()}?exercise=wall-1024`, 2, 2, true, undefined],
    ],
  );
  assert.equal(fromWall[0].statement.object.definition.interactionType, 'other');
  assert.equal(fromWall[1].statement.object.definition.interactionType, 'choice');
  assert.deepEqual(fromWall[2].statement.object.definition.name, { ja: '1024 の壁', en: 'The 1024 wall' });
  await settled(page, wall, 'lab-wall-1024');

  // Nothing more came (one completed per exercise), and the example page lists them all.
  await labFlushed(page, hand);
  await labFlushed(page, wall);
  assert.equal((await statements(page)).length, 10 + 3);
  assert.equal(await page.locator('#statements tr').count(), 13);
  assert.equal(await page.locator('#count').textContent(), '13');
  await screenshotWhole(page, 'embed-lab-host.png');
  await page.locator('section[aria-labelledby="st-title"]').screenshot({ path: join(artifacts, 'embed-lab-statements.png') });
  await page.locator('#lab-wall-1024').screenshot({ path: join(artifacts, 'embed-lab-wall.png') });
  assert.deepEqual(errors, []);
  await context.close();
});

// Messages the course page received from the lab's origin, as kinds ('lti.frameResize', 'h5p:resize', …).
const kindsFrom = (page, origin) => page.evaluate((o) => window.received.filter((m) => m.origin === o).map((m) => m.data.subject ?? `h5p:${m.data.action}`), origin);

test("the course page ignores look-alike messages from a third origin C", { timeout: 90000 }, async () => {
  // The course page's CSP lets it frame C too: embed.js's own origin checks are what is tested.
  const { page, context, errors } = await openHost(`${A.origin}/course/with-third-party.html?${new URLSearchParams({ learner: 'alice', exercises: 'hand-calc,wall-1024' })}`);
  const hand = await labFrame(page, 'hand-calc');
  const wall = await labFrame(page, 'wall-1024');
  assert.match(await answer(hand, 'dots-a', ['1', '0']), /correct/);
  await waitStatements(page, 1);
  const handHeight = await settled(page, hand, 'lab-hand-calc');
  await settled(page, wall, 'lab-wall-1024');
  const intruder = `${C.origin}/third/intruder.html`;
  // 1. A frame from C that is not a lab; 2. one marked as a lab and claiming B's origin.
  await page.evaluate(([src, b]) => {
    const plain = document.createElement('iframe');
    plain.id = 'intruder';
    plain.src = src;
    const marked = document.createElement('iframe');
    marked.id = 'fake-lab';
    marked.setAttribute('data-position-lab', '');
    marked.setAttribute('data-position-lab-origin', b);
    marked.src = src;
    document.body.append(plain, marked);
  }, [intruder, B.origin]);
  // 3. The real wall lab's window, navigated to C: the same iframe, another origin.
  await wall.evaluate((url) => location.assign(url), intruder);
  const posted = async (id) => {
    for (let i = 0; i < 400; i++) {
      for (const f of page.frames()) {
        if (f.url() !== intruder) continue;
        const el = await f.frameElement().catch(() => null);
        if (el && (await el.evaluate((e) => e.id)) === id && (await f.evaluate(() => document.body?.dataset.sent === 'true').catch(() => false))) return f;
      }
      await page.waitForTimeout(25);
    }
    throw new Error(`no intruder in #${id}`);
  };
  const inWall = await posted('lab-wall-1024');
  await posted('intruder');
  await posted('fake-lab');
  await inWall.evaluate(() => window.sendAgain());
  // The messages did reach the page (so not hearing them is embed.js's doing) …
  // (4 from each of the three frames, and the 4 sent again: exactly 16) …
  await page.waitForFunction((c) => window.received.filter((m) => m.origin === c).length === 16, C.origin);
  // … and the two frames that count as labs were refused for their origin: 4 + 4 + 4 messages.
  await page.waitForFunction((c) => PositionLabEmbed.ignored.filter((x) => x.reason === 'origin' && x.origin === c).length === 12, C.origin);
  const after = await page.evaluate(() => ({
    statements: PositionLabEmbed.statements.map((d) => d.statement.object.id),
    rows: document.querySelectorAll('#statements tr').length,
    heights: Object.fromEntries([...document.querySelectorAll('iframe')].map((f) => [f.id, f.style.height])),
    ignored: PositionLabEmbed.ignored.map((x) => [x.reason, x.origin, x.expected]),
  }));
  assert.deepEqual(after.statements, [`${labPage()}?exercise=hand-calc&question=dots-a`]);
  assert.equal(after.rows, 1);
  assert.equal(after.heights['lab-hand-calc'], `${handHeight}px`);
  assert.notEqual(after.heights['lab-wall-1024'], '7px');
  assert.equal(after.heights['fake-lab'], '');
  assert.equal(after.heights.intruder, '');
  assert.ok(after.ignored.every(([reason, origin, expected]) => reason === 'origin' && origin === C.origin && expected === B.origin), JSON.stringify(after.ignored));
  // The real lab next to them still gets through.
  assert.match(await answer(hand, 'dots-b', ['0', '1']), /correct/);
  assert.equal((await waitStatements(page, 2))[1].statement.object.id, `${labPage()}?exercise=hand-calc&question=dots-b`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the lab takes messages only from its parent at parentOrigin: a frame from C can neither resize it nor set the learner', { timeout: 90000 }, async () => {
  // The course page of the test: no learner= in the lab's URL; the page sends it by postMessage.
  const { page, context, errors } = await openHost(`${A.origin}/course/host-sends-learner.html`);
  const hand = await labFrame(page, 'hand-calc');
  await settled(page, hand, 'lab-hand-calc');
  await page.evaluate((src) => {
    const f = document.createElement('iframe');
    f.id = 'talker';
    f.src = src;
    document.body.append(f);
  }, `${C.origin}/third/talker.html`);
  let talker;
  for (let i = 0; i < 200 && !talker; i++) {
    talker = page.frames().find((f) => f.url().startsWith(`${C.origin}/third/talker.html`));
    if (!talker) await page.waitForTimeout(25);
  }
  await talker.waitForFunction(() => document.body?.dataset.ready === 'true');
  // Quiet first: the lab has said what it had to say about its size.
  const quiet = async () => {
    let n = -1;
    for (let i = 0; i < 100; i++) {
      const m = (await kindsFrom(page, B.origin)).length;
      if (m === n) return m;
      n = m;
      await page.waitForTimeout(300);
    }
    throw new Error('the lab never went quiet');
  };
  const before = await quiet();
  // A listener of the test's own in the lab, added after the bridge's: once
  // it has seen C's five messages, the bridge has handled each of them.
  await hand.evaluate((c) => {
    window.__fromC = 0;
    addEventListener('message', (e) => {
      if (e.origin === c) window.__fromC += 1;
    });
  }, C.origin);
  // C says ready, hello, resizePrepared, resize and a learner id to the lab window.
  await talker.evaluate(() => window.talk());
  await hand.waitForFunction(() => window.__fromC === 5);
  // Anything the lab posted while handling them reaches the page before this marker.
  const marker = await labFlushed(page, hand);
  assert.deepEqual((await kindsFrom(page, B.origin)).slice(before), [marker], 'the lab answered nothing to C');
  // No learner id was taken from C: an answer is checked but reported to nobody.
  assert.match(await answer(hand, 'dots-a', ['1', '0']), /correct/);
  await labFlushed(page, hand);
  assert.equal(await page.evaluate(() => PositionLabEmbed.statements.length), 0);
  // The same messages from the parent at A are answered: resizePrepared → resize.
  const before2 = await quiet();
  await page.evaluate((b) => document.getElementById('lab-hand-calc').contentWindow.postMessage({ context: 'h5p', action: 'resizePrepared' }, b), B.origin);
  // A new message from the lab's origin (every origin's count was already above before2).
  await page.waitForFunction(([b, n]) => window.received.filter((m) => m.origin === b).length > n, [B.origin, before2]);
  assert.deepEqual((await kindsFrom(page, B.origin)).slice(before2), ['h5p:resize']);
  // And the learner id from A is taken: the lab re-renders for bob, whose answers are reported.
  await hand.evaluate(() => document.querySelector('article.exercise').setAttribute('data-old', ''));
  await page.evaluate(() => PositionLabEmbed.setLearner(document.getElementById('lab-hand-calc'), 'bob'));
  await hand.waitForSelector('article.exercise[data-ready="true"]:not([data-old])');
  assert.match(await answer(hand, 'dots-a', ['1', '0']), /correct/);
  const [st] = await waitStatements(page, 1);
  assert.deepEqual(st.statement.actor, { objectType: 'Agent', account: { homePage: A.origin, name: 'bob' } });
  assert.equal(st.statement.context.extensions['urn:position-lab:extension:seed'], core.variant({ exercise: exerciseNamed('hand-calc'), learner: 'bob' }).seed);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a lab told parentOrigin=A but framed by a course page on C sends nothing to C', { timeout: 90000 }, async () => {
  const { page, context, errors } = await openHost('about:blank');
  // Chromium logs a refused postMessage in the sender's frame (not through the console API).
  const log = [];
  const cdp = await context.newCDPSession(page);
  cdp.on('Log.entryAdded', ({ entry }) => log.push(entry.text));
  await cdp.send('Log.enable');
  await page.goto(exampleUrl(C, { learner: 'alice', exercises: 'hand-calc', parentOrigin: A.origin }));
  const hand = await labFrame(page, 'hand-calc');
  assert.equal(new URL(hand.url()).searchParams.get('parentOrigin'), A.origin);
  assert.match(await answer(hand, 'dots-a', ['1', '0']), /correct/);
  // C's embed.js said ready and now sends a learner id; the lab answers neither.
  await page.evaluate(() => PositionLabEmbed.setLearner(document.getElementById('lab-hand-calc'), 'mallory'));
  assert.match(await answer(hand, 'dots-b', ['0', '1']), /correct/);
  // The lab posted (to A) before the feedback showed; the test's marker, to
  // any origin, comes after all of it: only the marker may have reached C.
  const marker = await labFlushed(page, hand);
  assert.deepEqual(await kindsFrom(page, B.origin), [marker], 'no message from the lab reached C');
  assert.equal(await page.evaluate(() => PositionLabEmbed.statements.length), 0);
  assert.equal(await page.locator('#count').textContent(), '0');
  assert.equal(await frameHeight(page, 'lab-hand-calc'), '');
  // The lab did post, to A: Chromium refused to deliver each message to C and said so
  // (the log comes over the CDP session: wait for it, not for a time).
  const refused = () => log.filter((e) => e.includes("Failed to execute 'postMessage'") && e.includes(A.origin) && e.includes(C.origin));
  for (let i = 0; i < 600 && refused().length < 3; i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(refused().length >= 3, `the lab's posts to A were refused at C: ${log.join(' | ')}`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('hide= trims named controls inside the embedded lab, and stays as the student works', { timeout: 90000 }, async () => {
  {
    const { page, context, errors } = await openHost(exampleUrl(A, { learner: 'alice', exercises: 'reorder' }));
    const lab = await labFrame(page, 'reorder');
    assert.deepEqual([await lab.locator('#ctl-sentence').count(), await lab.locator('#ctl-seed').count()], [1, 1], 'both controls without hide=');
    assert.deepEqual(errors, []);
    await context.close();
  }
  const { page, context, errors } = await openHost(exampleUrl(A, { learner: 'alice', exercises: 'reorder', hide: 'seed' }));
  const lab = await labFrame(page, 'reorder');
  assert.equal(new URL(lab.url()).searchParams.get('hide'), 'seed');
  assert.equal(await lab.locator('#ctl-seed').count(), 0);
  assert.equal(await lab.locator('#ctl-sentence').count(), 1);
  // A new sentence rewrites the lab's URL and re-renders: the seed control stays hidden.
  await lab.fill('#ctl-sentence', '猫が魚を食べた');
  await lab.locator('.sentence-control button[type="submit"]').click();
  await lab.waitForFunction(() => location.hash.includes('s='));
  assert.equal(new URLSearchParams(new URL(lab.url()).hash.slice(1)).get('hide'), 'seed');
  assert.equal(await lab.locator('#ctl-seed').count(), 0);
  assert.equal(await lab.locator('#site-header').isVisible(), false);
  // The widgets' redraw for the new sentence (started in the submit's event) has landed.
  await lab.waitForSelector('#main > [data-ready="true"]:not([data-busy])');
  await settled(page, lab, 'lab-reorder');
  assert.deepEqual(errors, []);
  await context.close();
});
