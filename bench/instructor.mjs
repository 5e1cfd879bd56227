// `npm run bench` (after load.mjs), or alone: `node bench/instructor.mjs`.
// The class results page's re-grade time for 200 submissions: 200 files made
// as the lab page makes them (tests/e2e/class-submissions.mjs) are picked in
// dist/instructor.html, served over http, in headless Chromium; the time is
// the page's own, from the pick to the last file re-graded in its Worker
// (state.lastSeconds), median of POSLAB_INSTRUCTOR_RUNS (default 3), each in
// a fresh page. Target: under 2 s. Writes bench/results/instructor.json. A
// measurement, never a test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../scripts/serve.mjs';
import { makeClass } from '../tests/e2e/class-submissions.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.resolve(process.env.POSLAB_DIST || path.join(root, 'dist'));
const RUNS = Number(process.env.POSLAB_INSTRUCTOR_RUNS || 3);
const COUNT = 200;
const TARGET = 2;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

const require = createRequire(import.meta.url);
const lab = await require(path.join(dist, 'poslab.js'))();
const exercises = JSON.parse(fs.readFileSync(path.join(dist, 'exercises.json'), 'utf8'));
const { files } = makeClass(lab, exercises, COUNT);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'poslab-bench-instructor-'));
const paths = files.map((f) => {
  const p = path.join(dir, f.name);
  fs.writeFileSync(p, f.text);
  return p;
});

const { server, url } = await serve({ root: dist, port: 0 });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const runs = [];
try {
  for (let k = 0; k < RUNS; k++) {
    const page = await browser.newPage();
    await page.goto(new URL('instructor.html', url).href);
    await page.waitForSelector('#files', { state: 'attached' });
    await page.setInputFiles('#files', paths);
    await page.waitForSelector('#summary', { timeout: 300000 });
    runs.push(await page.evaluate(() => globalThis.__instructor.state.lastSeconds));
    await page.close();
  }
} finally {
  await browser.close();
  await new Promise((ok) => server.close(ok));
  fs.rmSync(dir, { recursive: true, force: true });
}
const m = median(runs);
console.log(`results page: re-grade of ${COUNT} submissions in the browser (Worker): median ${m.toFixed(2)} s of ${RUNS} (${runs.map((r) => r.toFixed(2)).join(', ')})   target < ${TARGET} s: ${m < TARGET ? 'met' : 'NOT met'}`);
fs.mkdirSync(path.join(root, 'bench', 'results'), { recursive: true });
fs.writeFileSync(path.join(root, 'bench', 'results', 'instructor.json'), `${JSON.stringify({ submissions: COUNT, runs, median: m, target: TARGET, cpus: os.cpus().length, load: os.loadavg() }, null, 1)}\n`);
