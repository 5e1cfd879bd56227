// Issue 16 in the page: exercise 6 shows a position table that was actually
// learned (a tiny model trained in the Worker) beside sinusoidal's; a planted
// 1024 × 768 helix saved to disk and opened with the file input shows its
// helix (the PCA points trace the planted circle) and becomes the wall's
// learned table; every bad file gets a message in the page's language.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { mkdtempSync, writeFileSync, rmSync, openSync, writeSync, ftruncateSync, closeSync } from 'node:fs';
import { startLab, openPage, gotoReady, urlFor, artifacts, nodeCore, TIMEOUT_SCALE } from './helpers.mjs';
import { trainTable } from '../../web/js/core/table-read.js';
import { A, helix, tableFile, safetensors, npy, f32 } from '../wasm/table-files.mjs';

let lab;
let dir;
before(async () => {
  lab = await startLab();
  dir = mkdtempSync(join(tmpdir(), 'poslab-tables-'));
});
after(async () => {
  await lab?.close();
  rmSync(dir, { recursive: true, force: true });
});

const N = 1024;
const D = 768;
const COLS = [300, 400, 500]; // the wall's slider shows dims 300, 400, 500

test('file://: the trained table by default; a planted 1024 × 768 helix opened from disk shows its circle and is the wall', { timeout: 240000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'file');
  await gotoReady(page, urlFor(lab, 'file', { ex: 'wall-1024', lang: 'en' }));
  const section = page.locator('.wall-table');
  // The default: the learned table of a tiny model trained here (50 rows: 2·24 + 2).
  await page.waitForSelector('.wall-table[data-source="trained"][aria-busy="false"] .table-views[data-kind="table"]', { timeout: 120000 });
  assert.equal(await section.locator('.table-views[data-kind="table"]').getAttribute('data-rows'), '50');
  assert.match(await section.locator('.table-source').innerText(), /Trained in this lab/);
  assert.equal(await section.locator('.table-views[data-kind="sinusoidal"]').getAttribute('data-rows'), '50');
  await section.screenshot({ path: join(artifacts, 'file-en-table-trained.png') });
  // It is the table the lab trains: the same run in Node (same core, same code) gives the same points.
  const node = await trainTable(await nodeCore());
  const shownPts = await section.locator('.table-views[data-kind="table"] .pca-scatter circle').evaluateAll((cs) => cs.map((c) => [Number(c.dataset.pc1), Number(c.dataset.pc2)]));
  assert.equal(shownPts.length, 50);
  const k = node.summary.pca.projection.shape[1];
  shownPts.forEach(([x, y], p) => {
    assert.ok(Math.abs(x - node.summary.pca.projection.data[p * k]) < 1e-5, `pc1 at ${p}`);
    assert.ok(Math.abs(y - node.summary.pca.projection.data[p * k + 1]) < 1e-5, `pc2 at ${p}`);
  });

  const values = helix(N, D, COLS);
  const file = join(dir, 'gpt2-like.safetensors');
  writeFileSync(file, tableFile(values, N, D, { name: 'transformer.wpe.weight' }));
  await page.locator('#wall-file').setInputFiles(file);
  await page.waitForSelector('.wall-table[data-source="file"][aria-busy="false"] .table-views[data-kind="table"][data-rows="1024"]', { timeout: 120000 });
  assert.match(await section.locator('.table-views[data-kind="table"] .table-shape').innerText(), /1024 rows × 768 columns: positions 0 to 1023/);
  assert.equal(await page.locator('#wall-tensor').inputValue(), 'transformer.wpe.weight');
  // The PCA points: every position on the circle of radius A, turning by 2π/1024 each step.
  const pts = await section.locator('.table-views[data-kind="table"] .pca-scatter circle').evaluateAll((cs) => cs.map((c) => [Number(c.dataset.pc1), Number(c.dataset.pc2)]));
  assert.equal(pts.length, N);
  for (let p = 0; p < N; p++) {
    assert.ok(Math.abs(Math.hypot(pts[p][0], pts[p][1]) - A) < 1e-3, `radius at ${p}`);
    const q = (p + 1) % N;
    const turn = Math.atan2(pts[p][0] * pts[q][1] - pts[p][1] * pts[q][0], pts[p][0] * pts[q][0] + pts[p][1] * pts[q][1]);
    assert.ok(Math.abs(Math.abs(turn) - (2 * Math.PI) / N) < 1e-3, `turn at ${p}`);
  }
  // The wall uses it: row 1023 is the planted row; 1024 is past its last row.
  const widget = page.locator('[data-widget="wall"]');
  await widget.locator('input[type="number"]').fill('1023');
  await page.keyboard.press('Tab');
  // The whole position ("Position 1023 (…"), not a bare 1023 (position 1022's line has it too).
  await page.waitForFunction(() => (document.querySelector('.pos-line')?.textContent ?? '').startsWith('Position 1023 ('));
  const shown = (await widget.locator('.wall-learned tbody td').allInnerTexts()).map(Number);
  const want = COLS.map((c) => values[1023 * D + c]);
  assert.deepEqual(shown.map((v) => v.toFixed(3)), want.map((v) => v.toFixed(3)));
  await widget.locator('input[type="number"]').fill('1024');
  await page.keyboard.press('Tab');
  await page.waitForSelector('.wall-learned .core-error[data-code="position_past_table"]');
  assert.match(await widget.locator('.wall-learned').innerText(), /1024 rows/);
  assert.match(await section.locator('.table-wall-note').innerText(), /last row is position 1023/);
  await section.screenshot({ path: join(artifacts, 'file-en-table-helix.png') });
  await page.screenshot({ path: join(artifacts, 'file-en-wall-table.png'), fullPage: true });
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('http: every bad file is a message in the page\'s language, and nothing freezes', { timeout: 240000 }, async () => {
  const write = (name, bytes) => {
    writeFileSync(join(dir, name), bytes);
    return join(dir, name);
  };
  const good = tableFile(helix(8, 16), 8, 16);
  const past = good.slice();
  past[3] = 0x7f;
  const nan = Array.from(helix(8, 16));
  nan[2 * 16 + 3] = NaN;
  const inf = Array.from(helix(8, 16));
  inf[0] = Infinity;
  const huge = join(dir, 'huge-header.safetensors');
  {
    const fd = openSync(huge, 'w');
    const len = new Uint8Array(8);
    new DataView(len.buffer).setBigUint64(0, BigInt(17 << 20), true);
    writeSync(fd, len, 0, 8, 0);
    ftruncateSync(fd, 8 + (17 << 20));
    closeSync(fd);
  }
  const cases = [
    ['truncated', write('short.safetensors', good.subarray(0, 5)), 'table_truncated', /too short/, /短すぎます/],
    ['header past the end', write('past.safetensors', past), 'table_header_past_end', /only \d+ bytes follow/, /しかありません/],
    ['not JSON', write('nojson.safetensors', safetensors('{nope')), 'table_header_not_json', /not JSON/, /JSON ではありません/],
    ['huge header', huge, 'table_header_too_large', /reads headers up to 16777216 bytes/, /16777216 バイトまで/],
    ['offsets outside', write('off.safetensors', safetensors({ 'wpe.weight': { dtype: 'F32', shape: [1, 2], data_offsets: [0, 80] } }, new Uint8Array(8))), 'table_offsets_out_of_range', /only 8 bytes of data/, /8 バイトしかありません/],
    ['not 2-D', write('oned.safetensors', safetensors({ 'wpe.weight': { dtype: 'F32', shape: [2], data_offsets: [0, 8] } }, new Uint8Array(8))), 'table_not_2d', /A position table has 2/, /2 次元/],
    ['dtype', write('int.safetensors', safetensors({ 'wpe.weight': { dtype: 'I32', shape: [1, 2], data_offsets: [0, 8] } }, new Uint8Array(8))), 'table_unsupported_dtype', /reads F32, F16 and BF16/, /F32・F16・BF16/],
    ['NaN', write('nan.safetensors', tableFile(nan, 8, 16)), 'table_not_finite', /NaN at row 2, column 3/, /2 行 3 列.*NaN/],
    ['Inf', write('inf.npy', npy('<f4', '(8, 16)', f32(inf))), 'table_not_finite', /Infinity at row 0, column 0/, /0 行 0 列.*Infinity/],
  ];
  // One page for both languages: the language is the page's (its URL), not the browser's.
  const { page, context, problems } = await openPage(lab, 'http');
  for (const lang of ['en', 'ja']) {
    await gotoReady(page, urlFor(lab, 'http', { ex: 'wall-1024', lang }));
    assert.equal(await page.getAttribute('html', 'lang'), lang);
    for (const [what, path, code, en, ja] of cases) {
      await page.locator('#wall-file').setInputFiles(path);
      await page.waitForSelector(`.wall-table[aria-busy="false"] .table-status .core-error[data-code="${code}"]`, { timeout: 60000 });
      const text = await page.locator('.wall-table .table-status').innerText();
      assert.match(text, lang === 'en' ? en : ja, `${what} (${lang}): ${text}`);
      assert.equal(await page.evaluate(() => 1 + 1), 2); // the page answers
    }
    assert.deepEqual(problems.console, [], lang);
  }
  await context.close();
});

test('http: a 4.3 GB model file (sparse) opens at once: only the header and the table are read', { timeout: 120000 }, async () => {
  const values = helix(64, 16);
  const gap = 2 ** 32;
  const bytes = f32(values);
  const h = new TextEncoder().encode(JSON.stringify({ big: { dtype: 'F32', shape: [4, 4], data_offsets: [0, 64] }, 'wpe.weight': { dtype: 'F32', shape: [64, 16], data_offsets: [gap, gap + bytes.length] } }));
  const path = join(dir, 'big.safetensors');
  const fd = openSync(path, 'w');
  const len = new Uint8Array(8);
  new DataView(len.buffer).setBigUint64(0, BigInt(h.length), true);
  writeSync(fd, len, 0, 8, 0);
  writeSync(fd, h, 0, h.length, 8);
  writeSync(fd, bytes, 0, bytes.length, 8 + h.length + gap);
  closeSync(fd);
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'wall-1024', lang: 'en' }));
  const started = Date.now();
  await page.locator('#wall-file').setInputFiles(path);
  await page.waitForSelector('.wall-table[data-source="file"][aria-busy="false"] .table-views[data-kind="table"][data-rows="64"]', { timeout: 60000 });
  console.log(`# 4.3 GB file: table shown in ${Date.now() - started} ms`);
  assert.deepEqual(problems.console, []);
  await context.close();
  rmSync(path);
});

