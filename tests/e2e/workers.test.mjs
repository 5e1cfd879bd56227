// Runs across Workers (issue 25): exercise 7's experiment trained by 1 Web
// Worker and by 2 and 3 (workers=N in the link fixes the count), over http
// and from file:// (blob: Workers); every number the page keeps and shows is
// equal, and equal to the core's own runs in Node. Exercise 9's Part 2 (two
// seeds) by 1 and 2 Workers, the same. A bad workers= value is said in
// place, in English and Japanese. Keyboard only (Tab from the top, Enter);
// every wait is for the new run's own state (its Worker count), never one the
// page showed before the key was pressed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLab, openPage, gotoReady, urlFor, nodeCore, TIMEOUT_SCALE } from './helpers.mjs';

let lab, core;
before(async () => {
  lab = await startLab();
  core = await nodeCore();
});
after(async () => {
  await lab?.close();
});

const T = (ms) => ms * TIMEOUT_SCALE;
const W7 = '[data-widget="train"]';
const W9 = '[data-widget="run"]';

// Presses Tab from the top of the page until selector has the focus.
async function tabFromTop(page, selector, n = 400) {
  await page.keyboard.press('Tab');
  for (let i = 0; i < n; i++) {
    if (await page.evaluate((s) => !!document.activeElement?.matches(s), selector)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`${selector} not reached with Tab`);
}

// What the tab keeps of exercise 7's finished run (extrap-run.js), seconds left out.
async function keptRun(page) {
  const text = await page.evaluate(() => Object.keys(sessionStorage).map((k) => sessionStorage.getItem(k)).find((v) => v.startsWith('{"v":1,')));
  const run = JSON.parse(text);
  const { workers, ...options } = run.options; // the count asked for is kept with the run; the rest must be equal
  return { options, results: run.results.map(({ seconds, ...r }) => r), losses: run.losses };
}

// What the page shows: the results table, the exact-match plot's table and the loss tables, as text.
async function shown(page) {
  return page.evaluate((w) => ['.extrap-table', '.em-plot table.data-table', '.extrap-losses table.data-table'].map((s) => [...document.querySelectorAll(`${w} ${s}`)].map((t) => t.textContent).join('|')), W7);
}

const SCHEMES = ['learned', 'rope', 'none'];
const SEEDS = [1, 2];
const STEPS = 30;

async function train7(mode, workers) {
  const { page, context, problems } = await openPage(lab, mode);
  try {
    await gotoReady(page, urlFor(lab, mode, { ex: 'train-short-test-long', lang: 'en', extra: `&schemes=${SCHEMES.join(',')}&seeds=${SEEDS.join(',')}&steps=${STEPS}&workers=${workers}` }));
    assert.equal(await page.locator(`${W7} .extrap-msg`).textContent(), '', 'workers=N is a valid count');
    await tabFromTop(page, `${W7} .train-button`);
    await page.keyboard.press('Enter');
    // The run's own end: done, by this many Workers (a kept run shows 0).
    await page.waitForSelector(`${W7}[data-status="done"][data-workers="${workers}"]`, { timeout: T(300000) });
    const outcome = await page.locator(`${W7} .extrap-outcome`).textContent();
    if (workers === 1) assert.match(outcome, /in a Web Worker\)/);
    else assert.match(outcome, new RegExp(`in ${workers} Web Workers side by side\\)`));
    assert.equal(await page.locator(`${W7} [role="progressbar"]`).getAttribute('data-steps-done'), String(SCHEMES.length * SEEDS.length * STEPS));
    const out = { kept: await keptRun(page), shown: await shown(page) };
    assert.deepEqual(problems.console, []);
    return out;
  } finally {
    await context.close();
  }
}

// The same runs in Node, one at a time, seven steps a call.
function nodeRuns() {
  const out = [];
  for (const seed of SEEDS)
    for (const scheme of SCHEMES) {
      const run = new core.ExtrapolationRun({ scheme, seed, steps: STEPS });
      try {
        const losses = [];
        while (!run.done()) losses.push(...run.step(7).loss);
        const ev = run.evaluate();
        out.push({ scheme, seed, losses, exactMatch: Array.from(ev.exactMatch), solvedUpTo: ev.solvedUpTo, meanExtrapolated: ev.meanExtrapolated });
      } finally {
        run.delete();
      }
    }
  return out;
}

