// Issue 24, exercises 4, 5, 6 and 7's phone box (part G). Each test fails if the defect it names
// comes back.
//
// - Exercise 6 at 1280×800: the trained table's first view (its row-norm plot) starts within the
//   first two screens (top < 1,600 px), the wall picture still whole on the first screen. Before:
//   1,654 px (ja) and 1,709 px (en), under the model-file box (now under the views).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLab, openPage, gotoReady, urlFor, T } from './helpers.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

for (const lang of ['ja', 'en']) {
  test(`1280×800 ${lang}: exercise 6's trained-table views within the first two screens, the wall picture whole on the first`, { timeout: T(180000) }, async () => {
    const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
    await gotoReady(page, urlFor(lab, 'http', { ex: 'wall-1024', lang }));
    await page.waitForSelector('.wall-table .table-views[data-kind="table"] figure', { timeout: T(120000) });
    const at = await page.evaluate(() => {
      const top = (e) => e.getBoundingClientRect().top + window.scrollY;
      const pic = document.querySelector('.wall-picture-box svg').getBoundingClientRect();
      const views = document.querySelector('.wall-table .table-views[data-kind="table"]');
      return { view: top(views.querySelector('figure')), pic: { top: pic.top + window.scrollY, bottom: pic.bottom + window.scrollY }, fileBox: top(document.querySelector('.wall-table .table-drop')), viewsBottom: views.getBoundingClientRect().bottom + window.scrollY };
    });
    assert.ok(at.view < 1600, `the trained table's first view starts at ${Math.round(at.view)} px, not within the first two screens`);
    assert.ok(at.pic.top >= 0 && at.pic.bottom <= 800, `the wall picture at ${Math.round(at.pic.top)}–${Math.round(at.pic.bottom)} px, not whole on the first screen`);
    // The model-file box is still there, under the views it changes.
    assert.ok(at.fileBox > at.viewsBottom, 'the model-file box is under the views');
    assert.deepEqual(problems.console, []);
    await context.close();
  });
}
