// The class results page (dist/instructor.html): 40 generated submissions
// (made as the lab page makes them; one tampered, one answered in an older
// version of an exercise, wrong answers planted to match named mistakes) and
// two hostile files are picked with the file input. The points per learner
// must equal `poslab grade`'s CSV, the facility per question and the mistake
// counts what this test works out from the plan (class-submissions.mjs); the
// CSV download starts with a UTF-8 BOM and keeps the Japanese names; the page
// is axe clean at 1280×800 and 390×844 and its roster sorts by Tab and Enter.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import { root, dist, startLab, nodeCore, openPage, axeViolations, cliPath, artifacts } from './helpers.mjs';
import { makeClass, plan } from './class-submissions.mjs';

const N = 40;
const dir = mkdtempSync(join(tmpdir(), 'poslab-instructor-'));
let lab;
let cls;
let paths;
const exercises = JSON.parse(readFileSync(join(dist, 'exercises.json'), 'utf8'));

before(async () => {
  lab = await startLab();
  const core = await nodeCore();
  cls = makeClass(core, exercises, N);
  paths = cls.files.map((f) => {
    const p = join(dir, f.name);
    writeFileSync(p, f.text);
    return p;
  });
  // Hostile files: not JSON, and over the 8 MB limit.
  writeFileSync(join(dir, 'not-json.json'), 'hello, this is not a submission');
  writeFileSync(join(dir, 'huge.json'), `{"pad": "${'x'.repeat(9 * 1024 * 1024)}"}`);
  paths.push(join(dir, 'not-json.json'), join(dir, 'huge.json'));
});
after(async () => {
  await lab?.close();
  rmSync(dir, { recursive: true, force: true });
});