// From file:// (blob: Workers) 1 and 2 Workers: how runs are split over 3 is the http test's.
for (const [mode, more] of [['http', [2, 3]], ['file', [2]]]) {
  test(`${mode}: exercise 7 with 1, ${more.join(' and ')} Workers: every number equal, and equal to the core in Node`, { timeout: T(900000) }, async () => {
    const one = await train7(mode, 1);
    // The one-Worker run is the core's: every loss and test, run by run in run order.
    const want = nodeRuns();
    assert.deepEqual(one.kept.results.map((r) => [r.scheme, r.seed]), want.map((r) => [r.scheme, r.seed]), 'results in run order');
    for (const [i, r] of one.kept.results.entries()) {
      assert.deepEqual(r.evaluation.exactMatch, want[i].exactMatch, `${r.scheme} seed ${r.seed}: exact match`);
      assert.equal(r.evaluation.solvedUpTo, want[i].solvedUpTo);
      assert.equal(r.evaluation.meanExtrapolated, want[i].meanExtrapolated);
      assert.deepEqual(one.kept.losses[`${r.scheme}|${r.seed}`], want[i].losses, `${r.scheme} seed ${r.seed}: losses`);
    }
    for (const workers of more) {
      const many = await train7(mode, workers);
      assert.deepEqual(many.kept, one.kept, `${workers} Workers: every kept number`);
      assert.deepEqual(many.shown, one.shown, `${workers} Workers: every number shown`);
    }
  });
}

test('http: exercise 9 Part 2, two seeds, with 1 and 2 Workers: the same curves', { timeout: T(900000) }, async () => {
  const runs = [];
  for (const workers of [1, 2]) {
    const { page, context, problems } = await openPage(lab, 'http');
    try {
      await gotoReady(page, urlFor(lab, 'http', { ex: 'rope-extend', lang: 'en', extra: `&workers=${workers}` }));
      assert.equal(await page.locator(`${W9} .extrap-msg`).count(), 0);
      assert.equal(await page.locator(`${W9} select`).inputValue(), '1', 'two seeds (1, 2) by default');
      await tabFromTop(page, `${W9} .train-button`);
      await page.keyboard.press('Enter');
      await page.waitForSelector(`${W9}[data-status="done"][data-workers="${workers}"]`, { timeout: T(600000) });
      const kept = JSON.parse(await page.evaluate(() => sessionStorage.getItem('poslab.rope-extend.run.v2')));
      const table = await page.locator(`${W9} .extrun-table`).textContent();
      runs.push({ kept, table });
      assert.deepEqual(problems.console, []);
    } finally {
      await context.close();
    }
  }
  assert.deepEqual(runs[0].kept.seeds, [1, 2]);
  assert.deepEqual(runs[0].kept.results.map((r) => r.seed), [1, 2], 'seeds in order');
  assert.deepEqual(runs[1].kept, runs[0].kept, 'every curve of both seeds');
  assert.equal(runs[1].table, runs[0].table);
});

for (const [lang, bad, pattern] of [
  ['en', '0', /The link's workers="0" is not used: it must be a whole number from 1 to 8/],
  ['en', '2.5', /workers="2\.5" is not used/],
  ['ja', 'many', /リンクの workers=「many」は使いません。1 から 8 までの整数/],
  ['ja', '9', /workers=「9」/],
]) {
  test(`a bad workers=${bad} is said in place (${lang}) on exercises 7 and 9`, { timeout: T(120000) }, async () => {
    const { page, context, problems } = await openPage(lab, 'http');
    try {
      await gotoReady(page, urlFor(lab, 'http', { ex: 'train-short-test-long', lang, extra: `&schemes=none&seeds=1&steps=10&workers=${encodeURIComponent(bad)}` }));
      assert.match(await page.locator(`${W7} .extrap-msg`).textContent(), pattern);
      await gotoReady(page, urlFor(lab, 'http', { ex: 'rope-extend', lang, extra: `&workers=${encodeURIComponent(bad)}` }));
      assert.match(await page.locator(`${W9} .extrap-msg`).textContent(), pattern);
      assert.deepEqual(problems.console, []);
    } finally {
      await context.close();
    }
  });
}
