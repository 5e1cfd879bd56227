// The LMS packages in a test LMS: `npm run package`'s zips are unzipped here
// (a small reader, independent of the writer), the launch file is read from
// the manifest, and the lab runs in an iframe of a host page that gives it
// scorm-again's SCORM 1.2 / 2004 API; for cmi5, a loopback LRS and fetch
// endpoint (another origin, with CORS) record what it sends. A scripted
// student answers the hand calculation's dots-a (x1·x1 = 1, x1·x2 = 0:
// right). Expected values by hand: hand-calc has 8 questions of 1 point,
// so one right answer is 1/8 = 12.5 on 0–100, scaled 0.125.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, extname } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { root, dist, requireDist, CHROMIUM_ARGS, watchCsp, TIMEOUT_SCALE } from './helpers.mjs';
import { buildPackages } from '../../scripts/package.mjs';

const LIMITS = { scorm12: 4096, scorm2004: 64000 };
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.xml': 'application/xml', '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf' };

// Reads a zip's central directory and inflates every entry.
function unzip(buf) {
  let end = buf.length - 22;
  while (end >= 0 && buf.readUInt32LE(end) !== 0x06054b50) end--;
  assert.ok(end >= 0, 'zip: end of central directory found');
  const count = buf.readUInt16LE(end + 10);
  let p = buf.readUInt32LE(end + 16);
  const files = new Map();
  for (let i = 0; i < count; i++) {
    assert.equal(buf.readUInt32LE(p), 0x02014b50);
    const method = buf.readUInt16LE(p + 10);
    const size = buf.readUInt32LE(p + 20);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const offset = buf.readUInt32LE(p + 42);
    const name = buf.toString('utf8', p + 46, p + 46 + nameLen);
    const dataStart = offset + 30 + buf.readUInt16LE(offset + 26) + buf.readUInt16LE(offset + 28);
    const raw = buf.subarray(dataStart, dataStart + size);
    files.set(name, method === 8 ? inflateRawSync(raw) : Buffer.from(raw));
    p += 46 + nameLen + extraLen + commentLen;
  }
  return files;
}

// The launch of one item: its resource's href plus the item's parameters.
function scormLaunch(manifest, itemId) {
  const item = new RegExp(`<item identifier="${itemId}" identifierref="([^"]+)" parameters="([^"]*)"`).exec(manifest);
  assert.ok(item, `manifest has item ${itemId}`);
  const res = new RegExp(`<resource identifier="${item[1]}"[^>]*href="([^"]+)"`).exec(manifest);
  return res[1] + item[2].replace(/&amp;/g, '&');
}

const outDir = mkdtempSync(join(tmpdir(), 'poslab-lms-'));
let packages;
let contents; // kind → Map(name → Buffer): the unzipped packages
let server;
let base;
let lrs;
let browser;

const hostPage = (kind) => `<!doctype html><html><head><meta charset="utf-8"><title>test LMS</title>
<script src="/scorm-again/${kind === 'scorm12' ? 'scorm12' : 'scorm2004'}.js"></script></head><body>
<iframe id="sco" style="width:1000px;height:800px"></iframe>
<script>
  const q = new URLSearchParams(location.search);
  const state = JSON.parse(q.get('state') || '{}');
  const api = new ${kind === 'scorm12' ? 'Scorm12API' : 'Scorm2004API'}({ logLevel: 5 });
  if (Object.keys(state).length) api.loadFromFlattenedJSON(state, '');
  window.calls = [];
  for (const ev of ['${kind === 'scorm12' ? 'LMSCommit' : 'Commit'}', '${kind === 'scorm12' ? 'LMSFinish' : 'Terminate'}']) api.on(ev, () => window.calls.push(ev));
  window.${kind === 'scorm12' ? 'API' : 'API_1484_11'} = api;
  document.getElementById('sco').src = q.get('launch');
</script></body></html>`;

