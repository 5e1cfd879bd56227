// `npm run bench` (after ui.mjs), or alone: `node bench/workers.mjs`. Training
// across Web Workers (issue 25), in one run side by side, in headless
// Chromium on the real page from dist/ (served as scripts/serve.mjs does):
//   exercise 7's default run (5 schemes × 3 seeds × 400 steps): "before" is
//     one Worker with the core's plain training loops (kernels=reference in
//     the link: the code before issue 25), "after" is N = the browser's
//     navigator.hardwareConcurrency Workers (capped at 8) with the kernels,
//     and one Worker with the kernels shows what each change gave,
//   exercise 9's Part 2 (two seeds): the same "before", 1 and 2 Workers,
//   the training scaling 1 → 2 Workers (both with the kernels).
// Each figure is the page's own time for the run (the session's seconds,
// from the press of Train to the last result, Workers' start included), the
// median of POSLAB_WORKERS_RUNS runs (default 3), the set-ups alternating
// (before, 1, N, before, 1, N, …) so that a noisy neighbour hurts all alike.
// Every run's numbers (results and losses, looked up by run: with several
// Workers the tab keeps the losses in the order the runs reported) are
// compared with the first run's and the bench says whether they are the same. Prints each row beside the issue's target and
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
async function runOnce(browser, base, { hash, widget, store }, { workers, kernels }) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await page.goto(`${base}#${hash}&workers=${workers}${kernels ? `&kernels=${kernels}` : ''}`, { waitUntil: 'commit' });
    const ex = new URLSearchParams(hash).get('ex');
    await page.waitForSelector(`[data-exercise="${ex}"][data-ready="true"]`, { timeout: 120000 });
    await page.locator(`${widget} .train-button`).focus();
    await page.keyboard.press('Enter');
    await page.waitForSelector(`${widget}[data-status="done"][data-workers="${workers}"]`, { timeout: 1800000 });
    const kept = JSON.parse(await page.evaluate((key) => (key ? sessionStorage.getItem(key) : Object.keys(sessionStorage).map((k) => sessionStorage.getItem(k)).find((v) => v.startsWith('{"v":1,'))), store));
    // The session's own seconds: exercise 7 keeps them; exercise 9's are in its outcome line.
    let seconds = kept.seconds;
    if (seconds === undefined) seconds = Number((await page.locator(`${widget} .extrap-outcome`).textContent()).match(/([\d.]+)\s*(s|秒)/)[1]);
    // Losses by run key, in key order (the tab keeps them in the order the runs reported).
    const losses = kept.losses ? Object.keys(kept.losses).sort().map((k) => [k, kept.losses[k]]) : null;
    const numbers = JSON.stringify(kept.results.map(({ seconds: _s, ...r }) => r)) + JSON.stringify(losses);
    return { seconds, numbers };
  } finally {
    await context.close();
  }
}

// setups: { label: { workers, kernels? } }, measured in turn RUNS times.
async function compare(browser, base, job, setups) {
  const labels = Object.keys(setups);
  const times = Object.fromEntries(labels.map((l) => [l, []]));
  let reference = null;
  let same = true;
  for (let i = 0; i < RUNS; i++) {
    for (const l of labels) {
      const r = await runOnce(browser, base, job, setups[l]);
      log(`${job.name}: ${l}, run ${i + 1}/${RUNS}: ${r.seconds.toFixed(1)} s`);
      times[l].push(r.seconds);
      reference ??= r.numbers;
      if (r.numbers !== reference) same = false;
    }
  }
  return { setups, times, medians: Object.fromEntries(labels.map((l) => [l, median(times[l])])), same };
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
    const setups7 = { before: { workers: 1, kernels: 'reference' }, 1: { workers: 1 }, 2: { workers: 2 } };
    if (n !== 2 && n !== 1) setups7[n] = { workers: n };
    const ex7 = await compare(browser, url, EX7, setups7);
    const ex9 = await compare(browser, url, EX9, { before: { workers: 1, kernels: 'reference' }, 1: { workers: 1 }, 2: { workers: 2 } });
    const after = Math.max(2, n);
    const r7 = ex7.medians.before / ex7.medians[after];
    const r7k = ex7.medians.before / ex7.medians[1];
    const r2 = ex7.medians[1] / ex7.medians[2];
    const r9 = ex9.medians.before / ex9.medians[2];
    const cpu = os.cpus()[0]?.model ?? 'unknown';
    const s1 = (x) => `${x.toFixed(1).padStart(5)} s`;
    console.log(`\nTraining across Web Workers, Chromium (${cpu}, ${os.cpus().length} CPUs, navigator.hardwareConcurrency ${hardware}); medians of ${RUNS} run(s)`);
    console.log('  "before": 1 Worker, plain loops (kernels=reference); "after": the kernels, as many Workers as cores (at least 2)');
    console.log(`  exercise 7 default run (5×3×400)   before ${s1(ex7.medians.before)}   1 Worker kernels ${s1(ex7.medians[1])} (${r7k.toFixed(2)}×)   after (${after} Workers) ${s1(ex7.medians[after])}   ${r7.toFixed(2)}×   same numbers: ${ex7.same ? 'yes' : 'NO'}   (target ≥ 3× and ≤ 20 s on a quiet machine)`);
    console.log(`  exercise 9 Part 2, two seeds       before ${s1(ex9.medians.before)}   1 Worker kernels ${s1(ex9.medians[1])}   after (2 Workers) ${s1(ex9.medians[2])}   ${r9.toFixed(2)}×   same numbers: ${ex9.same ? 'yes' : 'NO'}   (target ≤ 4 s)`);
    console.log(`  scaling 1 → 2 Workers, training    ${r2.toFixed(2)}× (exercise 7's default run, kernels in both)   (target ≥ 1.8×)`);
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
          exercise7: { ...ex7, workers: after, speedup: r7, speedup_kernels_alone: r7k, target: '≥ 3× the one-Worker plain-loops run; ≤ 20 s on a quiet machine' },
          exercise9: { ...ex9, workers: 2, speedup: r9, target_s: 4 },
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
