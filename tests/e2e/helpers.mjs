// Shared by the browser tests: a static server on a free port, headless
// Chromium (flags from the toolchain notes, fresh profile), request and
// console watchers, and the core loaded in Node for expected values.
import { chromium } from 'playwright-core';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serve } from '../../scripts/serve.mjs';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const dist = join(root, 'dist');
export const artifacts = join(root, 'test-artifacts');
// The native CLI the re-grade tests run (POSLAB_CLI overrides).
export const cliPath = resolve(process.env.POSLAB_CLI || join(root, 'build/native/poslab'));

// POSLAB_TIMEOUT_SCALE (tests/e2e/timeout-scale.mjs): the waits below, and
// the Playwright default timeout of the pages openPage() makes, times k.
export const TIMEOUT_SCALE = Math.min(20, Math.max(1, Number(process.env.POSLAB_TIMEOUT_SCALE) || 1));

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

// An exercise file as the lab reads it (exercises/NAME.yaml), for tests that
// take their expectations from the file rather than from the page.
export function exerciseFile(name) {
  return createRequire(import.meta.url)('js-yaml').load(readFileSync(join(root, 'exercises', name), 'utf8'));
}

// A test's own time limit, scaled as the helpers' waits are (POSLAB_TIMEOUT_SCALE).
export const T = (ms) => ms * TIMEOUT_SCALE;

export function requireDist() {
  for (const f of ['index.html', 'boot.js', 'app.js', 'poslab.js', 'poslab-web.js', 'poslab.wasm', 'worker.js', 'train-worker.js', 'katex/katex.min.css', 'katex/katex.min.js']) {
    if (!existsSync(join(dist, f))) throw new Error(`dist/${f} is missing: run npm run build first`);
  }
}

// The core in Node, from the very file the page loads.
export async function nodeCore() {
  const require = createRequire(import.meta.url);
  const factory = require(join(dist, 'poslab.js'));
  return factory();
}

