// The rough edges of a student walk (issue 24): counts derived from the
// catalog, file pickers in the page's language, one keyboard note per page,
// no lab-wide count inside an embedding, error messages that name the
// controls, and nothing stale or wider than the screen after an input.
// CSP enforced (openPage); keyboard by Tab from the top of the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startLab, openPage, urlFor, gotoReady, axeViolations, root, artifacts, openGate, settled } from './helpers.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

// Counted here from the exercise files themselves, not from the page's code.
const yamls = readdirSync(join(root, 'exercises')).filter((f) => f.endsWith('.yaml'));
const EXERCISES = yamls.length;
const presenterFiles = yamls.map((f) => readFileSync(join(root, 'exercises', f), 'utf8')).filter((s) => /^presenter:/m.test(s));
const STEPS = presenterFiles.length;

// The next file chooser the page opens. Playwright turns its chooser
// interception on when the first listener is added, without waiting for it
// (waitForEvent sends the request and returns), so a chooser opened before
// Chromium has it is not seen.
const waitForChooser = (page) => page.waitForEvent('filechooser', { timeout: 60000 });
// Waits until that interception is on: the request went to Chromium before
// any later call on the page (Playwright's server sends it to the page's
// DevTools session first: it has fewer steps before its send than an
// evaluate has), and Chromium handles a session's commands in order, the
// interception in the browser process as it arrives, so once an evaluate
// sent after it has answered, the interception is on.
const interceptionOn = (page) => page.evaluate(() => true);
const MINUTES = presenterFiles.reduce((sum, s) => sum + Number(/^presenter:\n(?:  .*\n)*?  minutes: (\d+)/m.exec(s)[1]), 0);

async function typeSentence(page, text) {
  await page.click('#ctl-sentence');
  await page.keyboard.press('Control+A');
  if (text) await page.keyboard.type(text);
  else await page.keyboard.press('Delete');
  await page.keyboard.press('Enter');
}

// Presses Tab from the top of the page until `selector` has focus; returns the presses.
async function tabTo(page, selector, max = 80) {
  await page.locator('body').click({ position: { x: 1, y: 1 } });
  for (let i = 1; i <= max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => document.activeElement?.matches(s), selector)) return i;
  }
  throw new Error(`${selector} not reached by Tab in ${max} presses`);
}

