// Embedding across origins in headless Chromium. Three loopback servers on
// different ports are three origins: the course page (web/embed-example.html
// with web/embed.js) on A embeds the lab from B; C is a third party. The lab
// side is tests/e2e/fixtures/embed-lab.html, which runs the real bridge
// (web/js/grading/embed-bridge.js) until the lab page's runner sends
// statements itself; its script is bundled here (IIFE, as the real page
// is), so it runs from file:// too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { serveDirs, CHROMIUM_ARGS } from './fixtures/serve-dirs.mjs';
import { writeCoursePage } from './fixtures/course-page.mjs';
import { watchCsp } from './helpers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const fixtures = join(root, 'tests', 'e2e', 'fixtures');
const labDir = mkdtempSync(join(tmpdir(), 'poslab-embed-'));
const courseDir = mkdtempSync(join(tmpdir(), 'poslab-embed-course-'));
// Only what the pages need is served: /course/ (the course page, configured
// for the lab on B, with embed.js), /lab/ (the fixtures).
const MOUNTS = { '/course/': courseDir, '/lab/': labDir };
const staticServer = () => serveDirs(MOUNTS);

let A, B, C, browser;
before(async () => {
  await build({ entryPoints: [join(fixtures, 'embed-lab.js')], bundle: true, format: 'iife', outfile: join(labDir, 'embed-lab.bundle.js'), logLevel: 'warning' });
  for (const f of ['embed-lab.html', 'embed-intruder.html']) copyFileSync(join(fixtures, f), join(labDir, f));
  [A, B, C] = await Promise.all([staticServer(), staticServer(), staticServer()]);
  // The course author names the lab (on B) in the page itself.
  writeCoursePage(courseDir, join(root, 'web'), { page: labUrl() });
  // One that also frames other content, from C (a third party it trusts less than the lab).
  writeCoursePage(courseDir, join(root, 'web'), { page: labUrl(), frames: [C.origin], name: 'with-third-party.html' });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
});
after(async () => {
  await browser?.close();
  for (const s of [A, B, C]) await s?.close();
  rmSync(labDir, { recursive: true, force: true });
  rmSync(courseDir, { recursive: true, force: true });
});

const labUrl = () => `${B.origin}/lab/embed-lab.html`;
const hostUrl = (hostOrigin, params) => `${hostOrigin}/course/embed-example.html?${new URLSearchParams(params)}`;

async function openHost(url) {
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  await watchCsp(context);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  // Nothing may leave the three loopback origins.
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if ([A, B, C].some((s) => u.startsWith(`${s.origin}/`)) || u.startsWith('file:')) return route.continue();
    errors.push(`off-origin request ${u}`);
    return route.abort();
  });
  await page.goto(url);
  return { page, context, errors };
}

async function labFrame(page, exercise) {
  let frame;
  for (let i = 0; i < 200 && !frame; i++) {
    frame = page.frames().find((f) => f.url().startsWith(labUrl()) && new URL(f.url()).searchParams.get('exercise') === exercise);
    if (!frame) await page.waitForTimeout(25);
  }
  assert.ok(frame, `no lab frame for ${exercise}`);
  await frame.waitForFunction(() => window.fixture !== undefined);
  return frame;
}

