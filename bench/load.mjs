// `npm run bench` (after run.mjs), or alone: `node bench/load.mjs`. What a
// first visit costs over http: the page served by scripts/serve.mjs (Brotli),
// opened in headless Chromium with an empty cache, until the start page is
// ready and the core answers (body[data-core]); then the training Worker is
// started too, since it also needs the core. Prints:
//   - bytes on the wire (every byte the server wrote: headers and
//     compressed bodies), in all and before the start page is interactive,
//     and each file's requests and size as Chromium received it (Brotli);
//   - time to interactive, unthrottled and on an emulated slow link (CDP
//     Network.emulateNetworkConditions: 1.6 Mbps down, 750 kbps up, 150 ms),
//     median of POSLAB_LOAD_RUNS (default 3).
// Writes bench/results/load.json. A measurement, never a test.
// Environment: POSLAB_DIST (default dist/), CHROMIUM (default /usr/bin/chromium).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../scripts/serve.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.resolve(process.env.POSLAB_DIST || path.join(root, 'dist'));
const RUNS = Number(process.env.POSLAB_LOAD_RUNS || 3);
const SLOW = { offline: false, latency: 150, downloadThroughput: (1.6e6 / 8), uploadThroughput: (750e3 / 8) };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

async function visit(browser, base, counter, network) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  if (network) await cdp.send('Network.emulateNetworkConditions', network);
  const requests = [];
  const encodings = {};
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  page.on('response', (r) => (encodings[new URL(r.url()).pathname] = r.headers()['content-encoding'] ?? 'identity'));
  const before = counter.bytes();
  const t0 = Date.now();
  await page.goto(base, { waitUntil: 'commit' });
  await page.waitForSelector('.start[data-ready="true"]', { timeout: 300000 });
  await page.waitForFunction(() => document.body.dataset.core, null, { timeout: 300000 });
  const interactive = (Date.now() - t0) / 1000;
  const bytesToInteractive = counter.bytes() - before;
  const core = await page.evaluate(() => document.body.dataset.core);
  // The other Worker that needs the core: training (few steps).
  await page.goto(base + '#ex=train-short-test-long&schemes=none&seeds=1&steps=5');
  await page.waitForSelector('[data-widget="train"] .train-button', { timeout: 300000 });
  await page.click('[data-widget="train"] .train-button');
  await page.waitForSelector('[data-widget="train"][data-status="done"]', { timeout: 300000 });
  await page.waitForTimeout(200);
  const bytes = counter.bytes() - before;
  await context.close();
  return { interactive, core, bytes, bytesToInteractive, requests, encodings };
}

async function main() {
  const { server, url } = await serve({ root: dist, port: 0 });
  let written = 0;
  const sockets = new Set();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => {
      written += s.bytesWritten;
      sockets.delete(s);
    });
  });
  const counter = { bytes: () => written + [...sockets].reduce((n, s) => n + s.bytesWritten, 0) };
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const fast = [];
    const slow = [];
    for (let i = 0; i < RUNS; i++) {
      fast.push(await visit(browser, url, counter, null));
      slow.push(await visit(browser, url, counter, SLOW));
    }
    const first = fast[0];
    const files = {};
    for (const p of first.requests) files[p] = (files[p] ?? 0) + 1;
    const sizes = {};
    for (const p of Object.keys(files)) {
      // The size as Chromium received it (Brotli from scripts/serve.mjs).
      const r = await fetch(new URL(p, url), { headers: { 'accept-encoding': first.encodings[p] ?? 'identity' } });
      const body = Buffer.from(await r.arrayBuffer()); // Node's fetch decodes: ask the raw length instead
      sizes[p] = Number(r.headers.get('content-length')) || body.length;
    }
    const report = {
      date: new Date().toISOString(),
      dist: path.relative(root, dist) || '.', // relative: no machine's path in a committed result
      core: first.core,
      first_load_bytes: median(fast.map((v) => v.bytes)),
      bytes_to_interactive: median(fast.map((v) => v.bytesToInteractive)),
      files: Object.fromEntries(Object.keys(files).map((p) => [p, { requests: files[p], encoding: first.encodings[p] ?? 'identity', bytes: sizes[p] }])),
      interactive_s: { unthrottled: median(fast.map((v) => v.interactive)), slow_link: median(slow.map((v) => v.interactive)), slow_link_runs: slow.map((v) => v.interactive) },
      slow_link: SLOW,
    };
    const lines = [];
    lines.push(`first visit over http (${dist}), core in ${report.core}; start page, then a training run:`);
    for (const [p, f] of Object.entries(report.files)) lines.push(`  ${p.padEnd(42)} ${String(f.requests).padStart(2)}× ${(f.bytes / 1024).toFixed(1).padStart(8)} KiB ${f.encoding}`);
    lines.push(`  on the wire (headers + bodies): ${(report.first_load_bytes / 1e6).toFixed(3)} MB (${report.first_load_bytes} bytes), ` +
      `of which ${(report.bytes_to_interactive / 1e6).toFixed(3)} MB before the start page is interactive (target: ≤ 1 MB in all)`);
    lines.push(`time to interactive (start page ready, core answering), median of ${RUNS}: ` +
      `${report.interactive_s.unthrottled.toFixed(2)} s unthrottled, ${report.interactive_s.slow_link.toFixed(2)} s at 1.6 Mbps / 150 ms (target: ≤ 3 s; runs: ${report.interactive_s.slow_link_runs.map((x) => x.toFixed(2)).join(', ')})`);
    console.log(lines.join('\n'));
    fs.mkdirSync(path.join(root, 'bench/results'), { recursive: true });
    fs.writeFileSync(path.join(root, 'bench/results/load.json'), JSON.stringify(report, null, 2) + '\n');
  } finally {
    await browser.close();
    server.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
