// The grading modules in headless Chromium with the real wasm core, real
// localStorage, pagehide and downloads: a student answers, reloads, answers
// more, downloads the submission, and poslab grade's re-grade equals the
// page's score; two learners get different variants; the same from file://.
// The page is tests/e2e/fixtures/grading-lab.html (the lab's runner is not
// wired to these modules yet).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { serveDirs, CHROMIUM_ARGS } from './fixtures/serve-dirs.mjs';
import { watchCsp, cliPath } from './helpers.mjs';

const require = createRequire(import.meta.url);
const yaml = require('js-yaml');
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const fixtures = join(root, 'tests', 'e2e', 'fixtures');
const exercisesDir = join(root, 'tests', 'fixtures', 'exercises');
const wasmPath = resolve(process.env.POSLAB_WASM || join(root, 'build/wasm/poslab.js'));
const demo = yaml.load(readFileSync(join(exercisesDir, 'grading-demo.yaml'), 'utf8'));
const dir = mkdtempSync(join(tmpdir(), 'poslab-grading-'));

// By hand: x1 = (s, 0), x2 = (0, 1), identity weights, d_k = 2 → w11 = e^{s²/√2} / (e^{s²/√2} + 1).
const rightWeight = (s) => {
  const a = Math.exp((s * s) / Math.SQRT2);
  return (a / (a + 1)).toFixed(3);
};

let server, browser;
before(async () => {
  for (const [what, p] of [['wasm module', wasmPath], ['poslab CLI', cliPath]]) assert.ok(existsSync(p), `${what} not built at ${p} (npm run build, or set POSLAB_WASM / POSLAB_CLI)`);
  await build({ entryPoints: [join(fixtures, 'grading-lab.js')], bundle: true, format: 'iife', outfile: join(dir, 'grading-lab.bundle.js'), logLevel: 'warning' });
  copyFileSync(join(fixtures, 'grading-lab.html'), join(dir, 'grading-lab.html'));
  copyFileSync(wasmPath, join(dir, 'poslab.js'));
  writeFileSync(join(dir, 'exercise.js'), `window.__EXERCISE__ = ${JSON.stringify(demo)};\n`);
  server = await serveDirs({ '/': dir });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
});
after(async () => {
  await browser?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function openPage(context, url) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  return { page, errors };
}

async function downloadAndGrade(page, name) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('.grading-download')]);
  assert.match(download.suggestedFilename(), /^position-lab-.+-\d{8}-\d{4}\.json$/);
  const file = join(dir, name);
  await download.saveAs(file);
  const out = spawnSync(cliPath, ['grade', '--exercises', exercisesDir, file, '--format', 'json'], { encoding: 'utf8' });
  assert.equal(out.status, 0, out.stderr);
  return { submission: JSON.parse(readFileSync(file, 'utf8')), row: JSON.parse(out.stdout).rows[0] };
}

for (const mode of ['http', 'file']) {
  test(`${mode}: answer, reload, answer more, download; the CLI's re-grade equals the page's score`, { timeout: 90000 }, async () => {
    const base = mode === 'http' ? `${server.origin}/grading-lab.html` : pathToFileURL(join(dir, 'grading-lab.html')).href;
    const context = await browser.newContext({ acceptDownloads: true });
    await watchCsp(context);
    let { page, errors } = await openPage(context, `${base}?learner=alice-${mode}`);
    assert.equal(await page.evaluate(() => fixture.mode), 'local', 'real localStorage');
    const { variant } = await page.evaluate(() => fixture.variant());
    const s = variant.scale;
    let r = await page.evaluate(() => fixture.check('weight', ['0.5']));
    assert.equal(r.result.status, 'incorrect');
    r = await page.evaluate(() => fixture.check('weight', ['abc']));
    assert.equal(r.result.status, 'malformed');
    r = await page.evaluate(() => fixture.check('weight', ['0.4']));
    assert.equal(r.result.status, 'incorrect');
    await page.evaluate(() => fixture.draft('property', ['equivariance']));
    assert.equal(await page.locator('#score').textContent(), '0 / 4');

    // Reload: pagehide flushes the draft; every attempt is back.
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    const back = await page.evaluate(() => fixture.open());
    assert.equal(back.attempts.length, 3);
    assert.deepEqual(back.drafts, { property: ['equivariance'] });
    assert.deepEqual(back.hints.weight, [demo.blocks[0].hint], 'two wrong attempts: the file’s hint');

    r = await page.evaluate((w) => fixture.check('weight', [w]), rightWeight(s));
    assert.equal(r.result.status, 'correct');
    await page.evaluate(() => fixture.check('property', ['equivariance']));
    r = await page.evaluate(() => fixture.check('wall', { positionOffset: 1022 }));
    assert.deepEqual([r.grade.points, r.grade.max, r.complete], [4, 4, true]);
    assert.equal(await page.locator('#score').textContent(), '4 / 4');

    const { submission, row } = await downloadAndGrade(page, `alice-${mode}.json`);
    assert.equal(submission.learner, `alice-${mode}`);
    assert.equal(submission.exercises[0].attempts.length, 6);
    assert.deepEqual(submission.exercises[0].claimed, { points: 4, max: 4 });
    assert.deepEqual([row.status, row.points, row.max, row.claimedDiffers], ['graded', r.grade.points, r.grade.max, false]);
    assert.deepEqual(row.questions, r.grade.questions);
    assert.match(await page.locator('.grading-status').textContent(), new RegExp(`${downloadNamePattern(submission)} を保存しました`));
    assert.deepEqual(errors, []);
    await context.close();

    // Another browser (a fresh profile): a bad file changes nothing, the downloaded one restores everything.
    const other = await browser.newContext();
    await watchCsp(other);
    ({ page, errors } = await openPage(other, `${base}?learner=alice-${mode}`));
    const bad = join(dir, `bad-${mode}.json`);
    writeFileSync(bad, JSON.stringify({ hello: 'world' }));
    await page.setInputFiles('#grading-import', bad);
    await page.waitForFunction(() => document.querySelector('.grading-status').classList.contains('error'));
    assert.match(await page.locator('.grading-status').textContent(), /Position Lab の提出ファイルではありません.*何も変更していません。/);
    assert.equal((await page.evaluate(() => fixture.open())).attempts.length, 0);
    await page.setInputFiles('#grading-import', join(dir, `alice-${mode}.json`));
    await page.waitForSelector('body[data-changed="1"]');
    assert.match(await page.locator('.grading-status').textContent(), /演習 1 件、新しい回答 6 件/);
    assert.equal(await page.locator('#score').textContent(), '4 / 4', 'the core re-grades what was imported');

    // Reset: asks first (a "no" changes nothing), then keeps a backup.
    page.once('dialog', (d) => d.dismiss());
    await page.click('.grading-reset');
    assert.equal((await page.evaluate(() => fixture.open())).attempts.length, 6);
    page.once('dialog', (d) => d.accept());
    await page.click('.grading-reset');
    await page.waitForSelector('body[data-changed="2"]');
    assert.match(await page.locator('.grading-status').textContent(), /poslab\.attempts\.backup:\S+ に残しました/);
    assert.equal(await page.locator('#score').textContent(), '0 / 4');
    assert.equal((await page.evaluate(() => fixture.open())).attempts.length, 0);
    const backups = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('poslab.attempts.backup:')).map((k) => JSON.parse(localStorage.getItem(k)).records[0].attempts.length));
    assert.deepEqual(backups, [6]);
    assert.deepEqual(errors, []);
    await other.close();
  });
}