test('http: a file dropped on the box opens the same way; two files at once are refused', { timeout: 120000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'wall-1024', lang: 'ja' }));
  const bytes = Array.from(npy('<f4', '(64, 16)', f32(helix(64, 16))));
  // A drop carries a DataTransfer with the file (what the OS hands the page).
  const drop = (count) =>
    page.evaluate(
      ([b, n]) => {
        const dt = new DataTransfer();
        for (let i = 0; i < n; i++) dt.items.add(new File([new Uint8Array(b)], `wpe${i}.npy`));
        const box = document.querySelector('.table-drop');
        box.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
        box.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      },
      [bytes, count],
    );
  await drop(2);
  await page.waitForFunction(() => /1 つだけ/.test(document.querySelector('.wall-table .table-status')?.textContent ?? ''));
  await drop(1);
  await page.waitForSelector('.wall-table[data-source="file"][aria-busy="false"] .table-views[data-kind="table"][data-rows="64"]', { timeout: 60000 });
  assert.match(await page.locator('.wall-table .table-source').innerText(), /wpe0\.npy から：64 × 16（F32）/);
  await page.locator('.wall-table').screenshot({ path: join(artifacts, 'http-ja-table-dropped.png') });
  // The random baseline, labelled as such (GPT-2's shape, nothing learned); then back to the trained table.
  await page.locator('.wall-table .table-random').click();
  await page.waitForSelector('.wall-table[data-source="random"][aria-busy="false"] .table-views[data-kind="table"][data-rows="1024"]', { timeout: 60000 });
  assert.match(await page.locator('.wall-table .table-source').innerText(), /比較用.*何も学習していません/);
  assert.match(await page.locator('.wall-table .table-wall-note').innerText(), /1024 × 768/);
  await page.locator('.wall-table .table-trained').click();
  await page.waitForSelector('.wall-table[data-source="trained"][aria-busy="false"] .table-views[data-kind="table"][data-rows="50"]', { timeout: 120000 });
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('http: a browser that refuses Workers trains the table on the main thread in small chunks, and a file still opens', { timeout: 240000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await page.addInitScript(() => {
    window.Worker = function () {
      throw new Error('Workers are off in this test');
    };
  });
  // The page says it is ready only once the table is trained and drawn: the
  // training is watched from the first render on.
  await page.goto(urlFor(lab, 'http', { ex: 'wall-1024', lang: 'en' }), { waitUntil: 'commit' });
  // While it trains, the page answers (each chunk is 5 steps, then a pause).
  await page.waitForSelector('.wall-table[aria-busy="true"]', { timeout: 60000 * TIMEOUT_SCALE });
  const started = Date.now();
  assert.equal(await page.evaluate(() => 1 + 1), 2);
  console.log(`# page answered in ${Date.now() - started} ms during main-thread training`);
  await page.waitForSelector('.wall-table[data-source="trained"][aria-busy="false"] .table-views[data-kind="table"][data-rows="50"]', { timeout: 180000 });
  await page.waitForSelector('[data-exercise="wall-1024"][data-ready="true"]');
  const file = join(dir, 'small.npy');
  writeFileSync(file, npy('<f4', '(64, 16)', f32(helix(64, 16))));
  await page.locator('#wall-file').setInputFiles(file);
  await page.waitForSelector('.wall-table[data-source="file"][aria-busy="false"] .table-views[data-kind="table"][data-rows="64"]', { timeout: 60000 });
  assert.deepEqual(problems.console, []);
  await context.close();
});
