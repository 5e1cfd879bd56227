// No raw TeX on any page: every exercise and the start page, in Japanese and
// English, are walked and their visible text (KaTeX's hidden MathML copy
// aside) must not contain TeX markers: a subscript `x_1`, a superscript
// `^{…}` or a backslash command `\cdot`. (Code samples in <code> are code.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLab, openPage, urlFor, gotoReady, RAW_TEX } from './helpers.mjs';
import { loadExercises } from '../../web/js/exercise-loader.mjs';
import { join } from 'node:path';
import { root } from './helpers.mjs';

const exercises = loadExercises(join(root, 'exercises'));
let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});


async function visibleText(page) {
  return page.evaluate(() => {
    const main = document.getElementById('main').cloneNode(true);
    for (const e of main.querySelectorAll('.katex-mathml, code, script, style, [hidden]')) e.remove();
    // Open every <details>: what a student can reveal counts too.
    return main.textContent;
  });
}

test('no raw TeX in the visible text of any page, ja and en', { timeout: 180000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  const found = [];
  for (const lang of ['ja', 'en']) {
    for (const ex of [null, ...exercises]) {
      await gotoReady(page, urlFor(lab, 'http', { ex: ex?.id, lang }));
      // data-ready: the widgets are drawn (their captions and labels come with the core's results).
      const text = await visibleText(page);
      // Nor a stray "null" / "undefined" from a missing part.
      if (/\b(null|undefined|NaN)\b/.test(text)) found.push(`${lang} ${ex?.id ?? 'start'}: ${text.match(/.{0,30}\b(null|undefined|NaN)\b.{0,10}/s)[0]}`);
      // Nor arithmetic left for the reader in a title ("位置 0〜1024−1").
      const titles = await page.locator('#main :is(caption, figcaption, h2, h3, h4)').allTextContents();
      for (const title of titles) if (/\d\s*[−-]\s*1(?!\d)/.test(title)) found.push(`${lang} ${ex?.id ?? 'start'}: title "${title}"`);
      for (const m of text.matchAll(new RegExp(RAW_TEX.source, 'g'))) found.push(`${lang} ${ex?.id ?? 'start'}: …${text.slice(Math.max(0, m.index - 30), m.index + 30).replace(/\s+/g, ' ')}…`);
    }
  }
  assert.deepEqual(found, []);
  assert.deepEqual(problems.console, []);
  await context.close();
});