function downloadNamePattern(submission) {
  return `position-lab-${submission.learner}-\\d{8}-\\d{4}\\.json`;
}

test('no learner id in the URL: the student types one, it is kept, and only then can answers be graded', { timeout: 60000 }, async () => {
  const context = await browser.newContext();
  await watchCsp(context);
  const { page, errors } = await openPage(context, `${server.origin}/grading-lab.html`);
  assert.equal(await page.locator('.grading-download').isDisabled(), true);
  // The panel is labelled and operable (axe-core: no serious or critical violation).
  await page.addScriptTag({ path: join(root, 'node_modules', 'axe-core', 'axe.min.js') });
  const axe = await page.evaluate(async () => (await window.axe.run(document.getElementById('panel'))).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id));
  assert.deepEqual(axe, []);
  assert.match(await page.locator('.grading-panel, #panel').innerText(), /提出ファイルを作るには学習者 ID が必要です。ID なしの回答は練習として/);
  await page.fill('#grading-learner', '   ');
  await page.click('.grading-learner button');
  assert.equal(await page.locator('.grading-status').textContent(), '学習者 ID を入力してください。');
  await page.fill('#grading-learner', 'gina');
  await page.click('.grading-learner button');
  await page.waitForSelector('body[data-changed="1"]');
  assert.equal(await page.locator('#learner').textContent(), 'gina');
  assert.equal(await page.locator('#score').textContent(), '0 / 4');
  await page.evaluate(() => fixture.check('property', ['equivariance']));
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.locator('#learner').textContent(), 'gina', 'kept for the next visit');
  assert.equal(await page.locator('#score').textContent(), '1 / 4');
  assert.equal(await page.inputValue('#grading-learner'), 'gina');
  // A course page's learner= wins, and the field is gone.
  await page.goto(`${server.origin}/grading-lab.html?learner=lms-7&lang=en`);
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.locator('#grading-learner').count(), 0);
  assert.equal(await page.locator('.grading-learner-fixed').textContent(), 'The learner id is given by the page address: lms-7');
  assert.deepEqual(errors, []);
  await context.close();
});

test('two learners get different variants, and each keeps their own record', { timeout: 60000 }, async () => {
  const context = await browser.newContext();
  await watchCsp(context);
  const seeds = [];
  for (const who of ['erin', 'fay']) {
    const { page } = await openPage(context, `${server.origin}/grading-lab.html?learner=${who}`);
    const v = await page.evaluate(() => fixture.variant());
    seeds.push(v.seed);
    await page.evaluate(() => fixture.check('property', ['invariance']));
    await page.close();
  }
  assert.notEqual(seeds[0], seeds[1]);
  const { page } = await openPage(context, `${server.origin}/grading-lab.html?learner=erin`);
  assert.equal((await page.evaluate(() => fixture.open())).attempts.length, 1, 'erin sees only her attempt');
  const keys = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('poslab.attempts.v1:')).sort());
  assert.deepEqual(keys.map((k) => k.split(':')[1]), ['erin', 'fay']);
  await context.close();
});