// Points per learner from poslab grade's CSV (the graded rows' points summed).
function cliTotals() {
  const r = spawnSync(cliPath, ['grade', '--exercises', join(root, 'exercises'), ...paths], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(r.status, 1, 'the batch has rows that are not graded');
  const lines = r.stdout.trim().split('\n').slice(1);
  const totals = new Map();
  const statuses = [];
  for (const line of lines) {
    const cells = line.split(','); // no learner id or exercise here holds a comma
    const [file, learner, exercise, points] = cells;
    const status = cells[7];
    statuses.push({ file: file.split('/').pop(), learner, exercise, status });
    if (!learner) continue;
    totals.set(learner, (totals.get(learner) ?? 0) + (status === 'graded' ? Number(points) : 0));
  }
  return { totals, statuses };
}

async function loadPage(mode, viewport = { width: 1280, height: 800 }) {
  const opened = await openPage(lab, mode, { viewport });
  const url = mode === 'http' ? new URL('instructor.html', lab.bases.http).href : pathToFileURL(join(dist, 'instructor.html')).href;
  await opened.page.goto(url);
  await opened.page.waitForSelector('#files', { state: 'attached' });
  await opened.page.setInputFiles('#files', paths);
  await opened.page.waitForSelector('#summary', { timeout: 120000 });
  return opened;
}

test('file://: the re-grade equals poslab grade; facility and mistake counts are the planted ones; CSV with BOM', { timeout: 300000 }, async () => {
  const { page, context, problems } = await loadPage('file');
  const { totals, statuses } = cliTotals();
  // Points per learner: the page's roster against the CLI.
  const shown = await page.$$eval('#roster tbody tr', (trs) => trs.map((tr) => [tr.dataset.learner, Number(tr.dataset.total)]));
  assert.equal(shown.length, N);
  for (const [learner, total] of shown) assert.ok(Math.abs(total - totals.get(learner)) < 1e-9, `${learner}: page ${total}, poslab grade ${totals.get(learner)}`);
  // The statuses: the old version, the hostile files.
  assert.equal(statuses.find((s) => s.learner === cls.files[cls.old].learner && s.exercise === 'hand-calc').status, 'hash_mismatch');
  const problemRows = await page.$$eval('#problems tbody tr', (trs) => trs.map((tr) => [tr.querySelector('th').textContent, tr.dataset.status]));
  assert.deepEqual(problemRows.find((r) => r[0] === 'not-json.json')?.[1], 'invalid_file');
  assert.deepEqual(problemRows.find((r) => r[0] === 'huge.json')?.[1], 'too_large');
  assert.ok(problemRows.some((r) => r[0] === cls.files[cls.old].name && r[1] === 'hash_mismatch'));
  // The tampered file is graded, its claim flagged.
  const tamperedRow = page.locator(`#roster tr[data-learner="${cls.files[cls.tampered].learner}"]`);
  assert.match(await tamperedRow.textContent(), /claimed_differs:formula/);

  // Facility per question, from the plan (credit 1, 0.5, 0.25 for property-name).
  const learners = [...Array(N).keys()];
  const handTakers = learners.filter((i) => i !== cls.old);
  const propScore = (i) => (i % 3 === 0 ? 1 : i % 3 === 1 ? 0.5 : 0);
  const softScore = (i) => (i % 4 <= 1 ? 1 : 0);
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const expected = {
    'formula/property-name': mean(learners.map(propScore)),
    'hand-calc/dots-a': 1,
    'hand-calc/softmax-a': mean(handTakers.map(softScore)),
    'hand-calc/output-a': 0,
  };
  for (const [key, want] of Object.entries(expected)) {
    const got = Number(await page.locator(`#items tr[data-question="${key}"] td[data-facility]`).getAttribute('data-facility'));
    assert.ok(Math.abs(got - want) < 1e-9, `${key}: facility ${got}, expected ${want}`);
  }
  // Mistake counts, from the plan.
  const count = async (key, id) => Number(await page.locator(`#mistakes [data-question="${key}"] li[data-mistake="${id}"]`).getAttribute('data-count'));
  assert.equal(await count('formula/property-name', 'option-invariance'), learners.filter((i) => i % 3 === 1).length);
  assert.equal(await count('formula/property-name', 'option-causality'), learners.filter((i) => i % 3 === 2).length);
  assert.equal(await count('hand-calc/softmax-a', 'mistake-1'), handTakers.filter((i) => i % 4 === 1).length);
  assert.equal(await count('hand-calc/softmax-a', 'mistake-2'), handTakers.filter((i) => i % 4 === 2).length);
  assert.equal(await count('hand-calc/softmax-a', 'unmatched'), handTakers.filter((i) => i % 4 === 3).length);
  assert.equal(plan.softmax(1)[0][0], '0.731');
  // Click-through: the learners behind a mistake.
  const m1 = page.locator('#mistakes [data-question="hand-calc/softmax-a"] li[data-mistake="mistake-1"]');
  await m1.locator('summary').click();
  const names = await m1.locator('.learner-list li').allTextContents();
  assert.deepEqual(names.sort(), handTakers.filter((i) => i % 4 === 1).map((i) => cls.files[i].learner).sort());

  // The explanations, listed per question, each with its learner.
  const explained = await page.$$eval('#explanations [data-question="check/q1-why"] dd', (dds) => dds.map((d) => d.textContent));
  assert.deepEqual(explained.sort(), learners.filter((i) => i % 5 === 0).map((i) => plan.explanation(i)).sort());

  // The roster CSV: BOM first, Japanese names intact, the same totals.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-roster')]);
  const bytes = readFileSync(await download.path());
  assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
  const csv = bytes.subarray(3).toString('utf8');
  assert.match(csv, /^learner,total,max,/);
  assert.ok(csv.includes(`${cls.files[1].learner},${totals.get(cls.files[1].learner)},`), 'a Japanese learner id and total survive');
  const [items] = await Promise.all([page.waitForEvent('download'), page.click('#export-items')]);
  assert.deepEqual([...readFileSync(await items.path()).subarray(0, 3)], [0xef, 0xbb, 0xbf]);

  // The results as JSON: every file and learner, the item analysis.
  const [json] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
  const results = JSON.parse(readFileSync(await json.path(), 'utf8'));
  assert.equal(results.format, 'position-lab-results');
  assert.equal(results.files.length, N + 2);
  assert.equal(results.roster.length, N);
  assert.ok(Math.abs(results.items.find((i) => i.key === 'hand-calc/softmax-a').facility - expected['hand-calc/softmax-a']) < 1e-9);

  await page.screenshot({ path: join(artifacts, 'instructor-1280.png'), fullPage: true });
  // (axe runs over http below: from file:// its stylesheet reads are refused and logged.)
  assert.deepEqual(problems.console, []);
  assert.deepEqual(problems.offOrigin, []);
  await context.close();
});

test('http: axe clean at 1280×800 and 390×844; the roster sorts by Tab and Enter from the top of the page', { timeout: 300000 }, async () => {
  const { page, context, problems } = await loadPage('http', { width: 1280, height: 800 });
  assert.deepEqual(await axeViolations(page), [], 'axe at 1280×800');
  await page.setViewportSize({ width: 390, height: 844 });
  assert.deepEqual(await axeViolations(page), [], 'axe at 390×844');
  // Nothing wider than the phone's screen but the scrolling tables.
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 390), 'no sideways scroll of the page at 390 px');
  await page.goto('about:blank');
  await page.goto(new URL('instructor.html', lab.bases.http).href);
  await page.setInputFiles('#files', paths);
  await page.waitForSelector('#summary', { timeout: 120000 });
  // From the top: Tab until the Total column's sort button has focus.
  await page.locator('body').click({ position: { x: 1, y: 1 } });
  let found = false;
  for (let k = 0; k < 80 && !found; k++) {
    await page.keyboard.press('Tab');
    found = await page.evaluate(() => document.activeElement?.dataset?.sort === 'total');
  }
  assert.ok(found, 'the Total sort button is reachable by Tab');
  await page.keyboard.press('Enter');
  const totalsNow = () => page.$$eval('#roster tbody tr', (trs) => trs.map((tr) => Number(tr.dataset.total)));
  const desc = await totalsNow();
  assert.deepEqual(desc, [...desc].sort((a, b) => b - a));
  assert.equal(await page.locator('#roster th:has([data-sort="total"])').getAttribute('aria-sort'), 'descending');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset?.sort), 'total', 'focus stays on the button');
  await page.keyboard.press('Enter');
  const asc = await totalsNow();
  assert.deepEqual(asc, [...asc].sort((a, b) => a - b));
  assert.notDeepEqual(asc, desc);
  await page.screenshot({ path: join(artifacts, 'instructor-390.png'), fullPage: false });
  // The language switch: the results stay, in English.
  await page.click('[data-lang="en"]');
  assert.equal(await page.locator('h1').textContent(), 'Class results');
  assert.equal(await page.locator('#roster [data-sort="total"]').textContent(), 'Total ▲');
  assert.equal(await page.locator('#roster tbody tr').count(), N);
  assert.match(await page.locator('#items caption').textContent(), /Statistics per question/);
  assert.deepEqual(problems.console, []);
  assert.deepEqual(problems.offOrigin, []);
  await context.close();
});

