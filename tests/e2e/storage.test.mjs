// The real page against hostile storage: damaged progress set before the
// page loads, a full quota (simulated, and a real fill), an embedded frame,
// and imports the core cannot grade. The page must render, keep what is
// valid, say in place what was dropped or not saved, and never claim an
// attempt it did not keep.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLab, openPage, urlFor, gotoReady, answerNumeric, nodeCore, dist } from './helpers.mjs';
import { readFileSync } from 'node:fs';

let lab;
let core;
const dir = mkdtempSync(join(tmpdir(), 'poslab-storage-'));
before(async () => {
  lab = await startLab();
  core = await nodeCore();
});
after(async () => {
  await lab?.close();
  rmSync(dir, { recursive: true, force: true });
});

// Sets a localStorage value before the page's scripts run, on the first load only.
async function seed(page, entries) {
  await page.addInitScript((e) => {
    if (sessionStorage.getItem('seeded')) return;
    for (const [k, v] of Object.entries(e)) localStorage.setItem(k, v);
    sessionStorage.setItem('seeded', '1');
  }, entries);
}

// Every setItem throws QuotaExceededError, as a full origin does (in every frame).
const QUOTA_FULL = () => {
  Storage.prototype.setItem = function () {
    throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
  };
};

for (const raw of ['{"hand-calc": 5}', '5', '"abc"', '{"hand-calc": {"visited": true, "questions": {"dots-a": {"correct": true, "attempts": "x"}}}, "rope": {"visited": true}}']) {
  test(`damaged progress ${raw.slice(0, 40)}: the exercise and start pages render, say what was dropped (ja and en), and keep working`, { timeout: 60000 }, async () => {
    const { page, context, problems } = await openPage(lab, 'http');
    await seed(page, { 'poslab.progress.v1': raw });
    await gotoReady(page, urlFor(lab, 'http', { ex: 'hand-calc' }));
    const note = page.locator('.storage-note');
    assert.match(await note.innerText(), /保存されていた進捗の一部（\d+ 件）が壊れていたため読み込みませんでした/);
    // The damaged claim of a solved question is not believed.
    assert.doesNotMatch((await page.locator('[data-question="dots-a"]').getAttribute('class')) ?? '', /done/);
    assert.match((await answerNumeric(page, 'dots-a', ['1', '0'])).cls, /correct/);
    await gotoReady(page, urlFor(lab, 'http', { lang: 'en' }));
    // The start page: the path's state from what was valid.
    assert.equal(await page.locator('[data-exercise="hand-calc"]').getAttribute('data-status'), 'in_progress');
    if (raw.includes('rope')) assert.equal(await page.locator('[data-exercise="rope"]').getAttribute('data-status'), 'in_progress');
    assert.match(await page.locator('.storage-note').innerText(), /Part of the saved progress was damaged and was not read \(parts dropped: \d+\)/);
    // Written back clean: the next visit has nothing to say.
    await page.reload();
    await page.waitForSelector('.start[data-ready="true"]');
    assert.equal(await page.locator('.storage-note').count(), 0);
    assert.deepEqual(problems.console, []);
    await context.close();
  });
}

