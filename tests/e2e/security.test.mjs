// The pages' own defences, in headless Chromium with their CSP enforced:
// the example course page takes only same-origin places from its URL, every
// HTML page carries a Content-Security-Policy, `npm start`'s server sends it
// as a header with frame-ancestors, and the tests' CSP watcher does catch a
// violation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { dist, requireDist, root, watchCsp, nextFrames, CHROMIUM_ARGS } from './helpers.mjs';
import { serveDirs } from './fixtures/serve-dirs.mjs';
import { serve, metaPolicy } from '../../scripts/serve.mjs';

const evilDir = mkdtempSync(join(tmpdir(), 'poslab-evil-'));
let lab; // dist/ served as npm start does
let evil; // another origin with an embed.js and a page that would run script
let browser;

before(async () => {
  requireDist();
  // What an attacker would have the example page load: each says PWNED.
  writeFileSync(join(evilDir, 'embed.js'), "console.log('PWNED embed.js'); window.top.PWNED = true;");
  writeFileSync(join(evilDir, 'index.html'), "<!doctype html><title>x</title><script>console.log('PWNED frame'); try { top.PWNED = true; } catch (e) {}</script>");
  const s = await serve({ root: dist, port: 0 });
  lab = { url: s.url, origin: new URL(s.url).origin, close: () => new Promise((ok) => s.server.close(ok)) };
  evil = await serveDirs({ '/x/': evilDir });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
});
after(async () => {
  await browser?.close();
  await lab?.close();
  await evil?.close();
  rmSync(evilDir, { recursive: true, force: true });
});

// A page that collects what would show that script ran: dialogs, console
// lines saying PWNED, window.PWNED, and the frames and scripts it loaded.
// visit(url) loads a URL in it and returns the page's state there. The cases
// of a test share one page, visited in turn: a refused URL loads nothing, an
// accepted one the lab's frame (with the same learner each time),
// window.PWNED belongs to its own document, and the lists of dialogs, PWNED
// lines, errors and CSP violations are kept over every visit (each must stay
// empty, so one that arrives late still fails the next case's check, or the
// context's close()).
async function examplePage() {
  const context = await browser.newContext();
  const violations = await watchCsp(context);
  const page = await context.newPage();
  const seen = { dialogs: [], pwned: [], errors: [] };
  page.on('dialog', (d) => {
    seen.dialogs.push(d.message());
    d.dismiss().catch(() => {});
  });
  page.on('console', (m) => {
    if (/PWNED/.test(m.text())) seen.pwned.push(m.text());
  });
  page.on('pageerror', (e) => seen.errors.push(e.message));
  // Nothing may leave the two loopback servers (//evil.example would).
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith(`${lab.origin}/`) || u.startsWith(`${evil.origin}/`) || u.startsWith('file:')) return route.continue();
    return route.abort();
  });
  const visit = async (url) => {
    await page.goto(url);
    // embed-example.js decides while the page parses (it refuses, or adds the
    // frames and embed.js, which the load event then waits for): after load,
    // anything they ran has run; two frames more for a negative check.
    await page.waitForLoadState('load');
    await nextFrames(page, 2);
    return page.evaluate(() => ({
      pwned: window.PWNED === true,
      frames: [...document.querySelectorAll('iframe')].map((f) => f.src),
      scripts: [...document.querySelectorAll('script')].map((s) => s.src),
      refused: document.getElementById('refused').hidden ? null : document.getElementById('refused').innerText,
      refusedParam: document.body.dataset.refused ?? null,
    }));
  };
  return { page, context, violations, seen, visit };
}

// One URL in a fresh context.
async function openExample(url) {
  const ex = await examplePage();
  return { ...ex, state: await ex.visit(url) };
}

const hostile = (evilOrigin) => [
  ['lab', "javascript:console.log('PWNED lab');alert('PWNED');//"],
  ['lab', "JavaScript:top.PWNED=true;//"],
  ['lab', ' javascript:alert(1)//'],
  ['lab', 'data:text/html,<script>alert("PWNED")</script>'],
  ['lab', '//evil.example/index.html'],
  ['lab', `${evilOrigin}/x/index.html`],
  ['lab', '\\\\evil.example/index.html'],
  ['base', "javascript:alert('PWNED')//"],
  ['base', 'data:text/javascript,console.log("PWNED")//'],
  ['base', '//evil.example/x/'],
  ['base', `${evilOrigin}/x/`],
];

