// `npm run bench` (after load.mjs), or alone: `node bench/tables.mjs`. Reading
// GPT-2's position table out of a model-sized file in headless Chromium: a
// ~500 MB .safetensors (a 50257 × 2500 F32 "token table" of real bytes, then
// a 1024 × 768 F32 wpe.weight) is written to the temp folder, opened in
// exercise 6 with the file input, and timed from choosing the file to the
// table's figures on the page (header + tensor read with File.slice in the
// Worker, decode, norms, heatmap, neighbour similarity, PCA), median of
// POSLAB_TABLE_RUNS (default 3). The file is deleted afterwards. Target: under
// 1 s to read the table (printed; a measurement, never a test). Then a
// 4096 × 4096 table, before and after the PCA work caps, side by side.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { serve } from '../scripts/serve.mjs';
import { helix, f32 } from '../tests/wasm/table-files.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.resolve(process.env.POSLAB_DIST || path.join(root, 'dist'));
const RUNS = Number(process.env.POSLAB_TABLE_RUNS || 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'poslab-bench-table-'));
const file = path.join(dir, 'model.safetensors');
const WTE = 50257 * 2500 * 4; // ≈ 503 MB
const table = f32(helix(1024, 768));
const header = Buffer.from(JSON.stringify({ 'wte.weight': { dtype: 'F32', shape: [50257, 2500], data_offsets: [0, WTE] }, 'wpe.weight': { dtype: 'F32', shape: [1024, 768], data_offsets: [WTE, WTE + table.length] } }));
const len = Buffer.alloc(8);
len.writeBigUInt64LE(BigInt(header.length));
const fd = fs.openSync(file, 'w');
fs.writeSync(fd, Buffer.concat([len, header]));
const chunk = Buffer.alloc(1 << 24, 1); // real bytes, not a sparse hole
for (let left = WTE; left > 0; left -= chunk.length) fs.writeSync(fd, chunk, 0, Math.min(chunk.length, left));
fs.writeSync(fd, table);
fs.closeSync(fd);
const size = fs.statSync(file).size;

