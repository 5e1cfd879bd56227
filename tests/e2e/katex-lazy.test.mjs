// KaTeX is not in app.js (web/js/rich.js): the start page must be usable
// before KaTeX's script has arrived, an exercise must be typeset when it
// shows, and a page whose KaTeX cannot load still reads (each formula's plain
// reading, never raw TeX).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLab, openPage, urlFor, gotoReady, RAW_TEX } from './helpers.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

const typeset = (page) =>
  page.evaluate(() => ({
    katex: document.querySelectorAll('#main .katex').length,
    pending: document.querySelectorAll('#main .tex-pending').length,
  }));

test('the start page is interactive while KaTeX is still on its way; the exercise then is typeset', { timeout: 90000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  let release;
  const held = new Promise((resolve) => (release = resolve));
  let asked = false;
  await page.route('**/katex/katex.min.js', async (route) => {
    asked = true;
    await held;
    await route.continue();
  });
  await gotoReady(page, urlFor(lab, 'http', { lang: 'en' }));
  await page.waitForFunction(() => document.body.dataset.core, null, { timeout: 30000 });
  // Ready and answering with KaTeX held back: nothing waited for it.
  assert.equal(await page.evaluate(() => typeof window.katex), 'undefined');
  await page.getByRole('link', { name: /./ }).first().waitFor();
  // …and it is asked for once the first screen is up, not later when a formula is needed.
  await page.waitForFunction(() => document.querySelector('script[src="katex/katex.min.js"]'), null, { timeout: 10000 });
  // The request leaves a moment after the <script> is in the page, and its route
  // handler runs here in Node after that: wait for it (bounded), do not read it at once.
  for (let i = 0; i < 400 && !asked; i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(asked, 'katex.min.js requested after the start page was ready');
  release();
  await page.waitForFunction(() => typeof window.katex === 'object', null, { timeout: 30000 });
  await gotoReady(page, urlFor(lab, 'http', { ex: 'formula', lang: 'en' }));
  const n = await typeset(page);
  assert.ok(n.katex > 0, 'formulas typeset by KaTeX');
  assert.equal(n.pending, 0);
  assert.deepEqual(problems.console, []);
  assert.deepEqual(problems.csp, []);
  await context.close();
});

for (const mode of ['http', 'file']) {
  test(`an exercise opened directly is typeset from the start (${mode})`, { timeout: 90000 }, async () => {
    const { page, context, problems } = await openPage(lab, mode);
    await gotoReady(page, urlFor(lab, mode, { ex: 'hand-calc' }));
    const n = await typeset(page);
    assert.ok(n.katex > 0, 'formulas typeset by KaTeX');
    assert.equal(n.pending, 0);
    assert.deepEqual(problems.console, []);
    assert.deepEqual(problems.csp, []);
    await context.close();
  });
}

test('if KaTeX cannot load, formulas read as plain text, not raw TeX, and widgets still draw', { timeout: 90000 }, async () => {
  const { page, context } = await openPage(lab, 'http');
  await page.route('**/katex/katex.min.js', (route) => route.abort());
  await gotoReady(page, urlFor(lab, 'http', { ex: 'formula', lang: 'en' }));
  const n = await typeset(page);
  assert.equal(n.katex, 0);
  assert.ok(n.pending > 0, 'plain readings stand in for the formulas');
  const text = await page.evaluate(() => document.getElementById('main').textContent);
  assert.doesNotMatch(text, RAW_TEX);
  await context.close();
});
