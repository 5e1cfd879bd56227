// `npm run bench` (after load.mjs), or alone: `node bench/ui.mjs`. How fast
// the page answers its controls: the real page from dist/ (served as
// scripts/serve.mjs does) in headless Chromium at 1280×800, each control
// driven by the keyboard as a person would, POSLAB_UI_RUNS times (default 12).
// For each input the time runs from the event's timeStamp to the start of
// the first animation frame after the page's last DOM change caused by it
// (a MutationObserver on <main> and requestAnimationFrame: the frame that
// paints the answer, including the core's reply from its Worker). Prints the
// median and the slowest beside the issue's target (≤ 100 ms), and the frame
// rate while a reorder animation runs (document.getAnimations(); n/a when
// there is none) beside 60 fps. Writes bench/results/ui.json. A measurement,
// never a test: nothing here passes or fails.
// Environment: POSLAB_DIST (default dist/), CHROMIUM (default /usr/bin/chromium).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../scripts/serve.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.resolve(process.env.POSLAB_DIST || path.join(root, 'dist'));
const RUNS = Math.max(10, Number(process.env.POSLAB_UI_RUNS || 12));
const QUIET_MS = 250; // no DOM change for this long: the answer is complete
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// In the page: remembers the first input event after arm() and the frame after each DOM change.
function instrument() {
  const b = { armed: false, t0: null, lastChange: 0, frame: null, seq: 0 };
  window.__uiBench = b;
  for (const type of ['keydown', 'input', 'change']) {
    document.addEventListener(
      type,
      (e) => {
        if (b.armed && b.t0 === null) b.t0 = e.timeStamp;
      },
      true,
    );
  }
  new MutationObserver(() => {
    if (b.t0 === null) return;
    b.lastChange = performance.now();
    const id = ++b.seq;
    requestAnimationFrame((t) => {
      if (id === b.seq) b.frame = t;
    });
  }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  b.arm = () => Object.assign(b, { armed: true, t0: null, frame: null, lastChange: 0 });
  // Frame rate while any animation runs (CSS transitions and the Web Animations API alike).
  b.fps = (maxMs) =>
    new Promise((done) => {
      const start = performance.now();
      const frames = [];
      const tick = (t) => {
        const running = document.getAnimations().some((a) => a.playState === 'running');
        if (running) frames.push(t);
        if ((running || frames.length === 0) && performance.now() - start < maxMs) requestAnimationFrame(tick);
        else done(frames.length < 3 ? null : ((frames.length - 1) * 1000) / (frames[frames.length - 1] - frames[0]));
      };
      requestAnimationFrame(tick);
    });
}

async function settle(page) {
  await page.waitForFunction((q) => {
    const b = window.__uiBench;
    return b.t0 !== null && b.frame !== null && performance.now() - b.lastChange > q;
  }, QUIET_MS, { timeout: 60000, polling: 50 });
  return page.evaluate(() => {
    const b = window.__uiBench;
    b.armed = false;
    return b.frame - b.t0;
  });
}

async function open(browser, base, hash, ready) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(instrument);
  const page = await context.newPage();
  await page.goto(`${base}#${hash}`);
  await page.waitForSelector(ready, { timeout: 120000 });
  await page.waitForFunction(() => document.body.dataset.core, null, { timeout: 120000 });
  await page.waitForTimeout(500);
  return { page, context };
}

