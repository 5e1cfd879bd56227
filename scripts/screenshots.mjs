// node scripts/screenshots.mjs [OUTDIR] [ids…] — screenshots of the start
// page and every exercise (or the ids given; "start" for the start page) from
// dist/, in ja and en, at 1280×800 and 390×844, each the first screen
// (NAME-first.png) and the full page (NAME-full.png), for a person to look
// at. OUTDIR is test-artifacts/screens unless given (not committed; an
// argument that is an exercise id or "start" is taken as an id). LANGS=en and
// SIZES=1280x800 narrow it; SLICES=1 also cuts each full page into slices
// that an image viewer shows at full size. Prints, per page, the main
// visual's box (top, width, height) and any box that scrolls sideways.
import { chromium } from 'playwright-core';
import { readdirSync, readFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from './serve.mjs';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const yaml = createRequire(import.meta.url)('js-yaml');
const ids = readdirSync(join(root, 'exercises')).filter((f) => /^\d.*\.yaml$/.test(f)).map((f) => yaml.load(readFileSync(join(root, 'exercises', f), 'utf8')).id);
const args = process.argv.slice(2);
const out = args.length && !ids.includes(args[0]) && args[0] !== 'start' ? args.shift() : join(root, 'test-artifacts', 'screens');
const only = args;
mkdirSync(out, { recursive: true });
const { server, url } = await serve({ root: join(root, 'dist'), port: 0 });
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const langs = (process.env.LANGS ?? 'ja,en').split(',');
const sizes = (process.env.SIZES ?? '1280x800,390x844').split(',').map((s) => s.split('x').map(Number));
for (const [w, hgt] of sizes) {
  const ctx = await b.newContext({ viewport: { width: w, height: hgt } });
  const p = await ctx.newPage();
  p.on('console', (m) => { if (m.type() === 'error') console.log('console error:', m.text()); });
  for (const lang of langs) {
    for (const ex of ['start', ...ids]) {
      if (only.length && !only.includes(ex)) continue;
      const hash = new URLSearchParams();
      if (ex !== 'start') hash.set('ex', ex);
      if (lang !== 'ja') hash.set('lang', lang);
      await p.goto(url + '#' + hash);
      await p.reload();
      await p.waitForSelector(ex === 'start' ? '.start[data-ready="true"]' : `[data-exercise="${ex}"][data-ready="true"]`, { timeout: 60000 });
      await p.waitForFunction(() => ![...document.querySelectorAll('[data-widget]')].some((w) => w.querySelector('.loading, [aria-busy="true"]')), null, { timeout: 60000 }).catch(() => {});
      // Drawn: nothing busy, the fonts in, two frames painted since.
      await p.waitForFunction(() => !document.querySelector('[data-busy]'), null, { timeout: 60000 }).catch(() => {});
      await p.evaluate(() => document.fonts.ready.then(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)))));
      const name = `${out}/${ex}-${lang}-${w}`;
      await p.screenshot({ path: `${name}-first.png` });
      // What the page draws only when it comes near the screen (exercise 6's
      // heatmaps: web/js/lazy-draw.js) is drawn for the full page, as a person
      // scrolling down would see it: each waiting block scrolled to in turn.
      for (let n = await p.locator('[data-deferred]').count(); n > 0; n = await p.locator('[data-deferred]').count()) {
        await p.locator('[data-deferred]').first().scrollIntoViewIfNeeded();
        await p.waitForFunction((k) => document.querySelectorAll('[data-deferred]').length < k, n, { timeout: 60000 });
      }
      await p.evaluate(() => window.scrollTo(0, 0));
      await p.screenshot({ path: `${name}-full.png`, fullPage: true });
      if (process.env.SLICES) {
        const total = await p.evaluate(() => document.documentElement.scrollHeight);
        const step = w > 800 ? 1100 : 1600;
        for (let y = 0, k = 0; y < total; y += step, k++) await p.screenshot({ path: `${name}-s${k}.png`, fullPage: true, clip: { x: 0, y, width: w, height: Math.min(step, total - y) } });
      }
      const info = await p.evaluate(() => {
        const mv = document.querySelector('[data-main-visual]');
        const r = mv?.getBoundingClientRect();
        const overflow = [...document.querySelectorAll('.hm-scroll, .table-scroll, [class*="scroll"], .math-block')].filter((e) => e.scrollWidth > e.clientWidth + 1 && e.getBoundingClientRect().width > 0).map((e) => `${e.className}:${e.scrollWidth}/${e.clientWidth}`);
        return { mv: r ? [Math.round(r.top), Math.round(r.width), Math.round(r.height)] : null, page: document.documentElement.scrollHeight, docOverflow: document.documentElement.scrollWidth > innerWidth, overflow };
      });
      console.log(ex, lang, w, JSON.stringify(info));
    }
  }
  await ctx.close();
}
await b.close();
server.close();