// Runs in the page (page.evaluate(domSignature)): the parts of the DOM axe reads, with the links' base
// (http://127.0.0.1:PORT/ or file:///…/dist/index.html) replaced.
export function domSignature() {
  const body = document.body.cloneNode(true);
  for (const el of body.querySelectorAll('script')) el.remove();
  // Links as the page resolves them, the base cut off ("/#" over http is "/…/dist/index.html#" from file://).
  const base = new URL('.', location.href).href;
  for (const el of body.querySelectorAll('[href], [src]')) {
    for (const name of ['href', 'src']) {
      const v = el.getAttribute(name);
      if (v === null || v.startsWith('data:')) continue;
      const u = new URL(v, location.href).href;
      el.setAttribute(name, u.startsWith(base) ? `BASE/${u.slice(base.length).replace(/^index\.html/, '')}` : u);
    }
  }
  const head = [document.documentElement.getAttribute('lang'), document.title, ...[...document.head.querySelectorAll('meta')].map((m) => m.outerHTML)].join('\n');
  return (head + '\n' + body.outerHTML).replace(/(http:\/\/127\.0\.0\.1:\d+\/|file:\/\/\/[^"]*?\/dist\/)(index\.html)?/g, 'BASE/');
}

export async function startLab() {
  requireDist();
  mkdirSync(artifacts, { recursive: true });
  const { server, url } = await serve({ root: dist, port: 0 });
  // launch() always starts from a fresh, temporary profile (Playwright
  // refuses --user-data-dir here), so no state leaks between runs.
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  const bases = { http: url, file: pathToFileURL(join(dist, 'index.html')).href };
  return {
    browser,
    bases,
    async close() {
      await browser.close();
      await new Promise((ok) => server.close(ok));
    },
  };
}

// The pages' Content-Security-Policy is enforced in every test (the context
// never switches it off): every document (pages and frames) of the context reports its
// `securitypolicyviolation` events here, and closing the context throws when
// there was any, so a test that closes its context fails on a violation even
// if it checks nothing else. Returns the list (also for the test to assert on).
export async function watchCsp(context, violations = []) {
  await context.exposeBinding('__poslabCspViolation', (_source, v) => {
    violations.push(v);
  });
  await context.addInitScript(() => {
    document.addEventListener(
      'securitypolicyviolation',
      (e) => {
        const where = e.sourceFile ? ` at ${e.sourceFile}:${e.lineNumber}` : '';
        window.__poslabCspViolation?.(`${e.effectiveDirective} refused ${e.blockedURI || '(inline)'}${where} on ${location.href}`);
      },
      true,
    );
  });
  const close = context.close.bind(context);
  context.close = async (...args) => {
    await close(...args);
    if (violations.length) throw new Error(`Content-Security-Policy violations:\n${violations.join('\n')}`);
  };
  return violations;
}

// A page with watchers: every console error, page error, CSP violation and
// request that leaves the origin (dist/ over http, or the dist folder over
// file://) is kept.
// reducedMotion: 'reduce' emulates prefers-reduced-motion.
export async function openPage(lab, mode, { viewport = { width: 1100, height: 900 }, reducedMotion } = {}) {
  const context = await lab.browser.newContext({ viewport, reducedMotion });
  if (TIMEOUT_SCALE !== 1) context.setDefaultTimeout(30000 * TIMEOUT_SCALE);
  const problems = { console: [], offOrigin: [], csp: [] };
  await watchCsp(context, problems.csp);
  const page = await context.newPage();
  const origin = mode === 'http' ? new URL(lab.bases.http).origin : null;
  const distUrl = pathToFileURL(dist).href;
  page.on('console', (m) => {
    if (m.type() === 'error') problems.console.push(m.text());
  });
  page.on('pageerror', (e) => problems.console.push(`pageerror: ${e.message}`));
  page.on('request', (r) => {
    const u = r.url();
    if (u.startsWith('data:') || u.startsWith('blob:')) return;
    const ok = mode === 'http' ? u.startsWith(origin + '/') : u.startsWith(distUrl + '/');
    if (!ok) problems.offOrigin.push(u);
  });
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (mode === 'http' && !u.startsWith(origin + '/') && !u.startsWith('data:')) return route.abort();
    return route.continue();
  });
  return { page, context, problems };
}

export function urlFor(lab, mode, { ex, lang, extra = '' } = {}) {
  const hash = new URLSearchParams();
  if (ex) hash.set('ex', ex);
  if (lang && lang !== 'ja') hash.set('lang', lang);
  const h = hash.toString();
  return lab.bases[mode] + (h || extra ? `#${h}${extra}` : '');
}

// The selector of the page the URL names, once it is ready: data-ready on
// an exercise or the start page means everything its render started has
// landed (every widget drawn, every question's attempts line and saved
// answer, KaTeX or its plain fallback, every reply of the core's Worker;
// web/js/ready.js).
export function readySelector(url) {
  const u = new URL(url);
  const ex = new URLSearchParams(u.hash.replace(/^#/, '')).get('ex') ?? u.searchParams.get('ex');
  return ex ? `[data-exercise="${ex}"][data-ready="true"]` : '.start[data-ready="true"]';
}

export async function gotoReady(page, url) {
  // A navigation that changes only the hash returns before the page has
  // re-rendered, while the previous page still says data-ready (even for the
  // same exercise, e.g. another language): the old page's elements are
  // marked first, so the wait below is for the new render only.
  const here = page.url();
  const sameDocument = here !== 'about:blank' && here.split('#')[0] === url.split('#')[0] && here !== url;
  if (sameDocument) await page.evaluate(() => document.querySelectorAll('[data-ready]').forEach((el) => el.setAttribute('data-stale', '')));
  // Not goto's own wait for the load event (30 s, a bound on a loaded
  // machine's page load that says nothing): the page's data-ready is the wait.
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForSelector(`${readySelector(url)}:not([data-stale])`, { timeout: 60000 * TIMEOUT_SCALE });
}

// After an action on a ready exercise page (a control changed, a chip
// moved, an answer checked): waits until every core call it started has
// landed and been drawn (the page's data-busy is gone). The action's own
// calls start during the event, so this never returns before them.
export async function settled(page, { timeout = 30000 * TIMEOUT_SCALE } = {}) {
  await page.waitForSelector('#main > [data-ready="true"]:not([data-busy])', { timeout });
}

// The numbers of an output table, row by row (the page prints 3 decimals).
export async function tableNumbers(locator) {
  return locator.evaluate((table) => [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.textContent))));
}

// Blocks the page draws only as they near the viewport (web/js/lazy-draw.js:
// exercise 6's heatmaps), each scrolled to as a reader would, then drawn;
// then back to the top. For checks and full-page screenshots of everything.
export async function drawDeferred(page) {
  const deferred = page.locator('[data-deferred]');
  let any = false;
  for (let n = await deferred.count(); n > 0; n = await deferred.count()) {
    any = true;
    await deferred.first().scrollIntoViewIfNeeded();
    await page.waitForFunction((k) => document.querySelectorAll('[data-deferred]').length < k, n);
  }
  if (any) await page.evaluate(() => window.scrollTo(0, 0));
}

// Resolves after the page has drawn n more frames: for a negative check
// ("nothing moves") that follows a positive signal that the page already
// handled the action, never as "enough time for the page to update".
export async function nextFrames(page, n = 2) {
  await page.evaluate((k) => new Promise((done) => {
    const step = (left) => (left ? requestAnimationFrame(() => step(left - 1)) : done());
    step(k);
  }), n);
}

// TeX markers a student must never see: x_1, x_{12}, ^{…}, \command.
export const RAW_TEX = /[A-Za-z0-9)]_[A-Za-z0-9{]|\^\{|\\[A-Za-z]+/;

export function round3(x) {
  const s = x.toFixed(3);
  return Number(/^-0\.?0*$/.test(s) ? s.slice(1) : s);
}

export async function axeViolations(page) {
  // Evaluated, not added as a <script>: the page's CSP refuses inline scripts.
  await page.evaluate(readFileSync(join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
}

// Types values into a numeric question's fields, checks it, and returns the
// feedback the page shows (class, text, attempts line).
export async function answerNumeric(page, id, values) {
  const q = page.locator(`[data-question="${id}"]`);
  for (const [i, v] of values.entries()) await q.locator(`input[data-field="${i}"]`).fill(v);
  // Empty the old feedback first, so the wait below sees the new one.
  await q.locator('.feedback').evaluate((el) => el.replaceChildren());
  await q.locator('button[type="submit"]').click();
  await page.waitForFunction((qid) => document.querySelector(`[data-question="${qid}"] .feedback`)?.textContent.length > 0, id);
  return {
    cls: await q.locator('.feedback').getAttribute('class'),
    text: await q.locator('.feedback').innerText(),
    attempts: (await q.locator('.feedback .attempts').count()) ? await q.locator('.feedback .attempts').textContent() : null,
  };
}

// A widget that answers a question of its exercise (reveal_after) is drawn only
// once that question is settled: give up (recorded) to open it. Already open
// (settled earlier, e.g. in the other language of the same page): nothing to do.
export async function openGate(page, widgetId) {
  const w = `[data-widget="${widgetId}"]`;
  if (await page.locator(`${w}[data-revealed="true"]`).count()) return;
  await page.click(`${w} .reveal-locked .give-up`);
  await page.waitForSelector(`${w}[data-revealed="true"]`);
}

// Runs in the page (page.evaluate(firstDrawing)): where the main visual and its first drawing are, and the controls.
export function firstDrawing() {
  const main = document.querySelector('[data-main-visual]');
  // The drawing that comes first on the screen (CSS may set them in another order than the
  // document's: exercise 4's difference grid above its lines on a phone).
  const drawing = main && [...main.querySelectorAll('svg, canvas, .heatmap-grid, .hc-orders, .diff-grid, .clocks')].filter((e) => e.getBoundingClientRect().height > 20).sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)[0];
  const ctl = document.querySelector('.exercise .controls');
  const box = (e) => {
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, height: r.height };
  };
  return { main: box(main), drawing: box(drawing), drawingTag: drawing ? `${drawing.tagName}.${drawing.className.baseVal ?? drawing.className}` : null, controls: box(ctl), scrollX: document.documentElement.scrollWidth > window.innerWidth };
}