test('the course page sizes both labs and receives their statements, from the lab origin', { timeout: 60000 }, async () => {
  const { page, context, errors } = await openHost(hostUrl(A.origin, { learner: 'e2e-alice', exercises: 'hand-calc,rope' }));
  const hand = await labFrame(page, 'hand-calc');
  const rope = await labFrame(page, 'rope');
  // The host built the iframe URLs: its own origin as parentOrigin, the learner.
  const params = new URL(hand.url()).searchParams;
  assert.deepEqual([params.get('embed'), params.get('parentOrigin'), params.get('learner')], ['1', A.origin, 'e2e-alice']);
  assert.equal(await hand.locator('#learner').textContent(), 'e2e-alice');

  // Heights: the H5P handshake completed and the frame has the lab's height.
  const sized = (id, h) => page.waitForFunction(([id, h]) => document.getElementById(id).style.height === `${h}px`, [id, h], { timeout: 10000 });
  const h0 = await hand.evaluate(() => fixture.height());
  await sized('lab-hand-calc', h0);
  assert.equal(await hand.evaluate(() => fixture.bridge.friendly), true, 'the host answered hello');
  await hand.evaluate(() => fixture.grow(4));
  const h1 = await hand.evaluate(() => fixture.height());
  assert.ok(h1 >= h0 + 4 * 150, `grew from ${h0} to ${h1}`);
  await sized('lab-hand-calc', h1);
  const actions = await hand.evaluate(() => fixture.bridge.sent.map((m) => m.action ?? m.subject));
  for (const a of ['hello', 'prepareResize', 'resize', 'lti.frameResize']) assert.ok(actions.includes(a), `the lab sent ${a}`);
  await sized('lab-rope', await rope.evaluate(() => fixture.height()));
  assert.ok(Number(await page.locator('#resizes').textContent()) >= 3);

  // Statements: answered and completed from one lab, answered from the other.
  await hand.evaluate(() => fixture.answer(1, 2, ['0.670', '0.331']));
  await hand.evaluate(() => fixture.complete(3, 4));
  await rope.evaluate(() => fixture.answer(1, 1, ['1', '0']));
  await page.waitForFunction(() => document.getElementById('count').textContent === '3');
  const got = await page.evaluate(() => PositionLabEmbed.statements.map((d) => ({ origin: d.origin, frame: d.iframe.id, s: d.statement })));
  assert.deepEqual(got.map((g) => [g.origin, g.frame, g.s.verb.id]), [
    [B.origin, 'lab-hand-calc', 'http://adlnet.gov/expapi/verbs/answered'],
    [B.origin, 'lab-hand-calc', 'http://adlnet.gov/expapi/verbs/completed'],
    [B.origin, 'lab-rope', 'http://adlnet.gov/expapi/verbs/answered'],
  ]);
  const [answered, completed] = got.map((g) => g.s);
  assert.deepEqual(answered.actor, { objectType: 'Agent', account: { homePage: A.origin, name: 'e2e-alice' } });
  assert.equal(answered.object.id, `${labUrl()}?exercise=hand-calc&question=q1`);
  assert.deepEqual(answered.context.contextActivities.parent, [{ objectType: 'Activity', id: `${labUrl()}?exercise=hand-calc` }]);
  assert.deepEqual(answered.object.definition.name, { ja: '問 1', en: 'Question 1' });
  assert.deepEqual(answered.result.score, { raw: 1, max: 2, min: 0, scaled: 0.5 });
  assert.equal(answered.result.response, '0.670[,]0.331');
  assert.equal(answered.result.success, false);
  assert.match(answered.result.duration, /^PT\d+(\.\d{1,2})?S$/);
  assert.deepEqual(completed.object.definition.name, { ja: '演習 hand-calc', en: 'Exercise hand-calc' });
  assert.deepEqual(completed.result.score, { raw: 3, max: 4, min: 0, scaled: 0.75 });
  // The example page lists them.
  assert.equal(await page.locator('#statements tr').count(), 3);
  assert.match(await page.locator('#statements tr').first().innerText(), /回答した/);

  // Host → lab: the learner id reaches the lab at its origin.
  await page.evaluate(() => PositionLabEmbed.setLearner(document.getElementById('lab-rope'), 'from-host'));
  await rope.waitForFunction(() => fixture.fromHost.join() === 'from-host');
  assert.deepEqual(errors, []);
  await context.close();
});