const { server, url } = await serve({ root: dist, port: 0 });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true });
const times = [];
const reads = []; // header + the tensor's bytes, File.slice in the Worker
const analyses = []; // decode + norms, heatmap, neighbour similarity, PCA in the core
try {
  for (let run = 0; run < RUNS; run++) {
    const page = await browser.newPage();
    await page.goto(`${url}#ex=wall-1024&lang=en`);
    await page.waitForSelector('[data-exercise="wall-1024"][data-ready="true"]', { timeout: 60000 });
    await page.waitForSelector('.wall-table[aria-busy="false"] .table-views', { timeout: 120000 }); // the trained table first
    const started = Date.now();
    await page.locator('#wall-file').setInputFiles(file);
    await page.waitForSelector('.wall-table[data-source="file"][aria-busy="false"] .table-views[data-kind="table"][data-rows="1024"]', { timeout: 60000 });
    times.push(Date.now() - started);
    const d = await page.locator('.wall-table').evaluate((el) => ({ read: Number(el.dataset.readMs), analyze: Number(el.dataset.analyzeMs) }));
    reads.push(d.read);
    analyses.push(d.analyze);
    await page.close();
  }
} finally {
  await browser.close();
  await new Promise((ok) => server.close(ok));
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(`table: wpe.weight (1024 × 768 F32) out of a ${(size / 1e6).toFixed(0)} MB .safetensors in Chromium, median of ${RUNS}:`);
console.log(`  read (header + tensor bytes, File.slice): ${median(reads).toFixed(1)} ms (target < 1000 ms)`);
console.log(`  decode + figures in the core (Worker):    ${median(analyses).toFixed(1)} ms`);
console.log(`  file chosen → both tables' views drawn:   ${median(times)} ms (runs: ${times.join(', ')})`);

// A 4096 × 4096 F32 table (64 MB, exactly 2^24 values): the CLI and the page,
// now, beside the figures before the PCA work caps (bench/tables-before.json:
// issue #21's probe, and analyze_table's CPU time with the old and the new
// code measured on the same machine). The page says what it computes while it
// works (.table-progress) and states the PCA's sampling rule.
const wideDir = fs.mkdtempSync(path.join(os.tmpdir(), 'poslab-bench-wide-'));
const wide = path.join(wideDir, 'wide.safetensors');
{
  const R = 4096;
  const Cc = 4096;
  const h = Buffer.from(JSON.stringify({ 'wpe.weight': { dtype: 'F32', shape: [R, Cc], data_offsets: [0, R * Cc * 4] } }));
  const l = Buffer.alloc(8);
  l.writeBigUInt64LE(BigInt(h.length));
  const wfd = fs.openSync(wide, 'w');
  fs.writeSync(wfd, Buffer.concat([l, h]));
  let seed = 1;
  for (let p0 = 0; p0 < R; p0 += 256) {
    const buf = new Float32Array(256 * Cc);
    for (let i = 0; i < buf.length; i++) {
      seed = (seed * 1664525 + 1013904223) >>> 0;
      buf[i] = (seed >>> 8) / 2 ** 24 - 0.5;
    }
    fs.writeSync(wfd, Buffer.from(buf.buffer));
  }
  fs.closeSync(wfd);
}
const cliPath = path.join(root, 'build/native/poslab');
const cliMs = [];
const pageMs = [];
let pcaRows = null;
let progressSeen = false;
try {
  for (let run = 0; run < RUNS; run++) {
    const t0 = Date.now();
    const r = spawnSync(cliPath, ['table', '--file', wide], { encoding: 'utf8', maxBuffer: 1 << 28 });
    if (r.status !== 0) throw new Error(`poslab table: ${r.stderr}`);
    cliMs.push(Date.now() - t0);
    pcaRows = JSON.parse(r.stdout).pca.rows;
  }
  const browser2 = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true });
  const { server: server2, url: url2 } = await serve({ root: dist, port: 0 });
  try {
    for (let run = 0; run < RUNS; run++) {
      const page = await browser2.newPage();
      await page.goto(`${url2}#ex=wall-1024&lang=en`);
      await page.waitForSelector('[data-exercise="wall-1024"][data-ready="true"]', { timeout: 60000 });
      await page.waitForSelector('.wall-table[aria-busy="false"] .table-views', { timeout: 120000 });
      const started = Date.now();
      await page.locator('#wall-file').setInputFiles(wide);
      progressSeen = (await page.waitForSelector('.wall-table .table-progress', { timeout: 120000 }).catch(() => null)) !== null || progressSeen;
      await page.waitForSelector('.wall-table[data-source="file"][aria-busy="false"] .table-views[data-kind="table"][data-rows="4096"]', { timeout: 600000 });
      pageMs.push(Date.now() - started);
      await page.close();
    }
  } finally {
    await browser2.close();
    await new Promise((ok) => server2.close(ok));
  }
} finally {
  fs.rmSync(wideDir, { recursive: true, force: true });
}
const before = JSON.parse(fs.readFileSync(path.join(root, 'bench/tables-before.json'), 'utf8'));
const sec = (ms) => (ms / 1000).toFixed(1);
console.log(`table 4096 × 4096 F32 (64 MB), median of ${RUNS}; PCA on ${pcaRows} rows now (1024 before):`);
console.log('                                         before                      now        ratio');
console.log(`  poslab table (native), s:              ${String(before.cliSeconds).padEnd(27)} ${sec(median(cliMs)).padEnd(10)} ${(before.cliSeconds / (median(cliMs) / 1000)).toFixed(1)}×`);
console.log(`  page, file chosen → views drawn, s:    ${before.pageSeconds.padEnd(27)} ${sec(median(pageMs))}`);
console.log(`  analyze_table CPU on one machine, s:   ${String(before.analyzeCpuSeconds.old).padEnd(27)} ${String(before.analyzeCpuSeconds.new).padEnd(10)} ${(before.analyzeCpuSeconds.old / before.analyzeCpuSeconds.new).toFixed(1)}× (${before.analyzeCpuSeconds.note})`);
console.log(`  the page said what it computes while it worked: ${progressSeen ? 'yes' : 'NO'}`);
console.log(`  (before: ${before.source})`);
fs.mkdirSync(path.join(root, 'bench/results'), { recursive: true });
fs.writeFileSync(path.join(root, 'bench/results/tables.json'), JSON.stringify({ date: new Date().toISOString(), cpus: os.cpus().length, load: os.loadavg(), fileBytes: size, readMs: reads, analyzeMs: analyses, shownMs: times, medianReadMs: median(reads), medianShownMs: median(times), wide4096: { cliMs, pageMs, pcaRows, progressSeen, before } }, null, 2));