test('embed-example.html over http: ?lab= and ?base= naming script or another origin are refused in place; nothing loads, no script runs', { timeout: 90000 }, async () => {
  const { context, violations, seen, visit } = await examplePage();
  for (const [param, value] of hostile(evil.origin)) {
    const url = `${lab.url}embed-example.html?${new URLSearchParams({ [param]: value, exercises: 'hand-calc' })}`;
    const state = await visit(url);
    const what = `?${param}=${value}`;
    assert.deepEqual(seen.dialogs, [], `${what}: a dialog opened`);
    assert.deepEqual(seen.pwned, [], `${what}: script ran`);
    assert.equal(state.pwned, false, `${what}: window.PWNED was set`);
    assert.deepEqual(state.frames, [], `${what}: frames were created`);
    assert.deepEqual(state.scripts, [`${lab.url}embed-example.js`], `${what}: another script was added`);
    assert.equal(state.refusedParam, param, `${what}: not refused`);
    // The message names the parameter and shows the value as text, in both languages.
    assert.match(state.refused, /この URL は使えません/);
    assert.match(state.refused, /This URL is refused/);
    assert.ok(state.refused.includes(`?${param}=`) && state.refused.includes(value.trim().slice(0, 20)), state.refused);
    assert.deepEqual(seen.errors, [], what);
    assert.deepEqual(violations, [], what);
  }
  await context.close();
});

test('embed-example.html over http: same-origin paths are still taken (the lab from its folder, or named by ?lab=)', { timeout: 90000 }, async () => {
  const { page, context, violations, seen, visit } = await examplePage();
  for (const extra of [{}, { lab: '/index.html' }, { base: '/' }, { base: lab.url }]) {
    const state = await visit(`${lab.url}embed-example.html?${new URLSearchParams({ ...extra, exercises: 'hand-calc', learner: 'sec' })}`);
    assert.equal(state.refused, null, JSON.stringify(extra));
    assert.equal(state.frames.length, 1);
    assert.equal(new URL(state.frames[0]).origin, lab.origin);
    assert.equal(new URL(state.frames[0]).pathname, '/index.html');
    assert.ok(state.scripts.includes(`${lab.url}embed.js`), state.scripts.join());
    await page.frames()[1].waitForSelector('[data-exercise="hand-calc"][data-ready="true"]', { timeout: 30000 });
    assert.deepEqual(seen.errors, [], JSON.stringify(extra));
    assert.deepEqual(violations, [], JSON.stringify(extra));
  }
  await context.close();
});

test('embed-example.html from file://: only relative paths inside its folder; file:///… elsewhere, ../ and http are refused', { timeout: 90000 }, async () => {
  const page0 = pathToFileURL(join(dist, 'embed-example.html')).href;
  const refused = [
    ['lab', 'file:///etc/passwd'],
    ['lab', '../index.html'],
    ['lab', '/etc/passwd'],
    ['lab', `${evil.origin}/x/index.html`],
    ['lab', "javascript:alert('PWNED')//"],
    ['base', '../'],
    ['base', `${evil.origin}/x/`],
  ];
  const shared = await examplePage();
  for (const [param, value] of refused) {
    const state = await shared.visit(`${page0}?${new URLSearchParams({ [param]: value, exercises: 'hand-calc' })}`);
    assert.equal(state.refusedParam, param, `?${param}=${value}`);
    assert.deepEqual(state.frames, []);
    assert.deepEqual(shared.seen.dialogs, []);
    assert.deepEqual(shared.seen.pwned, []);
    // What the context's close() would say of this case's document (CSP violations).
    assert.deepEqual(shared.violations, [], `?${param}=${value}`);
  }
  await shared.context.close();
  const { context, state } = await openExample(`${page0}?${new URLSearchParams({ lab: 'index.html', exercises: 'rope' })}`);
  assert.equal(state.refused, null);
  assert.equal(state.frames.length, 1);
  assert.ok(state.frames[0].startsWith(pathToFileURL(join(dist, 'index.html')).href));
  await context.close();
});

test('every HTML page in dist/ has a CSP: default-src \'self\', object-src \'none\', base-uri \'none\', no unsafe-eval', () => {
  const pages = readdirSync(dist).filter((f) => f.endsWith('.html'));
  assert.ok(pages.includes('index.html') && pages.includes('embed-example.html'), pages.join());
  for (const f of pages) {
    const html = readFileSync(join(dist, f), 'utf8');
    const policy = metaPolicy(html);
    assert.ok(policy, `${f} has no CSP <meta>`);
    const directives = Object.fromEntries(policy.split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map(([k, ...v]) => [k, v]));
    assert.deepEqual(directives['default-src'], ["'self'"], f);
    assert.deepEqual(directives['object-src'], ["'none'"], f);
    assert.deepEqual(directives['base-uri'], ["'none'"], f);
    assert.ok(!/'unsafe-eval'/.test(policy), `${f}: unsafe-eval`);
    assert.ok(!/'unsafe-inline'/.test(directives['script-src']?.join(' ') ?? ''), `${f}: inline scripts allowed`);
    // Every inline <script> would be refused: there is none.
    assert.ok(!/<script(?![^>]*\bsrc=)[^>]*>/i.test(html), `${f} has an inline <script>`);
  }
  // The lab may later start a Worker from a blob: (file://): allowed, and only that.
  const index = metaPolicy(readFileSync(join(dist, 'index.html'), 'utf8'));
  assert.match(index, /worker-src 'self' blob:(;|$)/);
});

