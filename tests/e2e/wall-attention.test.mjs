// Issue 5 in the page: the 1024-wall exercise runs self-attention at GPT-2
// small's shape (D = 768, 12 heads) over the whole sequence in the core's
// Worker, with its progress shown; past 1024 tokens the learned table fails
// in place while sinusoidal and RoPE give outputs — the same numbers as the
// core computes in Node for the same options.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startLab, openPage, gotoReady, urlFor, nodeCore, artifacts, settled } from './helpers.mjs';

let lab, core;
before(async () => {
  lab = await startLab();
  core = await nodeCore();
});
after(async () => {
  await lab?.close();
});

test('http: attention at S = 1501 in the Worker — learned fails past 1024, sinusoidal and RoPE match the core', { timeout: 120000 }, async () => {
  const { page, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'wall-1024' }));
  assert.equal(await page.evaluate(() => document.body.dataset.core), 'worker');
  const widget = page.locator('[data-widget="wall"]');
  await widget.locator('input[type="number"]').fill('1500');
  await page.keyboard.press('Tab'); // leaving the field commits what was typed
  await widget.locator('.gpt2-run').click();
  // While it runs the page answers: the progress is shown and the panel is busy.
  await page.waitForFunction(() => document.querySelector('.gpt2-attention')?.getAttribute('aria-busy') === 'true');
  assert.equal(await page.evaluate(() => 1 + 1), 2);
  // The numbers are one click away (a closed details under the bars): attached, not shown.
  await page.waitForSelector('.gpt2-table tbody tr[data-scheme="rope"]', { timeout: 90000, state: 'attached' });
  assert.equal(await widget.locator('.gpt2-table tr[data-scheme="learned"]').getAttribute('data-ok'), 'false');
  assert.match(await widget.locator('.gpt2-out').innerText(), /1024/);
  // The position's own redraw (the three panels at 1500, started by the Tab) has landed too.
  await settled(page);
  // The learned table's error is said once on the page (its panel), in Japanese; the
  // attention table points to it instead of repeating it.
  const text = await page.locator('main').innerText();
  assert.equal(text.split('学習型の表にありません').length - 1, 1, 'the learned-table error once');
  assert.doesNotMatch(text, /has no row|コアのメッセージ/);

  const sentence = core.tokenize('犬が猫を追いかけた');
  const S = 1501;
  const tokens = Array.from({ length: S }, (_, i) => sentence[i % sentence.length]);
  for (const pe of ['sinusoidal', 'rope']) {
    assert.equal(await widget.locator(`.gpt2-table tr[data-scheme="${pe}"]`).getAttribute('data-ok'), 'true');
    const shown = (await widget.locator(`.gpt2-table tr[data-scheme="${pe}"] td`).nth(1).textContent()).split(',').map(Number);
    const r = core.forward({ tokens, pe, dModel: 768, heads: 12, weights: 'random', seed: 0, returnAttention: false });
    const want = Array.from(r.output.data.slice((S - 1) * 768, (S - 1) * 768 + 4)).map((v) => Number(v.toFixed(3)));
    assert.deepEqual(shown.map((v) => Number(v.toFixed(3))), want, pe);
  }
  assert.throws(() => core.forward({ tokens, pe: 'learned', dModel: 768, heads: 12, returnAttention: false }), /1024/);
  await page.screenshot({ path: join(artifacts, 'http-ja-wall-attention.png'), fullPage: true });
  assert.deepEqual(problems.console, []);
});