test('messages from a third origin are ignored by the course page', { timeout: 60000 }, async () => {
  // The course page's CSP lets it frame C too: embed.js's own origin checks are what is tested.
  const { page, context, errors } = await openHost(`${A.origin}/course/with-third-party.html?${new URLSearchParams({ learner: 'e2e-alice', exercises: 'hand-calc,rope' })}`);
  const hand = await labFrame(page, 'hand-calc');
  const rope = await labFrame(page, 'rope');
  await hand.evaluate(() => fixture.answer(1, 1, ['1']));
  await page.waitForFunction(() => PositionLabEmbed.statements.length === 1);
  const heightBefore = await page.evaluate(() => document.getElementById('lab-hand-calc').style.height);
  assert.match(heightBefore, /^\d+px$/);

  // 1. Another iframe on the page, from C, posting look-alike messages.
  const intruder = `${C.origin}/lab/embed-intruder.html`;
  await page.evaluate((src) => {
    const f = document.createElement('iframe');
    f.id = 'intruder';
    f.src = src;
    document.body.append(f);
  }, intruder);
  // 2. A lab frame whose content has navigated to C: the same window, another origin.
  await hand.evaluate((url) => fixture.go(url), intruder);
  // Each intruder, found by the iframe element it is in, once it has posted.
  const sentFrom = async (id) => {
    for (let i = 0; i < 400; i++) {
      for (const f of page.frames()) {
        if (f === page.mainFrame() || f.url() !== intruder) continue;
        const el = await f.frameElement().catch(() => null);
        if (el && (await el.evaluate((e) => e.id)) === id && (await f.evaluate(() => document.body?.dataset.sent === 'true').catch(() => false))) return f;
      }
      await page.waitForTimeout(25);
    }
    throw new Error(`no intruder in #${id}`);
  };
  const inLab = await sentFrom('lab-hand-calc');
  await sentFrom('intruder');
  // The navigated lab frame's messages were seen and refused for their origin.
  // The navigated lab frame's four messages were refused for their origin
  // (the #intruder frame is no lab: embed.js passes over it without a note).
  const refusedFromC = (n) => page.waitForFunction(([c, n]) => PositionLabEmbed.ignored.filter((x) => x.reason === 'origin' && x.origin === c).length === n, [C.origin, n]);
  await refusedFromC(4);
  await inLab.evaluate(() => window.sendAgain());
  // Its four messages again, all handled (and refused) before what follows is read.
  await refusedFromC(8);
  const after = await page.evaluate(() => ({
    statements: PositionLabEmbed.statements.map((d) => d.statement.object.id),
    rows: document.querySelectorAll('#statements tr').length,
    heights: [...document.querySelectorAll('iframe')].map((f) => f.style.height),
    ignored: PositionLabEmbed.ignored.filter((x) => x.reason === 'origin').map((x) => [x.origin, x.expected]),
  }));
  assert.equal(after.statements.length, 1);
  assert.ok(!after.statements.includes('urn:fake'));
  assert.equal(after.rows, 1);
  assert.ok(!after.heights.includes('7px'), `no height from C: ${after.heights}`);
  assert.equal(after.heights[0], heightBefore);
  assert.ok(after.ignored.every(([o, e]) => o === C.origin && e === B.origin));
  // The real lab next to it still gets through.
  await rope.evaluate(() => fixture.answer(0, 1, ['2']));
  await page.waitForFunction(() => PositionLabEmbed.statements.length === 2);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the lab posts only to parentOrigin, and accepts nothing from another origin', { timeout: 60000 }, async () => {
  // The course page is on C, but the lab was told its parent is A.
  const { page, context } = await openHost(hostUrl(C.origin, { learner: 'e2e-bob', exercises: 'alibi', parentOrigin: A.origin }));
  const lab = await labFrame(page, 'alibi');
  assert.equal(new URL(lab.url()).searchParams.get('parentOrigin'), A.origin);
  await lab.evaluate(() => fixture.answer(1, 1, ['1']));
  const sent = await lab.evaluate(() => fixture.bridge.sent.map((m) => m.action ?? m.subject));
  assert.ok(sent.includes('xAPI') && sent.includes('lti.frameResize'), 'the lab did post, to A');
  // C's embed.js said 'ready' and now sends a learner id: the lab takes neither.
  // A listener of the test's own, added after the bridge's: once it has seen
  // the learner message, the bridge has handled (and refused) it.
  await lab.evaluate(() => {
    window.__learnerMessages = 0;
    addEventListener('message', (e) => {
      if (e.data?.action === 'learner') window.__learnerMessages += 1;
    });
  });
  await page.evaluate(() => PositionLabEmbed.setLearner(document.getElementById('lab-alibi'), 'mallory'));
  await lab.waitForFunction(() => window.__learnerMessages === 1);
  assert.deepEqual(await lab.evaluate(() => fixture.fromHost), []);
  assert.equal(await lab.evaluate(() => fixture.bridge.friendly), false);
  // And C received nothing: no statement, no height.
  assert.deepEqual(await page.evaluate(() => PositionLabEmbed.statements.length), 0);
  assert.equal(await page.locator('#count').textContent(), '0');
  assert.equal(await page.evaluate(() => document.getElementById('lab-alibi').style.height), '');
  await context.close();
});

