// `npm run bench` (after ui.mjs), or alone: `node bench/workers.mjs`. Training
// across Web Workers (issue 25), in one run side by side, in headless
// Chromium on the real page from dist/ (served as scripts/serve.mjs does):
//   exercise 7's default run (5 schemes × 3 seeds × 400 steps) by 1 Worker
//     and by N = the browser's navigator.hardwareConcurrency (capped at 8),
//   exercise 9's Part 2 (two seeds) by 1 and by 2 Workers,
//   the training scaling 1 → 2 Workers (exercise 7's default run; measured
//     again only when N is not 2).
// Each figure is the page's own time for the run (the session's seconds,
// from the press of Train to the last result, Workers' start included), the
// median of POSLAB_WORKERS_RUNS runs (default 3), the counts alternating
// (1, N, 1, N, …) so that a noisy neighbour hurts both alike. Every run's
// numbers are compared with the first one-Worker run's and the bench says
// whether they are the same. Prints each row beside the target and
// writes bench/results/workers.json. A measurement, never a test.
// Environment: POSLAB_WORKERS_RUNS, POSLAB_DIST (default dist/), CHROMIUM
// (default /usr/bin/chromium).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../scripts/serve.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.resolve(process.env.POSLAB_DIST || path.join(root, 'dist'));
const RUNS = Math.max(1, Number(process.env.POSLAB_WORKERS_RUNS || 3));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const log = (msg) => process.stderr.write(`bench/workers: ${msg}\n`);

// One run on a fresh page (a fresh tab: no kept run): press Train, wait for
// this run's end (done, by this many Workers), read what the tab kept.
async function runOnce(browser, base, { hash, widget, store }, workers) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await page.goto(`${base}#${hash}&workers=${workers}`, { waitUntil: 'commit' });
    const ex = new URLSearchParams(hash).get('ex');
    await page.waitForSelector(`[data-exercise="${ex}"][data-ready="true"]`, { timeout: 120000 });
    await page.locator(`${widget} .train-button`).focus();
    await page.keyboard.press('Enter');
    await page.waitForSelector(`${widget}[data-status="done"][data-workers="${workers}"]`, { timeout: 1800000 });
    const kept = JSON.parse(await page.evaluate((key) => (key ? sessionStorage.getItem(key) : Object.keys(sessionStorage).map((k) => sessionStorage.getItem(k)).find((v) => v.startsWith('{"v":1,'))), store));
    // The session's own seconds: exercise 7 keeps them; exercise 9's are in its outcome line.
    let seconds = kept.seconds;
    if (seconds === undefined) seconds = Number((await page.locator(`${widget} .extrap-outcome`).textContent()).match(/([\d.]+)\s*(s|秒)/)[1]);
    const numbers = JSON.stringify(kept.results.map(({ seconds: _s, ...r }) => r)) + JSON.stringify(kept.losses ?? null);
    return { seconds, numbers };
  } finally {
    await context.close();
  }
}

async function pair(browser, base, job, counts) {
  const times = Object.fromEntries(counts.map((c) => [c, []]));
  let reference = null;
  let same = true;
  for (let i = 0; i < RUNS; i++) {
    for (const c of counts) {
      const r = await runOnce(browser, base, job, c);
      log(`${job.name}: ${c} Worker(s), run ${i + 1}/${RUNS}: ${r.seconds.toFixed(1)} s`);
      times[c].push(r.seconds);
      reference ??= r.numbers;
      if (r.numbers !== reference) same = false;
    }
  }
  return { counts, times, medians: Object.fromEntries(counts.map((c) => [c, median(times[c])])), same };
}

const EX7 = { name: 'exercise 7 default run', hash: 'ex=train-short-test-long&lang=en', widget: '[data-widget="train"]', store: null };
const EX9 = { name: 'exercise 9 Part 2, two seeds', hash: 'ex=rope-extend&lang=en', widget: '[data-widget="run"]', store: 'poslab.rope-extend.run.v2' };

async function main() {
  if (!fs.existsSync(path.join(dist, 'index.html'))) throw new Error(`no site in ${dist}: run scripts/build.sh first`);
  const { server, url } = await serve({ root: dist, port: 0 });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  const loadStart = os.loadavg()[0];
  try {
    const probe = await browser.newPage();
    await probe.goto(url, { waitUntil: 'commit' });
    const hardware = await probe.evaluate(() => navigator.hardwareConcurrency);
    await probe.close();
    const n = Math.max(1, Math.min(8, hardware || 1));
    const counts7 = n === 2 ? [1, 2] : [1, 2, n].filter((c, i, a) => a.indexOf(c) === i);
    const ex7 = await pair(browser, url, EX7, counts7);
    const ex9 = await pair(browser, url, EX9, [1, 2]);
    const r7 = ex7.medians[1] / ex7.medians[n];
    const r2 = ex7.medians[1] / ex7.medians[2];
    const r9 = ex9.medians[1] / ex9.medians[2];
    const cpu = os.cpus()[0]?.model ?? 'unknown';
    console.log(`\nTraining across Web Workers, Chromium (${cpu}, ${os.cpus().length} CPUs, navigator.hardwareConcurrency ${hardware}); medians of ${RUNS} run(s)`);
    console.log(`  exercise 7 default run (5×3×400)   1 Worker ${ex7.medians[1].toFixed(1).padStart(6)} s   ${n} Workers ${ex7.medians[n].toFixed(1).padStart(6)} s   ${r7.toFixed(2)}×   same numbers: ${ex7.same ? 'yes' : 'NO'}   (target ≥ 3× the one-Worker run, ≤ 20 s on a quiet machine; was 58 s)`);
    console.log(`  exercise 9 Part 2, two seeds       1 Worker ${ex9.medians[1].toFixed(1).padStart(6)} s   2 Workers ${ex9.medians[2].toFixed(1).padStart(6)} s   ${r9.toFixed(2)}×   same numbers: ${ex9.same ? 'yes' : 'NO'}   (target ≤ 4 s; was about 10 s)`);
    console.log(`  scaling 1 → 2 Workers, training    ${r2.toFixed(2)}× (exercise 7's default run)   (target ≥ 1.8×)`);
    const loadEnd = os.loadavg()[0];
    console.log(`  (machine load average: ${loadStart.toFixed(1)} at the start, ${loadEnd.toFixed(1)} at the end)`);
    const out = path.join(root, 'bench/results');
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(
      path.join(out, 'workers.json'),
      JSON.stringify(
        {
          date: new Date().toISOString(),
          machine: { cpu, cpus: os.cpus().length, hardwareConcurrency: hardware, chromium: browser.version(), load_average_start: loadStart, load_average_end: loadEnd },
          runs: RUNS,
          exercise7: { ...ex7, workers: n, speedup: r7, target: '≥ 3× the one-Worker run; ≤ 20 s on a quiet machine', before_s: 58 },
          exercise9: { ...ex9, speedup: r9, target_s: 4, before_s: 10 },
          scaling_1_to_2: { speedup: r2, target: 1.8 },
        },
        null,
        2,
      ) + '\n',
    );
  } finally {
    await browser.close();
    await new Promise((ok) => server.close(ok));
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