before(async () => {
  requireDist();
  packages = buildPackages({ sco: 'per-exercise', mastery: 0.8, dist: process.env.POSLAB_LMS_DIST || dist, out: outDir });
  contents = {};
  for (const kind of ['scorm12', 'scorm2004', 'cmi5']) contents[kind] = unzip(readFileSync(packages.written[kind]));
  const whole = buildPackages({ sco: 'whole', mastery: 0.8, dist: process.env.POSLAB_LMS_DIST || dist, out: join(outDir, 'whole') });
  contents.whole2004 = unzip(readFileSync(whole.written.scorm2004));
  const sa = join(root, 'node_modules', 'scorm-again', 'dist');
  server = createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    const m = /^\/pkg\/(\w+)\/(.*)$/.exec(u.pathname);
    if (u.pathname.startsWith('/host-')) {
      res.writeHead(200, { 'content-type': TYPES['.html'] }).end(hostPage(u.pathname.slice(6, -5)));
    } else if (u.pathname.startsWith('/scorm-again/')) {
      res.writeHead(200, { 'content-type': TYPES['.js'] }).end(readFileSync(join(sa, u.pathname.slice(13))));
    } else if (m && contents[m[1]]?.has(m[2])) {
      res.writeHead(200, { 'content-type': TYPES[extname(m[2])] ?? 'application/octet-stream' }).end(contents[m[1]].get(m[2]));
    } else res.writeHead(404).end();
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${server.address().port}`;
  lrs = await startLrs();
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
});
after(async () => {
  await browser?.close();
  await new Promise((ok) => (server ? server.close(ok) : ok()));
  await lrs?.close();
  rmSync(outDir, { recursive: true, force: true });
});

// dots-a: x1 = (1, 0), x2 = (0, 1): x1·x1 = 1, x1·x2 = 0. dots-b: the row of (1, 0)
// against [(0, 1), (1, 0)] in order: 0, 1.
async function answer(frame, id = 'dots-a', values = ['1', '0']) {
  await frame.waitForSelector('[data-exercise="hand-calc"][data-ready="true"]', { timeout: 30000 });
  const q = frame.locator(`[data-question="${id}"]`);
  for (const [i, v] of values.entries()) await q.locator(`input[data-field="${i}"]`).fill(v);
  await q.locator('button[type="submit"]').click();
  await frame.waitForFunction((qid) => /correct/.test(document.querySelector(`[data-question="${qid}"] .feedback`)?.className ?? ''), id);
}
const answerDots = (frame) => answer(frame);

test('the packages: a manifest or cmi5.xml at the root, one unit per exercise, every file listed', () => {
  const c = contents;
  const exercises = JSON.parse(readFileSync(join(process.env.POSLAB_LMS_DIST || dist, 'exercises.json'), 'utf8'));
  for (const kind of ['scorm12', 'scorm2004']) {
    const manifest = c[kind].get('imsmanifest.xml').toString('utf8');
    const attr = kind === 'scorm12' ? 'adlcp:scormtype="sco"' : 'adlcp:scormType="sco"';
    assert.equal(manifest.split(attr).length - 1, exercises.length, `${kind}: one SCO per exercise`);
    for (const name of c[kind].keys()) if (name !== 'imsmanifest.xml') assert.ok(manifest.includes(`<file href="${name}"/>`), `${kind}: ${name} listed`);
    assert.ok(c[kind].has('index.html') && c[kind].has('poslab.js'));
  }
  const xml = c.cmi5.get('cmi5.xml').toString('utf8');
  assert.equal(xml.split('<au ').length - 1, exercises.length);
  assert.match(xml, /<url>index\.html\?lms=cmi5&amp;exercise=hand-calc<\/url>/);
});

for (const kind of ['scorm12', 'scorm2004']) {
  test(`${kind}: score, statuses, interactions and suspend_data in the LMS; progress resumes`, { timeout: 60000 }, async () => {
    const manifest = contents[kind].get('imsmanifest.xml').toString('utf8');
    const launch = `/pkg/${kind}/${scormLaunch(manifest, 'item-hand-calc')}`;
    assert.equal(launch, `/pkg/${kind}/index.html?lms=${kind}&exercise=hand-calc`);
    const learnerKey = kind === 'scorm12' ? 'cmi.core.student_id' : 'cmi.learner_id';
    const first = { [learnerKey]: 'lms-student-7' };
    const ctx = await browser.newContext();
    await watchCsp(ctx);
    const page = await ctx.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base}/host-${kind}.html?launch=${encodeURIComponent(launch)}&state=${encodeURIComponent(JSON.stringify(first))}`);
    const frame = page.frameLocator('#sco');
    await frame.locator('.lms-bar').waitFor();
    // Nothing is set before real work: no status stamped at launch.
    const before0 = await page.evaluate((k) => (k === 'scorm12' ? window.API.cmi.core.lesson_status : window.API_1484_11.cmi.completion_status), kind);
    assert.ok(['not attempted', 'unknown', ''].includes(before0), `status before any answer: ${before0}`);
    await answerDots(page.frames()[1]);
    const cmi = await page.evaluate(() => JSON.parse(JSON.stringify((window.API ?? window.API_1484_11).cmi)));
    const calls = await page.evaluate(() => window.calls);
    assert.ok(calls.filter((c) => /Commit/.test(c)).length >= 1, 'a commit after the score change');
    let suspend;
    if (kind === 'scorm12') {
      assert.equal(Number(cmi.core.score.raw), 12.5);
      assert.equal(Number(cmi.core.score.min), 0);
      assert.equal(Number(cmi.core.score.max), 100);
      assert.equal(cmi.core.lesson_status, 'incomplete');
      const it = cmi.interactions['0'];
      assert.equal(it.id, 'hand-calc.dots-a');
      assert.equal(it.type, 'fill-in');
      assert.equal(it.student_response, '1,0');
      assert.equal(it.result, 'correct');
      suspend = cmi.suspend_data;
    } else {
      assert.equal(Number(cmi.score.raw), 12.5);
      assert.equal(Number(cmi.score.scaled), 0.125);
      assert.equal(Number(cmi.score.min), 0);
      assert.equal(Number(cmi.score.max), 100);
      assert.equal(cmi.completion_status, 'incomplete');
      assert.equal(cmi.success_status, 'unknown');
      const it = cmi.interactions['0'];
      assert.equal(it.id, 'urn:position-lab:exercise:hand-calc:question:dots-a');
      assert.equal(it.type, 'fill-in');
      assert.equal(it.learner_response, '1[,]0');
      assert.equal(it.result, 'correct');
      suspend = cmi.suspend_data;
    }
    assert.ok(suspend.length > 0 && suspend.length <= LIMITS[kind], `suspend_data ${suspend.length} ≤ ${LIMITS[kind]}`);
    const saved = JSON.parse(suspend);
    assert.deepEqual(saved.x['hand-calc'].a.map((r) => [r[0], r[1]]), [['dots-a', ['1', '0']]]);
    // Finish from the button: Finish/Terminate once, the status unchanged.
    await page.frames()[1].click('.lms-finish');
    const end = await page.evaluate(() => ({ calls: window.calls, cmi: JSON.parse(JSON.stringify((window.API ?? window.API_1484_11).cmi)) }));
    assert.equal(end.calls.filter((c) => c === 'LMSFinish' || c === 'Terminate').length, 1);
    if (kind === 'scorm12') {
      assert.equal(end.cmi.core.lesson_status, 'incomplete');
      assert.equal(end.cmi.core.exit, 'suspend');
    } else {
      assert.equal(end.cmi.completion_status, 'incomplete');
      assert.equal(end.cmi.exit, 'suspend');
    }
    await ctx.close();
    // A new browser (no localStorage): the LMS's suspend_data alone brings the answer back.
    const ctx2 = await browser.newContext();
    await watchCsp(ctx2);
    const page2 = await ctx2.newPage();
    page2.on('pageerror', (e) => errors.push(e.message));
    // What an LMS keeps of the first session: suspend_data and the interaction.
    const it0 = cmi.interactions['0'];
    const kept0 = kind === 'scorm12' ? { 'cmi.interactions.0.id': it0.id, 'cmi.interactions.0.type': it0.type, 'cmi.interactions.0.result': it0.result } : { 'cmi.interactions.0.id': it0.id, 'cmi.interactions.0.type': it0.type, 'cmi.interactions.0.learner_response': it0.learner_response, 'cmi.interactions.0.result': it0.result };
    const resumed = { ...first, 'cmi.suspend_data': suspend, ...kept0 };
    await page2.goto(`${base}/host-${kind}.html?launch=${encodeURIComponent(launch)}&state=${encodeURIComponent(JSON.stringify(resumed))}`);
    const f2 = page2.frames()[1];
    await f2.waitForSelector('[data-exercise="hand-calc"][data-ready="true"]', { timeout: 30000 });
    const kept = await f2.evaluate(() => Object.entries(localStorage).filter(([k]) => k.startsWith('poslab.attempts.v1:lms-student-7:hand-calc:')).map(([, v]) => JSON.parse(v).attempts.map((a) => [a.question, a.answer])));
    assert.deepEqual(kept, [[['dots-a', ['1', '0']]]], 'the attempt restored into this browser');
    // A second right answer: 2 of 8 points = 25, so the first one counted; its interaction comes next (index 1).
    await answer(f2, 'dots-b', ['0', '1']);
    const cmi2 = await page2.evaluate(() => JSON.parse(JSON.stringify((window.API ?? window.API_1484_11).cmi)));
    assert.equal(Number(kind === 'scorm12' ? cmi2.core.score.raw : cmi2.score.raw), 25);
    assert.equal(cmi2.interactions['1'].result, 'correct');
    assert.match(cmi2.interactions['1'].id, /dots-b$/);
    assert.ok(cmi2.suspend_data.length <= LIMITS[kind]);
    assert.deepEqual(JSON.parse(cmi2.suspend_data).x['hand-calc'].a.map((r) => r[0]), ['dots-a', 'dots-b']);
    assert.deepEqual(errors, []);
    await ctx2.close();
  });
}

