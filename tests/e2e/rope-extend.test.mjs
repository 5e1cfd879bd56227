// RoPE context extension, Part 1 in the page: the angle picture (the core's
// ropeAngleMap) answers "which pairs leave the trained range" as worked out
// here by hand, its controls work from the keyboard, and the graded
// prediction is graded per learner variant (s, method). Over http and
// file://, in ja and en, axe clean (over http).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startLab, openPage, gotoReady, axeViolations, cliPath, root, artifacts } from './helpers.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

// d 8, base b (10^4 unless given), L 16: θᵢ = b^(−i/4) (at 10^4: 1, 0.1, 0.01, 0.001). The trained
// positions m = 0 … 16 produced the angles m·θᵢ mod 2π and swept the arcs
// between neighbours; a pair leaves if some position m = 0 … s·16 turns it,
// under the method's θ'ᵢ, to a wrapped angle on none of those arcs.
function leavingByHand(method, s, b = 10000, L = 16) {
  const theta = [0, 1, 2, 3].map((i) => b ** (-i / 4));
  const scaled = theta.map((th, i) => {
    if (method === 'none') return th;
    if (method === 'pi') return th / s; // positions scaled by 1/s
    if (method === 'ntk') return (b * s ** (8 / 6)) ** (-i / 4); // base' = base·s^(d/(d−2))
    if (method === 'base') return 500000 ** (-i / 4);
    throw new Error(method);
  });
  const wrap = (a) => ((a % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI);
  const seen = (a, th) => {
    for (let m = 0; m < L; m++) {
      const ahead = wrap(a - m * th);
      if (ahead <= th + 1e-9 || ahead >= 2 * Math.PI - 1e-9) return true;
    }
    return false;
  };
  return theta
    .map((th, i) => Array.from({ length: s * L + 1 }, (_, m) => m).some((m) => !seen(wrap(m * scaled[i]), th)))
    .flatMap((b, i) => (b ? [`p${i}`] : []));
}

// A share as the page writes it: 2 decimals, more when 2 would show 1 (or 0) for a value that is not.
function shareText(x) {
  for (let d = 2; d <= 6; d++) {
    const text = x.toFixed(d);
    if (!(Number(text) === 1 && x < 1) && !(Number(text) === 0 && x > 0)) return text;
  }
  return null;
}

function variantOf(learner) {
  const out = spawnSync(cliPath, ['variant', '--exercise', join(root, 'exercises/09-rope-extend.yaml'), '--learner', learner], { encoding: 'utf8' });
  assert.equal(out.status, 0, out.stderr);
  return JSON.parse(out.stdout).variant;
}

async function tabTo(page, selector, max = 200) {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((sel) => document.activeElement?.matches(sel), selector)) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`Tab never reached ${selector}`);
}

const passes = [
  { mode: 'http', lang: 'ja', learner: 'kenji' },
  { mode: 'file', lang: 'en', learner: 'mary' },
];