for (const lang of ['ja', 'en']) {
  test(`${lang}: the start page counts the exercises and presenter steps from the catalog, and presenter mode agrees`, { timeout: 90000 }, async () => {
    assert.equal(EXERCISES, 12);
    const { page, context, problems } = await openPage(lab, 'http');
    await gotoReady(page, urlFor(lab, 'http', { lang }));
    const text = await page.locator('.start').innerText();
    assert.match(text, lang === 'ja' ? new RegExp(`演習は ${EXERCISES} 個あり`) : new RegExp(`There are ${EXERCISES} exercises`));
    assert.doesNotMatch(text, lang === 'ja' ? /演習は 11 個/ : /There are 11 exercises/);
    const note = await page.locator('.present-entry .muted').first().innerText();
    assert.match(note, lang === 'ja' ? new RegExp(`${MINUTES} 分の授業の ${STEPS} ステップ`) : new RegExp(`The ${MINUTES}-minute lesson as ${STEPS} full-screen steps`));
    assert.equal(await page.locator('.path > li').count(), EXERCISES);
    await page.click('#present-link');
    await page.waitForSelector('.present[data-steps]');
    assert.equal(Number(await page.getAttribute('.present', 'data-steps')), STEPS);
    assert.match(await page.locator('#present-indicator').innerText(), new RegExp(`${STEPS}`));
    assert.deepEqual(problems.console, []);
    await context.close();
  });

  test(`${lang}: the results page's file pickers are buttons in the page's language, reached by Tab, opening the chooser`, { timeout: 90000 }, async () => {
    const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
    await page.goto(`${lab.bases.http}instructor.html${lang === 'ja' ? '' : '#lang=en'}`);
    await page.waitForSelector('#files', { state: 'attached', timeout: 30000 });
    await page.waitForLoadState('networkidle');
    const want = lang === 'ja' ? 'ファイルを選ぶ（複数可）' : 'Choose files (several at once)';
    // Listening before any key is pressed: Playwright turns on its chooser
    // interception asynchronously, and a chooser opened before that is lost.
    const chosen = waitForChooser(page);
    await interceptionOn(page);
    await tabTo(page, '#files-button');
    const name = await page.evaluate(() => document.activeElement.textContent);
    assert.equal(name, want);
    // The native control is not shown: no "Choose File" / "ファイルを選択" box.
    const box = await page.locator('#files').boundingBox();
    assert.ok(!box || (box.width <= 1 && box.height <= 1), `file input is drawn ${JSON.stringify(box)}`);
    assert.equal(await page.locator('#files').evaluate((el) => el.hidden), true, 'the input is not rendered (out of the Tab order, no touch target)');
    await page.keyboard.press('Enter');
    const chooser = await chosen;
    assert.equal(chooser.isMultiple(), true);
    await chooser.setFiles([]); // closes the chooser (one left open blocks the next test's)
    // The accessibility tree names the button in the page's language.
    const snap = await page.locator('#drop-zone').ariaSnapshot();
    assert.match(snap, new RegExp(`button "${want.replace(/[()（）]/g, '.')}"`));
    assert.doesNotMatch(snap, /Choose File|ファイルを選択|No file chosen/);
    assert.deepEqual(await axeViolations(page), []);
    await page.screenshot({ path: join(artifacts, `edges-${lang}-results-picker.png`) });
    assert.deepEqual(problems.console, []);
    await context.close();
  });
}