test('files dropped on the page are re-graded like picked ones; a second drop adds to the first', { timeout: 120000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
  await page.goto(new URL('instructor.html', lab.bases.http).href);
  await page.waitForSelector('#drop-zone');
  const drop = async (names) => {
    const files = names.map((n) => ({ name: n, text: readFileSync(join(dir, n), 'utf8') }));
    // What the browser hands the page when a person drops files: a DataTransfer holding File objects.
    const dt = await page.evaluateHandle((list) => {
      const d = new DataTransfer();
      for (const f of list) d.items.add(new File([f.text], f.name, { type: 'application/json' }));
      return d;
    }, files);
    await page.dispatchEvent('#drop-zone', 'drop', { dataTransfer: dt });
  };
  await drop([cls.files[0].name, cls.files[1].name, 'not-json.json']);
  await page.waitForSelector('#summary');
  assert.equal(await page.locator('#roster tbody tr').count(), 2);
  await drop([cls.files[2].name]);
  await page.waitForFunction(() => document.querySelectorAll('#roster tbody tr').length === 3);
  assert.equal(await page.locator('#problems tr[data-status="invalid_file"]').count(), 1);
  // The same file dropped again replaces itself: nothing counts twice.
  const before = await page.locator(`#roster tr[data-learner="${cls.files[0].learner}"]`).getAttribute('data-total');
  const runs = await page.evaluate(() => globalThis.__instructor.state.runs);
  await drop([cls.files[0].name]);
  await page.waitForFunction((n) => globalThis.__instructor.state.runs > n, runs);
  assert.equal(await page.locator('#roster tbody tr').count(), 3);
  assert.equal(await page.locator(`#roster tr[data-learner="${cls.files[0].learner}"]`).getAttribute('data-total'), before);
  assert.doesNotMatch(await page.locator(`#roster tr[data-learner="${cls.files[0].learner}"]`).textContent(), /several_files/);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('a folder chosen with the folder button: its .json files are re-graded, other files skipped', { timeout: 120000 }, async () => {
  const folder = join(dir, 'class-folder');
  mkdirSync(folder, { recursive: true });
  for (const k of [3, 4, 5]) writeFileSync(join(folder, cls.files[k].name), cls.files[k].text);
  writeFileSync(join(folder, 'notes.txt'), 'not a submission');
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
  await page.goto(new URL('instructor.html', lab.bases.http).href);
  await page.setInputFiles('#folder', folder);
  await page.waitForSelector('#summary');
  const learners = await page.$$eval('#roster tbody tr', (trs) => trs.map((tr) => tr.dataset.learner));
  assert.deepEqual(learners.sort(), [3, 4, 5].map((k) => cls.files[k].learner).sort());
  assert.equal(await page.locator('#problems').count(), 0, 'notes.txt was not read as a submission');
  assert.deepEqual(problems.console, []);
  await context.close();
});