for (const { mode, lang, learner } of passes) {
  test(`${mode} ${lang}: the angle picture by keyboard, and the graded prediction of the pairs that leave`, { timeout: 120000 }, async () => {
    const { page, context, problems } = await openPage(lab, mode);
    const hash = new URLSearchParams({ ex: 'rope-extend' });
    if (lang !== 'ja') hash.set('lang', lang);
    await gotoReady(page, `${lab.bases[mode]}?learner=${learner}#${hash}`);
    await page.waitForSelector('.ropeext-table');
    // The question on the student's own run waits for a run, and says so in the page's language.
    assert.match(await page.locator('[data-question="run-solved-all"] .run-note').textContent(), lang === 'ja' ? /あなた自身の実行の結果から答えます。上の「実験を始める」で/ : /reads your own run/);
    // Defaults: Part 2's frequencies (d 8, base 100) at L 24, s 2, under plain RoPE: pairs 2, 3 leave.
    const leavesColumn = () => page.locator('.ropeext-table tbody tr td:last-child').allTextContents();
    const yes = lang === 'ja' ? '出る' : 'yes';
    const no = lang === 'ja' ? '出ない' : 'no';
    const byHand = (m, s, b, L) => ['p0', 'p1', 'p2', 'p3'].map((p) => (leavingByHand(m, s, b, L).includes(p) ? yes : no));
    // The whole column as worked out by hand (one row alone can already say so before the redraw).
    const columnIs = (want) => page.waitForFunction((w) => JSON.stringify([...document.querySelectorAll('.ropeext-table tbody tr td:last-child')].map((td) => td.textContent)) === w, JSON.stringify(want), { timeout: 20000 });
    assert.deepEqual(byHand('none', 2, 100, 24), [no, no, yes, yes]);
    assert.equal(await page.locator('select[id$="-method"]').inputValue(), 'none');
    assert.equal(await page.locator('select[id$="-base"]').inputValue(), '100');
    assert.equal(await page.locator('input[id$="-L"]').inputValue(), '24');
    assert.deepEqual(await leavesColumn(), byHand('none', 2, 100, 24));
    assert.ok((await page.locator('.ropeext-svg rect[fill^="url("]').count()) > 0, 'unseen angles are hatched');

    // The base by keyboard: Tab to its select, 10^4 with the arrow key: plain RoPE leaves pairs 1, 2, 3.
    await page.mouse.click(1, 1);
    await tabTo(page, 'select[id$="-base"]');
    await page.keyboard.press('ArrowDown'); // 100 → 10000
    await page.waitForFunction(() => document.querySelector('select[id$="-base"]').value === '10000');
    // Wait for the table to show base 10^4's θ₁ = 0.1 (the column alone reads the same as at 100).
    await page.waitForFunction(() => document.querySelector('.ropeext-table tbody tr:nth-child(2) td:nth-child(2)')?.textContent === '0.10000');
    assert.deepEqual(byHand('none', 2, 10000, 24), [no, yes, yes, yes]);
    await columnIs(byHand('none', 2, 10000, 24));
    // The question's trained length: Tab on to the L slider, 24 → 16 with the arrow key.
    await tabTo(page, 'input[id$="-L"]');
    for (let k = 0; k < 8; k++) await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => document.querySelector('input[id$="-L"]').value === '16');
    // Wait for the table to show L = 16's swept angle of pair 1, 16·0.1 = 1.6.
    await page.waitForFunction(() => /^1\.60*$/.test(document.querySelector('.ropeext-table tbody tr:nth-child(2) td:nth-child(4)')?.textContent ?? ''));
    await columnIs(byHand('none', 2));
    // The method by keyboard: Tab on to its select; PI with the arrow key.
    await tabTo(page, 'select[id$="-method"]');
    await page.keyboard.press('ArrowDown'); // none → pi: nothing unseen
    await page.waitForFunction(() => document.querySelector('select[id$="-method"]').value === 'pi');
    await columnIs(byHand('pi', 2));
    assert.equal(await page.locator('.ropeext-svg rect[fill^="url("]').count(), 0, 'PI: nothing unseen');
    await page.keyboard.press('ArrowDown'); // pi → ntk: the last pair stays (θ₃/s), pairs 1, 2 leave
    await page.waitForFunction(() => document.querySelector('select[id$="-method"]').value === 'ntk');
    // Wait for the whole column to change: under PI every pair already said "no",
    // so waiting on the last row alone would pass before NTK's table is drawn.
    const ntkByHand = byHand('ntk', 2);
    assert.deepEqual(ntkByHand, [no, yes, yes, no]);
    await columnIs(ntkByHand);
    await page.keyboard.press('ArrowDown'); // ntk → yarn: the paper's edges α = 1, β = 32 and 1/t = (0.1·ln 2 + 1)² = 1.143
    // The NTK note stands until the YaRN one replaces it: wait for YaRN's.
    await page.waitForFunction(() => /1\.143/.test(document.querySelector('.ropeext-note')?.textContent ?? ''));
    assert.match(await page.locator('.ropeext-note').first().textContent(), /β = 32\.00/);
    // The lab's rescaled edges by keyboard: β = 16/2π = 2.55, pair 0 kept (θ'₀ = 1).
    await tabTo(page, 'select[id$="-edges"]');
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(() => /2\.55/.test(document.querySelector('.ropeext-note')?.textContent ?? ''));
    assert.equal(await page.locator('.ropeext-table tbody tr:first-child td:nth-child(3)').textContent(), '1.00000');
    // The angle colours are cyclic: no cell is drawn with a colour outside the sinebow (the legend wheel is there).
    assert.equal(await page.locator('.ropeext-wheel path').count(), 36);
    if (mode === 'http') await page.screenshot({ path: join(artifacts, `rope-extend-${lang}.png`), fullPage: true });

    // The graded prediction: this learner's s and method, answered by keyboard.
    const { s, method } = variantOf(learner);
    const leaving = leavingByHand(method, s);
    const want = leaving.length ? leaving : ['none'];
    const q = page.locator('[data-question="which-pairs-leave"]');
    assert.match(await q.textContent(), new RegExp(`s = ${s}`));
    // First a wrong answer: exactly the pairs that stay.
    const wrong = leaving.length ? ['p0', 'p1', 'p2', 'p3'].filter((p) => !leaving.includes(p)) : ['p1'];
    await page.mouse.click(1, 1);
    for (const ids of [wrong, want]) {
      for (const id of ['p0', 'p1', 'p2', 'p3', 'none']) {
        const box = q.locator(`input[value="${id}"]`);
        if ((await box.isChecked()) !== ids.includes(id)) {
          await tabTo(page, `[data-question="which-pairs-leave"] input[value="${id}"]`, 400);
          await page.keyboard.press('Space');
        }
      }
      await q.locator('.feedback').evaluate((el) => el.replaceChildren());
      await tabTo(page, '[data-question="which-pairs-leave"] button[type="submit"]');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.querySelector('[data-question="which-pairs-leave"] .feedback')?.textContent.length > 0);
      const cls = await q.locator('.feedback').getAttribute('class');
      if (ids === want) assert.match(cls, /correct/, `${method}, s = ${s}: ${want}`);
      else assert.doesNotMatch(cls, /(^|\s)correct/);
    }
    // axe reads the stylesheets by XHR, which file:// refuses (as the other page tests, axe over http).
    if (mode === 'http') assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems.console, []);
    assert.deepEqual(problems.offOrigin, []);
    assert.deepEqual(problems.csp, []);
    await context.close();
  });
}