test('npm start\'s server: each page\'s CSP as a header with frame-ancestors (FRAME_ANCESTORS), nosniff, no-referrer; a bad FRAME_ANCESTORS stops it', async () => {
  for (const page of ['', 'index.html', 'embed-example.html']) {
    const r = await fetch(lab.url + page);
    const html = await r.text();
    assert.equal(r.headers.get('content-security-policy'), `${metaPolicy(html)}; frame-ancestors 'self'`, page);
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(r.headers.get('referrer-policy'), 'no-referrer');
  }
  const js = await fetch(`${lab.url}app.js`);
  assert.equal(js.headers.get('x-content-type-options'), 'nosniff');
  assert.equal((await fetch(`${lab.url}missing`)).headers.get('x-content-type-options'), 'nosniff');
  const other = await serve({ root: dist, port: 0, frameAncestors: "'self' https://lms.example.edu" });
  try {
    const r = await fetch(other.url);
    assert.match(r.headers.get('content-security-policy'), /; frame-ancestors 'self' https:\/\/lms\.example\.edu$/);
  } finally {
    other.server.close();
  }
  // A value that would add a directive is refused, naming the variable.
  for (const bad of ["'self'; script-src *", 'https://a.example, https://b.example', "'unsafe-inline'"]) {
    assert.throws(() => serve({ root: dist, port: 0, frameAncestors: bad }), /FRAME_ANCESTORS must be/);
    const run = spawnSync(process.execPath, [join(root, 'scripts', 'serve.mjs')], { env: { ...process.env, PORT: '0', FRAME_ANCESTORS: bad }, encoding: 'utf8', timeout: 10000 });
    assert.equal(run.status, 2, bad);
    assert.match(run.stderr, /FRAME_ANCESTORS must be/);
  }
});

test('the default frame-ancestors \'self\' keeps the lab out of another origin\'s frame', { timeout: 60000 }, async () => {
  writeFileSync(join(evilDir, 'framer.html'), `<!doctype html><title>framer</title><iframe id="f" src="${lab.url}index.html?exercise=hand-calc&embed=1"></iframe>`);
  const context = await browser.newContext();
  const page = await context.newPage();
  // goto waits for the framer's load event, which waits for its frame's
  // document: the lab, or the error page Chromium shows in place of a refused one.
  await page.goto(`${evil.origin}/x/framer.html`);
  const frame = page.frames().find((f) => f !== page.mainFrame());
  assert.match(frame.url(), /^chrome-error:/, `the frame holds Chromium's error page, not the lab: ${frame.url()}`);
  // Chromium shows an error page in place of the refused document: it never gets ready.
  const ready = await frame.evaluate(() => !!document.querySelector('[data-ready="true"]')).catch(() => false);
  assert.equal(ready, false);
  await context.close();
});

test('the tests\' CSP watcher sees a violation and fails the context\'s close()', { timeout: 60000 }, async () => {
  const context = await browser.newContext();
  const violations = await watchCsp(context);
  const page = await context.newPage();
  await page.goto(`${lab.url}index.html`);
  await page.waitForSelector('.start[data-ready="true"]', { timeout: 30000 });
  await page.evaluate((src) => {
    const img = document.createElement('img');
    img.src = src;
    document.body.append(img);
  }, `${evil.origin}/x/pixel.png`);
  // The report comes back through the binding: wait for it (bounded for a hung page), not for a time.
  for (let i = 0; i < 400 && !violations.length; i++) await new Promise((r) => setTimeout(r, 50));
  // Once per policy that refuses it (the <meta> and the header).
  assert.ok(violations.length >= 1);
  for (const v of violations) assert.match(v, /img-src refused http:\/\/127\.0\.0\.1:\d+\/x\/pixel\.png/);
  await assert.rejects(() => context.close(), /Content-Security-Policy violations/);
});

test('a sentence with a lone surrogate (pasted broken text) is refused on the page in its language, naming the character', { timeout: 60000 }, async () => {
  for (const [lang, want] of [['ja', /テキストの 3 文字目が壊れた文字（対になっていないサロゲート U\+D800）です/], ['en', /character 3 is broken \(a lone surrogate, U\+D800\)/]]) {
    const context = await browser.newContext();
    const violations = await watchCsp(context);
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${lab.url}index.html#ex=reorder${lang === 'en' ? '&lang=en' : ''}`);
    await page.waitForSelector('[data-exercise="reorder"][data-ready="true"]', { timeout: 30000 });
    // Text pasted from a broken source: the field's value is set as a paste would leave it, then applied with a real click.
    await page.locator('.sentence-input').evaluate((el) => {
      el.value = '犬が\uD800猫を追いかけた';
    });
    await page.locator('.sentence-control button[type="submit"]').click();
    const box = page.locator('.core-error').first();
    await box.waitFor({ timeout: 10000 });
    assert.match(await box.innerText(), want);
    // Said in the page's language only (the core's English text is for unknown codes), from the code.
    assert.equal(await box.getAttribute('data-code'), 'invalid_text');
    assert.deepEqual(errors, []);
    await context.close();
    assert.deepEqual(violations, []);
  }
});
