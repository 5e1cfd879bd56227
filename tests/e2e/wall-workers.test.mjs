// Issue 25 in the page: the wall's GPT-2-shape attention spread over Web
// Workers by heads (web/js/core/attention-split.js). With workers=2 in the
// link, from http and from file://, the bars and the numbers are those of
// workers=1, and the four values of the last token equal one forward call
// of the core in Node bit for bit (data-last holds them exactly).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLab, openPage, gotoReady, urlFor, nodeCore } from './helpers.mjs';

let lab, core;
before(async () => {
  lab = await startLab();
  core = await nodeCore();
});
after(async () => {
  await lab?.close();
});

const S = 1101;

// Tab from the top of the page, as a person does, until `selector` has the focus.
async function tabTo(page, selector) {
  await page.evaluate(() => document.activeElement?.blur());
  for (let i = 0; i < 300; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((sel) => !!document.activeElement?.matches(sel), selector)) return;
  }
  throw new Error(`Tab never reached ${selector}`);
}

// Runs the wall's attention at length S with workers=N; returns what it drew.
async function runWall(mode, workers) {
  const { page, context, problems } = await openPage(lab, mode);
  try {
    await gotoReady(page, urlFor(lab, mode, { ex: 'wall-1024', extra: `&workers=${workers}` }));
    assert.equal(await page.evaluate(() => document.body.dataset.core), 'worker');
    await tabTo(page, '[data-widget="wall"] input[type="number"]');
    await page.keyboard.press('Control+A');
    await page.keyboard.type(String(S - 1));
    await tabTo(page, '[data-widget="wall"] .gpt2-run');
    await page.keyboard.press('Enter');
    // Not satisfiable before the run: no result was shown on this page yet.
    await page.waitForSelector(`.gpt2-attention[data-shown-s="${S}"]`, { state: 'attached', timeout: 300000 });
    const drawn = await page.evaluate(() => {
      const section = document.querySelector('.gpt2-attention');
      const rows = [...section.querySelectorAll('.gpt2-table tbody tr')].map((tr) => ({
        scheme: tr.dataset.scheme,
        ok: tr.dataset.ok,
        last: tr.dataset.last,
        shown: tr.querySelectorAll('td')[1].textContent,
      }));
      return { workers: section.dataset.workers, bars: section.querySelector('.gpt2-figure').outerHTML, rows };
    });
    assert.deepEqual(problems.console, []);
    assert.deepEqual(problems.csp, []);
    return drawn;
  } finally {
    await context.close();
  }
}

test('the wall over two Workers draws the bars and numbers of one Worker, from http and file://', { timeout: 900000 }, async () => {
  const one = await runWall('http', 1);
  const two = await runWall('http', 2);
  const twoFile = await runWall('file', 2);
  assert.equal(one.workers, '1');
  assert.equal(two.workers, '2');
  assert.equal(twoFile.workers, '2');
  assert.deepEqual(two.rows, one.rows);
  assert.equal(two.bars, one.bars, 'the bars are unchanged');
  assert.deepEqual(twoFile.rows, one.rows);
  assert.equal(twoFile.bars, one.bars);
  // The learned table stops at 1024 rows: that scheme fails, split or not.
  assert.equal(one.rows.find((r) => r.scheme === 'learned').ok, 'false');

  // One forward call in Node, the same options as the page's.
  const sentence = core.tokenize('犬が猫を追いかけた');
  const tokens = Array.from({ length: S }, (_, i) => sentence[i % sentence.length]);
  for (const pe of ['sinusoidal', 'rope']) {
    const row = two.rows.find((r) => r.scheme === pe);
    assert.equal(row.ok, 'true', pe);
    const r = core.forward({ tokens, pe, dModel: 768, heads: 12, weights: 'random', seed: 0, returnAttention: false });
    const want = Array.from(r.output.data.slice((S - 1) * 768, (S - 1) * 768 + 4));
    assert.deepEqual(row.last.split(' ').map(Number), want, pe);
  }
});

test('a bad workers= in the link is said in the page, and the attention still runs', { timeout: 300000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  try {
    await gotoReady(page, urlFor(lab, 'http', { ex: 'wall-1024', extra: '&workers=0' }));
    const note = page.locator('.gpt2-workers-error');
    assert.match(await note.innerText(), /workers=「0」.*1 から 8 まで/);
    await tabTo(page, '[data-widget="wall"] .gpt2-run');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.gpt2-attention[data-shown-s]', { state: 'attached', timeout: 300000 });
    assert.ok(Number(await page.locator('.gpt2-attention').getAttribute('data-workers')) >= 1);
    assert.deepEqual(problems.console, []);
  } finally {
    await context.close();
  }
});