for (const mode of ['http', 'file']) test(`${mode} en: Part 2 runs in the Worker by keyboard, matches poslab extend${mode === 'http' ? ', is kept when the student leaves and returns, and cancels' : ''}`, { timeout: 240000 }, async () => {
  const { page, context, problems } = await openPage(lab, mode);
  await gotoReady(page, `${lab.bases[mode]}?learner=ren#ex=rope-extend&lang=en`);
  await page.waitForSelector('.extrun-results');
  // How long two seeds took is the bench's measurement (bench/results/workers.json, read here), or nothing.
  const benchFile = join(root, 'bench', 'results', 'workers.json');
  const benchLine = page.locator('.extrun-bench-time');
  if (existsSync(benchFile)) {
    const r = JSON.parse(readFileSync(benchFile, 'utf8'));
    assert.ok((await benchLine.innerText()).includes(`two seeds took ${r.exercise9.medians['2'].toFixed(1)} s with 2 Web Workers and ${r.exercise9.medians['1'].toFixed(1)} s with one`));
  } else assert.equal(await benchLine.count(), 0);
  assert.doesNotMatch(await page.locator('.extrun-results').innerText(), /about 10 seconds/);
  // The question on the student's own run is locked until a run has finished.
  const runQ = '[data-question="run-solved-all"]';
  assert.match(await page.locator(`${runQ} .run-note`).textContent(), /This question reads your own run\. Run the experiment above to the end/);
  assert.ok(await page.locator(`${runQ} input, ${runQ} button`).evaluateAll((xs) => xs.length === 6 && xs.every((x) => x.disabled)));
  // One seed: choose it from the keyboard, then press Run.
  await page.mouse.click(1, 1);
  await tabTo(page, 'select[id$="run-seeds"]', 300);
  await page.keyboard.press('ArrowUp'); // 2 seeds → 1 seed
  await page.waitForFunction(() => document.querySelector('select[id$="run-seeds"]').value === '0');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Run the experiment');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => Number(document.querySelector('.extrun-results')?.closest('.widget, section, div')?.querySelector('[role="progressbar"]')?.getAttribute('aria-valuenow')) > 0 || document.querySelector('.extrun-table'), null, { timeout: 120000 });
  await page.waitForSelector('.extrun-table', { timeout: 180000 });
  const pageRows = await page.locator('.extrun-table tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.dataset.method, ...[...tr.querySelectorAll('td')].map((td) => td.textContent)]));
  const native = spawnSync(cliPath, ['extend', '--seeds', '1', '--methods', 'none,pi,ntk,yarn', '--task', 'lookback', '--k', '4', '--base', '100', '--finetune-steps', '50', '--yarn-edges', 'lab'], { encoding: 'utf8' });
  assert.equal(native.status, 0, native.stderr);
  const j = JSON.parse(native.stdout);
  for (const [method, zero, zeroSolved, ft, ftSolved] of pageRows) {
    const c = (finetuned) => j.runs[0].curves.find((x) => x.method === method && x.finetuned === finetuned);
    assert.equal(zero, shareText(c(false).meanExtrapolated), `${method} zero-shot`);
    assert.equal(zeroSolved, String(c(false).solvedUpTo));
    assert.equal(ft, shareText(c(true).meanExtrapolated), `${method} fine-tuned`);
    assert.equal(ftSolved, String(c(true).solvedUpTo));
  }
  assert.equal(pageRows.length, 4);
  const verdictText = await page.locator('.extrun-verdict').textContent();
  assert.match(verdictText, /plain RoPE reached/);
  // The verdict's "solved every n in every seed" is the question's rule, read off the native run.
  const solvedAll = j.runs[0].curves.filter((c) => c.finetuned && c.solvedUpTo === 16).map((c) => c.method);
  const names = { none: 'None (plain RoPE)', pi: 'Position Interpolation (PI)', ntk: 'NTK-aware scaling', yarn: "YaRN (lab's rescaled edges)" };
  if (solvedAll.length && solvedAll.length < 4) assert.ok(verdictText.includes(`in every seed: ${solvedAll.map((m) => names[m]).join(', ')}.`), verdictText);
  // PI's note, from the run: shown exactly when PI scored 0 at some trained n (≤ 8).
  const piZero = j.runs[0].curves.find((c) => c.method === 'pi' && !c.finetuned).exactMatch.slice(0, 8).some((v) => v === 0);
  assert.equal(await page.locator('.extrun-pi-note').count(), piZero ? 1 : 0);
  // Now it opens, for this run's seeds. The right options, read off the native run here:
  // the methods whose curve after the fine-tune solved every n up to 16 (else "No method did").
  await page.waitForFunction((q) => !document.querySelector(`${q} input`).disabled, runQ);
  assert.equal(await page.locator(`${runQ} .run-note`).textContent(), 'Answer about your run with seeds 1.');
  const want = j.runs[0].curves.filter((c) => c.finetuned && c.solvedUpTo === 16).map((c) => `method-${c.method}`);
  if (!want.length) want.push('none');
  for (const id of want) {
    await tabTo(page, `${runQ} input[value="${id}"]`);
    await page.keyboard.press('Space');
  }
  await tabTo(page, `${runQ} button[type="submit"]`);
  await page.keyboard.press('Enter');
  await page.waitForFunction((q) => document.querySelector(`${q} .feedback`)?.textContent.length > 0, runQ);
  assert.match(await page.locator(`${runQ} .feedback`).getAttribute('class'), /(^|\s)correct/, `want ${want}`);
  if (mode === 'file') {
    assert.deepEqual(problems.console, []);
    await context.close();
    return;
  }
  await page.screenshot({ path: join(artifacts, 'rope-extend-run-en.png'), fullPage: true });
  assert.deepEqual(await axeViolations(page), []);

  // Leave for another exercise and come back: the run is shown again.
  await gotoReady(page, `${lab.bases.http}?learner=ren#ex=alibi&lang=en`);
  await gotoReady(page, `${lab.bases.http}?learner=ren#ex=rope-extend&lang=en`);
  await page.waitForSelector('.extrun-table');
  const rowsNow = () => page.locator('.extrun-table tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.dataset.method, ...[...tr.querySelectorAll('td')].map((td) => td.textContent)]));
  assert.deepEqual(await rowsNow(), pageRows);
  // A reload (the session is gone): the run comes back from sessionStorage.
  await page.reload();
  await page.waitForSelector('[data-exercise="rope-extend"][data-ready="true"]');
  await page.waitForSelector('.extrun-table');
  assert.match(await page.locator('.extrap-outcome').textContent(), /Your last run in this tab \(seeds 1\)/);
  assert.deepEqual(await page.locator('.extrun-table tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.dataset.method, ...[...tr.querySelectorAll('td')].map((td) => td.textContent)])), pageRows);

  // Cancel: start again and press Cancel as soon as it runs.
  await page.locator('button.train-button').click();
  await page.waitForFunction(() => !document.querySelector('.cancel-button')?.disabled);
  await page.locator('button.cancel-button').click();
  await page.waitForFunction(() => /Cancelled/.test(document.querySelector('.extrap-outcome')?.textContent ?? ''), null, { timeout: 60000 });
  // The kept run still answers for seeds 1.
  assert.equal(await page.locator(`${runQ} .run-note`).textContent(), 'Answer about your run with seeds 1.');

  // The submission keeps the run's seeds with the answer; poslab grade and the
  // class results page re-grade it from the core's run, not from the file.
  await gotoReady(page, `${lab.bases.http}?learner=ren#lang=en`);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('.grading-download')]);
  const subFile = join(artifacts, 'rope-extend-ren.json');
  await download.saveAs(subFile);
  const entry = JSON.parse(readFileSync(subFile, 'utf8')).exercises.find((e) => e.id === 'rope-extend');
  const answered = entry.attempts.filter((a) => a.question === 'run-solved-all');
  assert.equal(answered.length, 1);
  assert.deepEqual(answered[0].lab.runSeeds, [1]);
  assert.deepEqual([...answered[0].answer].sort(), [...want].sort());
  const graded = spawnSync(cliPath, ['grade', '--exercises', join(root, 'exercises'), subFile, '--format', 'json'], { encoding: 'utf8' });
  const cliRows = JSON.parse(graded.stdout).rows;
  const row = cliRows.find((r) => r.exercise === 'rope-extend');
  assert.equal(row.status, 'graded', row.message);
  assert.equal(row.questions.find((q) => q.id === 'run-solved-all').points, 1);
  assert.equal(row.claimedDiffers, false);
  const cliTotal = cliRows.filter((r) => r.status === 'graded').reduce((a, r) => a + r.points, 0);
  await page.goto(new URL('instructor.html', lab.bases.http).href);
  await page.setInputFiles('#files', [subFile]);
  await page.waitForSelector('#summary', { timeout: 60000 });
  assert.equal(Number(await page.locator('#roster tbody tr[data-learner="ren"]').getAttribute('data-total')), cliTotal);
  assert.deepEqual(problems.console, []);
  assert.deepEqual(problems.csp, []);
  await context.close();
});