test('ja: exercise 6\'s model-file picker is a button in Japanese that opens the chooser', { timeout: 120000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
  await gotoReady(page, urlFor(lab, 'http', { ex: 'wall-1024' }));
  const button = page.locator('[id$="-file-button"]').first();
  assert.equal(await button.innerText(), 'モデルファイルを開く（.safetensors または .npy）');
  const chosen = waitForChooser(page);
  await interceptionOn(page);
  await tabTo(page, '[id$="-file-button"]', 200);
  await page.keyboard.press('Space');
  const chooser = await chosen;
  assert.equal(chooser.isMultiple(), false);
  await chooser.setFiles([]);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('exercise 12: the editor\'s Esc/Tab note is said once on the page', { timeout: 120000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
  await gotoReady(page, urlFor(lab, 'http', { ex: 'write-the-code', lang: 'en' }));
  const editors = await page.locator('.code-editor').count();
  assert.ok(editors >= 2, `exercise 12 has ${editors} editors`);
  const body = await page.locator('article.exercise').innerText();
  const note = 'press Esc, then Tab';
  assert.equal(body.split(note).length - 1, 1);
  assert.equal(await page.locator('.code-keys').count(), 1);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('embedded (embed=1): no lab-wide "n / 12" count; the lab page itself keeps it', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await page.goto(`${lab.bases.http}?exercise=add-position&embed=1&lang=en`);
  await page.waitForSelector('[data-exercise="add-position"][data-ready="true"]', { timeout: 30000 });
  const text = await page.locator('article.exercise').innerText();
  assert.doesNotMatch(text, new RegExp(`of ${EXERCISES}\\b|/ ${EXERCISES}\\b`));
  await gotoReady(page, urlFor(lab, 'http', { ex: 'add-position' }));
  assert.equal(await page.locator('.crumb').innerText(), `演習 4 / ${EXERCISES}`);
  assert.deepEqual(problems.console, []);
  await context.close();
});

for (const lang of ['ja', 'en']) {
  test(`${lang}: an odd width D on exercise 4 is refused in words naming the control, not dModel`, { timeout: 90000 }, async () => {
    const { page, context } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
    await gotoReady(page, urlFor(lab, 'http', { ex: 'add-position', lang }));
    await page.click('#ctl-d');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('7');
    await page.keyboard.press('Tab');
    await page.waitForSelector('.core-error', { timeout: 30000 });
    // Every widget's redraw for D = 7 has landed (not only the first to show its error).
    await settled(page);
    const errors = (await page.locator('.core-error').allInnerTexts()).join('\n');
    assert.doesNotMatch(errors, /dModel/);
    assert.match(errors, lang === 'ja' ? /次元 D/ : /width D/i);
    await context.close();
  });
}

for (const [width, height] of [
  [1280, 800],
  [390, 844],
]) {
  for (const lang of ['en', 'ja']) {
    test(`${lang} ${width}: a 40-token sentence scrolls inside its own boxes, not the page; an empty one leaves no stale figure`, { timeout: 120000 }, async () => {
      const { page, context, problems } = await openPage(lab, 'http', { viewport: { width, height } });
      await gotoReady(page, urlFor(lab, 'http', { ex: 'reorder', lang }));
      const words = Array.from({ length: 39 }, (_, i) => `word${i}`).join(' ') + '.';
      await typeSentence(page, words);
      await page.waitForFunction(() => document.querySelectorAll('[data-widget] .chip').length === 40, null, { timeout: 30000 });
      // The 6-token sentence's grid is on the page already: wait for every redraw of the new one.
      await settled(page);
      await page.waitForFunction(() => document.querySelectorAll('.diff-grid .diff-cell').length === 40 * 40);
      const sizes = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: innerWidth }));
      assert.ok(sizes.scroll <= sizes.inner, `the page is ${sizes.scroll} px wide at ${sizes.inner}`);
      await page.screenshot({ path: join(artifacts, `edges-${lang}-${width}-40-tokens.png`) });
      await typeSentence(page, '');
      await page.waitForSelector('.core-error[data-code="empty_text"]', { timeout: 30000 });
      await settled(page);
      const after = await page.evaluate(() => ({
        order: document.querySelector('.order-line')?.textContent ?? '',
        chips: document.querySelectorAll('[data-widget] .chip').length,
        grids: document.querySelectorAll('.diff-grid').length,
        svgs: [...document.querySelectorAll('.lines-svg')].filter((s) => s.getBoundingClientRect().width > 0).length,
        scroll: document.documentElement.scrollWidth,
      }));
      assert.deepEqual(after, { order: '', chips: 0, grids: 0, svgs: 0, scroll: after.scroll });
      assert.ok(after.scroll <= width);
      await page.screenshot({ path: join(artifacts, `edges-${lang}-${width}-empty.png`) });
      assert.deepEqual(problems.console, []);
      await context.close();
    });
  }
}

test('exercise 10: 3 heads at width 8 is refused, and no figure of the 4 heads stays beside the error', { timeout: 120000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
  await gotoReady(page, urlFor(lab, 'http', { ex: 'alibi', lang: 'en' }));
  // The slopes answer question 1 (m₁), so the widget opens once it is answered or given up on.
  await openGate(page, 'al');
  const widget = page.locator('[data-widget].w-alibi').first();
  await widget.locator('svg').first().waitFor();
  assert.ok((await widget.locator('svg').count()) > 0, 'the ALiBi widget draws before the error');
  await page.click('#ctl-heads');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('3');
  await page.keyboard.press('Tab');
  await widget.locator('.core-error').waitFor({ timeout: 30000 });
  assert.match(await widget.locator('.core-error').innerText(), /3 heads do not divide the width 8/);
  assert.equal(await widget.locator('svg').count(), 0);
  assert.equal(await widget.locator('table, .heatmap').count(), 0);
  await page.screenshot({ path: join(artifacts, 'edges-en-1280-alibi-3-heads.png') });
  assert.deepEqual(problems.console, []);
  await context.close();
});