// Each control: where it is, how to reach it, and the key that changes it (alternating, so it goes back and forth).
const CONTROLS = [
  {
    name: 'reorder a chip by keyboard (grabbed chip, ← / →)',
    hash: 'ex=reorder&lang=en',
    ready: '[data-exercise="reorder"][data-ready="true"] .chips [role="option"]',
    async before(page) {
      await page.locator('.chips [role="option"]').first().focus();
    },
    async act(page, i) {
      // Grab the focused chip, move it (the measured input), drop it.
      await page.keyboard.press('Space');
      await page.waitForTimeout(50);
      await page.evaluate(() => window.__uiBench.arm());
      await page.keyboard.press(i % 2 ? 'ArrowLeft' : 'ArrowRight');
      const ms = await settle(page);
      await page.keyboard.press('Space');
      await page.waitForTimeout(150);
      return ms;
    },
    animation: true,
  },
  { name: 'position information on/off (select none ⇄ sinusoidal)', hash: 'ex=add-position&lang=en&pe=none', ready: '#ctl-pe', focus: '#ctl-pe', keys: ['ArrowDown', 'ArrowUp'] },
  { name: 'causal mask on/off (checkbox, Space)', hash: 'ex=causal-mask&lang=en', ready: '#ctl-mask', focus: '#ctl-mask', keys: ['Space'] },
  { name: 'sinusoidal clocks: position slider (→ / ←)', hash: 'ex=add-position&lang=en&pe=sinusoidal', ready: '#clocks-pos', focus: '#clocks-pos', keys: ['ArrowRight', 'ArrowLeft'] },
  { name: 'RoPE: m slider (→ / ←)', hash: 'ex=rope&lang=en', ready: '.rope-arrow', focus: '#rope-m', keys: ['ArrowRight', 'ArrowLeft'] },
  { name: 'ALiBi locality: length slider (→ / ←)', hash: 'ex=alibi&lang=en', ready: '#loc-length', focus: '#loc-length', keys: ['ArrowRight', 'ArrowLeft'] },
];

async function measure(browser, base, c) {
  const { page, context } = await open(browser, base, c.hash, c.ready);
  const times = [];
  let fps = null;
  try {
    if (c.before) await c.before(page);
    if (c.focus) await page.locator(c.focus).focus();
    for (let i = 0; i < RUNS; i++) {
      if (c.act) times.push(await c.act(page, i));
      else {
        await page.evaluate(() => window.__uiBench.arm());
        await page.keyboard.press(c.keys[i % c.keys.length]);
        times.push(await settle(page));
      }
    }
    if (c.animation) {
      // One more move, watching the frames while its animation runs.
      await page.keyboard.press('Space');
      await page.waitForTimeout(50);
      const watching = page.evaluate(() => window.__uiBench.fps(2000));
      await page.keyboard.press('ArrowRight');
      fps = await watching;
      await page.keyboard.press('Space');
    }
  } finally {
    await context.close();
  }
  return { name: c.name, runs: times.length, medianMs: median(times), maxMs: Math.max(...times), fps: c.animation ? fps : undefined };
}

async function main() {
  const { server, url } = await serve({ root: dist, port: 0 });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  const results = [];
  try {
    for (const c of CONTROLS) {
      try {
        results.push(await measure(browser, url, c));
      } catch (e) {
        results.push({ name: c.name, error: e.message.split('\n')[0] });
      }
    }
  } finally {
    await browser.close();
    await new Promise((ok) => server.close(ok));
  }
  console.log(`\nUI response at 1280×800, input → first frame after the answer (median of ${RUNS}; target ≤ 100 ms)`);
  const w = Math.max(...results.map((r) => r.name.length));
  for (const r of results) {
    if (r.error) console.log(`  ${r.name.padEnd(w)}  could not measure: ${r.error}`);
    else console.log(`  ${r.name.padEnd(w)}  median ${r.medianMs.toFixed(1).padStart(7)} ms   slowest ${r.maxMs.toFixed(1).padStart(7)} ms   (target ≤ 100 ms)`);
  }
  const anim = results.find((r) => 'fps' in r && r.fps !== undefined);
  console.log(`  reorder animation frame rate: ${anim && anim.fps !== null ? `${anim.fps.toFixed(1)} fps` : 'n/a (no animation ran)'}   (target 60 fps)`);
  console.log(`  (machine load average: ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')})`);
  const out = path.join(root, 'bench', 'results');
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, 'ui.json'), JSON.stringify({ date: new Date().toISOString(), runs: RUNS, viewport: '1280x800', targetMs: 100, targetFps: 60, results }, null, 2) + '\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