test('a course page opened from file:// (an opaque origin) embeds with parentOrigin=* and still gets statements', { timeout: 60000 }, async () => {
  const page0 = writeCoursePage(courseDir, join(root, 'web'), { page: labUrl(), name: 'file-to-http.html' });
  const url = `${pathToFileURL(page0).href}?${new URLSearchParams({ learner: 'e2e-carol', exercises: 'rope' })}`;
  const { page, context, errors } = await openHost(url);
  const lab = await labFrame(page, 'rope');
  assert.equal(new URL(lab.url()).searchParams.get('parentOrigin'), '*');
  await lab.evaluate(() => fixture.answer(1, 1, ['1']));
  await page.waitForFunction(() => PositionLabEmbed.statements.length === 1);
  assert.equal(await page.evaluate(() => PositionLabEmbed.statements[0].origin), B.origin);
  assert.equal(await page.evaluate(() => PositionLabEmbed.statements[0].statement.actor.account.name), 'e2e-carol');
  // The lab has an http origin, so the host can still address the learner id to it.
  await page.evaluate(() => PositionLabEmbed.setLearner(document.getElementById('lab-rope'), 'from-file-host'));
  await lab.waitForFunction(() => fixture.fromHost.join() === 'from-file-host');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a file:// course page embedding a file:// lab: both opaque origins, still sized and reported', { timeout: 60000 }, async () => {
  const lab = pathToFileURL(join(labDir, 'embed-lab.html')).href;
  const page0 = writeCoursePage(courseDir, join(root, 'web'), { page: lab, name: 'file-to-file.html' });
  const url = `${pathToFileURL(page0).href}?${new URLSearchParams({ learner: 'e2e-dan', exercises: 'rope' })}`;
  const { page, context, errors } = await openHost(url);
  let frame;
  for (let i = 0; i < 200 && !frame; i++) {
    frame = page.frames().find((f) => f.url().startsWith(lab));
    if (!frame) await page.waitForTimeout(25);
  }
  assert.ok(frame, 'the file:// lab frame');
  await frame.waitForFunction(() => window.fixture !== undefined);
  assert.equal(new URL(frame.url()).searchParams.get('parentOrigin'), '*');
  const h = await frame.evaluate(() => fixture.height());
  await page.waitForFunction((h) => document.getElementById('lab-rope').style.height === `${h}px`, h);
  await frame.evaluate(() => fixture.answer(1, 1, ['1']));
  await page.waitForFunction(() => PositionLabEmbed.statements.length === 1);
  const d = await page.evaluate(() => ({ origin: PositionLabEmbed.statements[0].origin, s: PositionLabEmbed.statements[0].statement }));
  // Chromium says "file://" where the URL spec says "null"; embed.js takes either for a file: frame.
  assert.ok(d.origin === 'null' || d.origin === 'file://', d.origin);
  assert.equal(d.s.object.id, 'urn:position-lab:exercise:rope:question:q1');
  assert.deepEqual(d.s.actor.account, { homePage: 'urn:position-lab', name: 'e2e-dan' });
  assert.deepEqual(errors, []);
  await context.close();
});