// ---- cmi5: a loopback LMS (fetch URL, LMS.LaunchData) and LRS on another origin ----
async function startLrs() {
  const statements = [];
  let fetched = 0;
  // The test's launch data per AU: a low mastery score for hand-calc (one answer passes), 0.8 for formula.
  const launchData = (activityId) => ({
    contextTemplate: { contextActivities: { grouping: [{ objectType: 'Activity', id: activityId }] }, extensions: { 'https://w3id.org/xapi/cmi5/context/extensions/sessionid': `session-${activityId}` } },
    launchMode: 'Normal',
    masteryScore: activityId.endsWith('hand-calc') ? 0.1 : 0.8,
    moveOn: 'CompletedAndPassed',
    ...(activityId.endsWith('hand-calc') ? { returnURL: `${url}/returned` } : {}),
  });
  const fetchedBy = new Map();
  const states = new Map();
  const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': 'authorization, content-type, x-experience-api-version', 'access-control-allow-methods': 'GET, POST, PUT, OPTIONS' };
  const srv = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const u = new URL(req.url, 'http://x');
      if (req.method === 'OPTIONS') return res.writeHead(204, cors).end();
      if (u.pathname.startsWith('/fetch/') && req.method === 'POST') {
        fetched += 1;
        fetchedBy.set(u.pathname, (fetchedBy.get(u.pathname) ?? 0) + 1);
        if (fetchedBy.get(u.pathname) > 1) return res.writeHead(200, { ...cors, 'content-type': 'application/json' }).end(JSON.stringify({ 'error-code': '1', 'error-text': 'already used' }));
        return res.writeHead(200, { ...cors, 'content-type': 'application/json' }).end(JSON.stringify({ 'auth-token': 'dGVzdDp0b2tlbg==' }));
      }
      const authorized = req.headers.authorization === 'Basic dGVzdDp0b2tlbg==' && req.headers['x-experience-api-version'] === '1.0.3';
      if (u.pathname === '/xapi/activities/state') {
        if (!authorized) return res.writeHead(403, cors).end();
        const id = u.searchParams.get('stateId');
        const key = [id, u.searchParams.get('activityId'), u.searchParams.get('registration')].join(' ');
        if (req.method === 'GET' && id === 'LMS.LaunchData') return res.writeHead(200, { ...cors, 'content-type': 'application/json' }).end(JSON.stringify(launchData(u.searchParams.get('activityId'))));
        if (req.method === 'GET') return states.has(key) ? res.writeHead(200, { ...cors, 'content-type': 'application/json' }).end(states.get(key)) : res.writeHead(404, cors).end();
        // The AU may write only its own documents, never the LMS's.
        if (req.method === 'PUT' && id !== 'LMS.LaunchData') {
          states.set(key, body);
          return res.writeHead(204, cors).end();
        }
        return res.writeHead(403, cors).end();
      }
      if (u.pathname === '/xapi/statements' && req.method === 'POST') {
        if (!authorized) return res.writeHead(403, cors).end();
        const s = JSON.parse(body);
        statements.push(s);
        return res.writeHead(200, { ...cors, 'content-type': 'application/json' }).end(JSON.stringify([s.id]));
      }
      if (u.pathname === '/returned') return res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>LMS</title><p>back in the LMS</p>');
      res.writeHead(404, cors).end();
    });
  });
  await new Promise((ok) => srv.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${srv.address().port}`;
  return { url, statements, fetchCount: () => fetched, close: () => new Promise((ok) => srv.close(ok)) };
}

// Until the LRS holds `n` statements from index `from` on (the LRS is this
// test's own server: polled, with a bound for a hung page, not a sleep).
async function lrsHolds(from, n) {
  const deadline = Date.now() + 20000 * TIMEOUT_SCALE;
  while (lrs.statements.length - from < n) {
    if (Date.now() > deadline) throw new Error(`the LRS has ${lrs.statements.length - from} statements, ${n} expected: ${lrs.statements.slice(from).map((s) => s.verb.id.split('/').pop())}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('cmi5: token fetched once; initialized, passed (score, mastery), terminated in order, with the cmi5 context, categories and durations', { timeout: 60000 }, async () => {
  const xml = contents.cmi5.get('cmi5.xml').toString('utf8');
  const url = /<au id="urn:position-lab:au:hand-calc"[\s\S]*?<url>([^<]+)<\/url>/.exec(xml)[1].replace(/&amp;/g, '&');
  const actor = { objectType: 'Agent', account: { homePage: 'http://lms.example', name: 'cmi5-student' } };
  const params = new URLSearchParams({ endpoint: `${lrs.url}/xapi/`, fetch: `${lrs.url}/fetch/1`, actor: JSON.stringify(actor), registration: '1d6b7c3e-0000-4000-8000-000000000001', activityId: 'urn:test:au:hand-calc' });
  const ctx = await browser.newContext();
  await watchCsp(ctx);
  const page = await ctx.newPage();
  await page.goto(`${base}/pkg/cmi5/${url}&${params}`);
  const logs = [];
  page.on('console', (m) => logs.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => logs.push(`pageerror: ${e.message}`));
  await page.locator('.lms-bar').waitFor();
  assert.equal(await page.locator('.lms-finish').count(), 1, `connected (${await page.locator('.lms-bar').innerText()}; ${logs.join(' | ')})`);
  await answerDots(page.mainFrame());
  // masteryScore 0.1 (the test's launch data): 1/8 = 0.125 passes. Not every question answered: no completed yet.
  // Finish: terminated, then back to the LMS's returnURL.
  await page.click('.lms-finish');
  await page.waitForURL(`${lrs.url}/returned`);
  await lrsHolds(0, 4);
  await ctx.close();
  assert.equal(lrs.fetchCount(), 1, 'the fetch URL POSTed once');
  const verbs = lrs.statements.map((s) => s.verb.id.split('/').pop());
  assert.deepEqual(verbs, ['initialized', 'answered', 'passed', 'terminated']);
  const [init, answered, passed, term] = lrs.statements;
  // The "cmi5 allowed" answer: the question's own score, the response as typed, the AU as parent, no cmi5 category.
  assert.equal(answered.object.id, 'urn:test:au:hand-calc/hand-calc/dots-a');
  assert.deepEqual(answered.result.score, { raw: 1, min: 0, max: 1, scaled: 1 });
  assert.equal(answered.result.response, '1[,]0');
  assert.equal(answered.result.success, true);
  assert.deepEqual(answered.context.contextActivities.parent, [{ objectType: 'Activity', id: 'urn:test:au:hand-calc' }]);
  assert.equal(answered.context.contextActivities.category, undefined);
  assert.equal(answered.context.registration, '1d6b7c3e-0000-4000-8000-000000000001');
  for (const s of [init, passed, term]) {
    assert.equal(s.context.registration, '1d6b7c3e-0000-4000-8000-000000000001');
    assert.equal(s.object.id, 'urn:test:au:hand-calc');
    assert.deepEqual(s.actor, actor);
    assert.equal(s.context.extensions['https://w3id.org/xapi/cmi5/context/extensions/sessionid'], 'session-urn:test:au:hand-calc');
    assert.deepEqual(s.context.contextActivities.grouping, [{ objectType: 'Activity', id: 'urn:test:au:hand-calc' }]);
    assert.ok(s.context.contextActivities.category.some((c) => c.id === 'https://w3id.org/xapi/cmi5/context/categories/cmi5'));
    assert.match(s.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  }
  const moveOn = (s) => s.context.contextActivities.category.some((c) => c.id === 'https://w3id.org/xapi/cmi5/context/categories/moveon');
  assert.equal(moveOn(init), false);
  assert.equal(moveOn(passed), true);
  assert.equal(moveOn(term), false);
  assert.deepEqual(passed.result.score, { scaled: 0.125, raw: 1, min: 0, max: 8 });
  assert.equal(passed.result.success, true);
  assert.equal(passed.context.extensions['https://w3id.org/xapi/cmi5/context/extensions/masteryscore'], 0.1);
  assert.match(passed.result.duration, /^PT(\d+H)?(\d+M)?\d+(\.\d+)?S$/);
  assert.match(term.result.duration, /^PT(\d+H)?(\d+M)?\d+(\.\d+)?S$/);
  assert.ok(Date.parse(init.timestamp) <= Date.parse(passed.timestamp) && Date.parse(passed.timestamp) <= Date.parse(term.timestamp));
});

test('cmi5: a wrong answer to the only question fails and completes; the right one at the second attempt earns half (credit 0.5), below mastery, so it does not pass', { timeout: 60000 }, async () => {
  const xml = contents.cmi5.get('cmi5.xml').toString('utf8');
  const url = /<au id="urn:position-lab:au:formula"[\s\S]*?<url>([^<]+)<\/url>/.exec(xml)[1].replace(/&amp;/g, '&');
  const actor = { objectType: 'Agent', mbox: 'mailto:learner@example.org' };
  const registration = '1d6b7c3e-0000-4000-8000-000000000002';
  const params = new URLSearchParams({ endpoint: `${lrs.url}/xapi`, fetch: `${lrs.url}/fetch/2`, actor: JSON.stringify(actor), registration, activityId: 'urn:test:au:formula' });
  const from = lrs.statements.length;
  const ctx = await browser.newContext();
  await watchCsp(ctx);
  const page = await ctx.newPage();
  await page.goto(`${base}/pkg/cmi5/${url}&${params}`);
  await page.waitForSelector('[data-exercise="formula"][data-ready="true"]', { timeout: 30000 });
  const choose = async (id, verdict) => {
    await page.check(`[data-question="property-name"] input[value="${id}"]`);
    await page.locator('[data-question="property-name"] .feedback').evaluate((el) => el.replaceChildren());
    await page.click('[data-question="property-name"] button[type="submit"]');
    await page.waitForFunction(([v]) => new RegExp(v).test(document.querySelector('[data-question="property-name"] .feedback')?.className ?? ''), [verdict]);
  };
  await choose('invariance', 'wrong');
  await choose('equivariance', 'correct');
  // Leaving the page (pagehide) terminates, with keepalive.
  await page.goto('about:blank');
  // Two answered, then initialized, failed, completed, terminated (pagehide sends
  // what is left at once, with keepalive: they may land in any order, so the count).
  await lrsHolds(from, 6);
  await ctx.close();
  const mine = lrs.statements.slice(from);
  const mine5 = mine.filter((s) => !s.verb.id.endsWith('/answered'));
  assert.equal(mine.length - mine5.length, 2, 'one answered per check');
  // property-name has max_attempts 3, credit [1, 0.5, 0.25]: wrong = 0 of 1, then right at the
  // second attempt = 0.5 of 1, below the mastery score 0.8: completed, never passed.
  assert.deepEqual(mine5.map((s) => s.verb.id.split('/').pop()), ['initialized', 'failed', 'completed', 'terminated']);
  const [, failed, completed] = mine5;
  assert.deepEqual(failed.result.score, { scaled: 0, raw: 0, min: 0, max: 1 });
  assert.equal(failed.result.success, false);
  assert.equal(completed.result.completion, true);
  assert.equal(completed.result.score, undefined);
  assert.equal(failed.context.extensions['https://w3id.org/xapi/cmi5/context/extensions/masteryscore'], 0.8);
  for (const s of mine) assert.equal(s.context.registration, registration);

  // A second session of the same registration, in a fresh browser: completed was sent, so it is not sent again.
  const from2 = lrs.statements.length;
  const ctx2 = await browser.newContext();
  await watchCsp(ctx2);
  const page2 = await ctx2.newPage();
  params.set('fetch', `${lrs.url}/fetch/3`);
  await page2.goto(`${base}/pkg/cmi5/${url}&${params}`);
  await page2.waitForSelector('[data-exercise="formula"][data-ready="true"]', { timeout: 30000 });
  await page2.check('[data-question="property-name"] input[value="equivariance"]');
  await page2.click('[data-question="property-name"] button[type="submit"]');
  await page2.waitForFunction(() => /correct/.test(document.querySelector('[data-question="property-name"] .feedback')?.className ?? ''));
  await page2.click('.lms-finish');
  // initialized, answered, passed, terminated (Finish: one at a time, in order).
  await lrsHolds(from2, 4);
  await ctx2.close();
  // A fresh browser: right at its first attempt (credit 1) passes now; completed was sent, so it is not again.
  assert.deepEqual(lrs.statements.slice(from2).map((s) => s.verb.id.split('/').pop()), ['initialized', 'answered', 'passed', 'terminated']);
});

for (const kind of ['scorm12', 'scorm2004']) {
  test(`${kind}: the only question right: 100, passed (and completed); Finish with a normal exit`, { timeout: 60000 }, async () => {
    const manifest = contents[kind].get('imsmanifest.xml').toString('utf8');
    const launch = `/pkg/${kind}/${scormLaunch(manifest, 'item-formula')}`;
    const ctx = await browser.newContext();
    await watchCsp(ctx);
    const page = await ctx.newPage();
    await page.goto(`${base}/host-${kind}.html?launch=${encodeURIComponent(launch)}&state=${encodeURIComponent(JSON.stringify({ [kind === 'scorm12' ? 'cmi.core.student_id' : 'cmi.learner_id']: 's2' }))}`);
    const f = page.frames()[1];
    await f.waitForSelector('[data-exercise="formula"][data-ready="true"]', { timeout: 30000 });
    await f.check('[data-question="property-name"] input[value="equivariance"]');
    await f.click('[data-question="property-name"] button[type="submit"]');
    await f.waitForFunction(() => /correct/.test(document.querySelector('[data-question="property-name"] .feedback')?.className ?? ''));
    await f.click('.lms-finish');
    const cmi = await page.evaluate(() => JSON.parse(JSON.stringify((window.API ?? window.API_1484_11).cmi)));
    if (kind === 'scorm12') {
      assert.equal(Number(cmi.core.score.raw), 100);
      assert.equal(cmi.core.lesson_status, 'passed');
      assert.equal(cmi.core.exit, '');
      assert.equal(cmi.interactions['0'].type, 'choice');
      assert.equal(cmi.interactions['0'].student_response, 'equivariance');
    } else {
      assert.equal(Number(cmi.score.raw), 100);
      assert.equal(Number(cmi.score.scaled), 1);
      assert.equal(cmi.completion_status, 'completed');
      assert.equal(cmi.success_status, 'passed');
      assert.equal(cmi.exit, 'normal');
      assert.equal(cmi.interactions['0'].learner_response, 'equivariance');
    }
    await ctx.close();
  });
}

test('scorm2004, --sco whole: one SCO for the path; the score is over every exercise; pagehide terminates without a status', { timeout: 60000 }, async () => {
  const manifest = contents.whole2004.get('imsmanifest.xml').toString('utf8');
  assert.equal(manifest.split('adlcp:scormType="sco"').length - 1, 1);
  const launch = `/pkg/whole2004/${scormLaunch(manifest, 'item-whole')}`;
  assert.equal(launch, '/pkg/whole2004/index.html?lms=scorm2004');
  const ctx = await browser.newContext();
  await watchCsp(ctx);
  const page = await ctx.newPage();
  await page.goto(`${base}/host-scorm2004.html?launch=${encodeURIComponent(launch)}&state=${encodeURIComponent(JSON.stringify({ 'cmi.learner_id': 'w1' }))}`);
  const f = page.frames()[1];
  await f.waitForSelector('.start[data-ready="true"]', { timeout: 30000 });
  await f.evaluate(() => (location.hash = '#ex=hand-calc'));
  await answer(f);
  const cmi = await page.evaluate(() => JSON.parse(JSON.stringify(window.API_1484_11.cmi)));
  // 39 questions of 1 point in the path (30, exercise 9's prediction of the pairs
  // that leave the trained range and its question on the learner's own run, and
  // exercise 12's 7 code questions): 1 of 39 = 2.56 on 0–100, scaled 0.0256.
  assert.equal(Number(cmi.score.raw), 2.56);
  assert.equal(Number(cmi.score.scaled), 0.0256);
  assert.equal(cmi.completion_status, 'incomplete');
  assert.equal(cmi.success_status, 'unknown');
  // The course page takes the lab away: pagehide ends the session once, with suspend, statuses as they were.
  await page.evaluate(() => (document.getElementById('sco').src = 'about:blank'));
  await page.waitForFunction(() => window.calls.includes('Terminate'));
  const end = await page.evaluate(() => ({ calls: window.calls, cmi: JSON.parse(JSON.stringify(window.API_1484_11.cmi)) }));
  assert.equal(end.calls.filter((c) => c === 'Terminate').length, 1);
  assert.equal(end.cmi.exit, 'suspend');
  assert.equal(end.cmi.completion_status, 'incomplete');
  assert.match(end.cmi.session_time, /^PT\d+H\d+M\d+(\.\d+)?S$/);
  await ctx.close();
});

test('scorm12 in review mode: the lab works, nothing is recorded', { timeout: 60000 }, async () => {
  const manifest = contents.scorm12.get('imsmanifest.xml').toString('utf8');
  const launch = `/pkg/scorm12/${scormLaunch(manifest, 'item-hand-calc')}`;
  const ctx = await browser.newContext();
  await watchCsp(ctx);
  const page = await ctx.newPage();
  await page.goto(`${base}/host-scorm12.html?launch=${encodeURIComponent(launch)}&state=${encodeURIComponent(JSON.stringify({ 'cmi.core.student_id': 'r1', 'cmi.core.lesson_mode': 'review' }))}`);
  await answer(page.frames()[1]);
  const cmi = await page.evaluate(() => JSON.parse(JSON.stringify(window.API.cmi)));
  assert.equal(cmi.core.score.raw, '');
  assert.equal(cmi.suspend_data, '');
  await ctx.close();
});

test('without an LMS: lms=scorm12 with no API changes nothing and logs no error', { timeout: 60000 }, async () => {
  const ctx = await browser.newContext();
  await watchCsp(ctx);
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(`${base}/pkg/scorm12/index.html?lms=scorm12&exercise=hand-calc&learner=solo`);
  await answerDots(page.mainFrame());
  assert.equal(await page.locator('.lms-bar').count(), 0);
  assert.deepEqual(errors, []);
  await ctx.close();
});