test('quota full, no learner id: the answer is checked but "not saved: storage is full" is said beside it; a reload claims nothing', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await page.addInitScript(QUOTA_FULL);
  await gotoReady(page, urlFor(lab, 'http', { ex: 'hand-calc' }));
  const fb = await answerNumeric(page, 'dots-a', ['1', '0']);
  assert.match(fb.cls, /correct/);
  assert.match(fb.text, /保存されていません：保存領域がいっぱいです/);
  assert.equal(await page.locator('[data-question="dots-a"] .not-saved[role="alert"]').count(), 1);
  await page.reload();
  await page.waitForSelector('[data-exercise="hand-calc"][data-ready="true"]');
  assert.doesNotMatch((await page.locator('[data-question="dots-a"]').getAttribute('class')) ?? '', /done/);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('quota full with a learner id (grading store), in English: "Not saved: storage is full" beside the question; after a reload no attempt is claimed', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await page.addInitScript(QUOTA_FULL);
  await gotoReady(page, `${lab.bases.http}?learner=full-en#ex=hand-calc&lang=en`);
  const fb = await answerNumeric(page, 'dots-a', ['1', '0']);
  assert.match(fb.cls, /correct/);
  assert.match(fb.text, /Not saved: storage is full/);
  // The store's own warning is shown on the exercise page too.
  assert.match(await page.locator('.storage-note').innerText(), /Storage is full/);
  await page.reload();
  await page.waitForSelector('[data-exercise="hand-calc"][data-ready="true"]');
  assert.doesNotMatch((await page.locator('[data-question="dots-a"]').getAttribute('class')) ?? '', /done/);
  assert.equal(await page.locator('[data-question="dots-a"] input[data-field="0"]').inputValue(), '', 'no answer restored that was not kept');
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('quota full inside an embedded frame (the example course page): the frame says "not saved" beside the question', { timeout: 90000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await page.addInitScript(QUOTA_FULL);
  await page.goto(`${lab.bases.http}embed-example.html?exercises=hand-calc&learner=framed`);
  // The example page adds the frame as it parses (its src names the exercise): wait for it, not a time.
  const frame = await (await page.waitForSelector('iframe[src*="exercise=hand-calc"]', { state: 'attached', timeout: 30000 })).contentFrame();
  await frame.waitForSelector('[data-exercise="hand-calc"][data-ready="true"]', { timeout: 30000 });
  const q = frame.locator('[data-question="dots-a"]');
  await q.locator('input[data-field="0"]').fill('1');
  await q.locator('input[data-field="1"]').fill('0');
  await q.locator('button[type="submit"]').click();
  await q.locator('.feedback.correct').waitFor();
  assert.match(await q.locator('.feedback').innerText(), /保存されていません：保存領域がいっぱいです/);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('a real full quota (localStorage filled to the last byte): "not saved" beside the question, and a reload claims nothing', { timeout: 90000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, `${lab.bases.http}?learner=filled#ex=hand-calc`);
  const filled = await page.evaluate(() => {
    let n = 0;
    for (let size = 1 << 20; size >= 1; size = Math.floor(size / 2)) {
      const chunk = 'x'.repeat(size);
      for (;;) {
        try {
          localStorage.setItem(`filler.${n}`, chunk);
          n += 1;
        } catch {
          break;
        }
      }
    }
    return n;
  });
  assert.ok(filled > 0);
  const fb = await answerNumeric(page, 'dots-a', ['1', '0']);
  assert.match(fb.cls, /correct/);
  assert.match(fb.text, /保存されていません：保存領域がいっぱいです/);
  await page.reload();
  await page.waitForSelector('[data-exercise="hand-calc"][data-ready="true"]');
  assert.doesNotMatch((await page.locator('[data-question="dots-a"]').getAttribute('class')) ?? '', /done/);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('no false "progress from an earlier version" warning, however many visits', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  for (let visit = 1; visit <= 4; visit++) {
    await gotoReady(page, `${lab.bases.http}?learner=returning&v=${visit}#ex=hand-calc`);
    await gotoReady(page, `${lab.bases.http}?learner=returning&v=${visit}#`);
    assert.doesNotMatch(await page.locator('main').innerText(), /以前の版の実験室の進捗が見つかりました/, `visit ${visit}`);
  }
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('an imported task attempt without lab settings: the exercise page still renders and says the attempt is left for the instructor', { timeout: 60000 }, async () => {
  const exercises = JSON.parse(readFileSync(join(dist, 'exercises.json'), 'utf8')).map(({ file, ...data }) => data);
  const ex = exercises.find((e) => e.id === 'add-position');
  const taskId = ex.blocks.find((b) => b.type === 'task').id;
  const v = core.variant({ exercise: ex, learner: 'importer' });
  const file = join(dir, 'no-lab.json');
  writeFileSync(file, JSON.stringify({ format: 'position-lab-submission', version: 1, learner: 'importer', exercises: [{ id: ex.id, contentHash: v.contentHash, seed: v.seed, attempts: [{ question: taskId, answer: {} }] }] }));
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, `${lab.bases.http}?learner=importer#`);
  await page.setInputFiles('#grading-import', file);
  // Merged into the store (the start page re-renders after an import).
  await page.waitForFunction(() => Object.keys(localStorage).some((k) => k.startsWith('poslab.attempts.v1:importer:add-position:')));
  await gotoReady(page, `${lab.bases.http}?learner=importer#ex=add-position`);
  assert.match(await page.locator('.storage-note').innerText(), /1 件は、このページでは採点できません/);
  // And the download still works.
  await gotoReady(page, `${lab.bases.http}?learner=importer#`);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('.grading-download')]);
  const saved = join(dir, 'out.json');
  await download.saveAs(saved);
  const sub = JSON.parse(readFileSync(saved, 'utf8'));
  assert.equal(sub.exercises.find((e) => e.id === 'add-position').attempts.length, 1);
  assert.deepEqual(problems.console, []);
  await context.close();
});
