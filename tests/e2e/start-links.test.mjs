// The start page's instructor entries lead where they say, in the page's
// language: the class results page (instructor.html) and presenter mode.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLab, openPage, urlFor, gotoReady } from './helpers.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

for (const [mode, lang] of [['http', 'en'], ['file', 'ja']]) {
  test(`${mode} ${lang}: the start page's "class results" link opens the results page in the same language`, { timeout: 60000 }, async () => {
    const { page, context, problems } = await openPage(lab, mode);
    await gotoReady(page, urlFor(lab, mode, { lang }));
    await page.click('#results-link');
    await page.waitForSelector('#files', { state: 'attached', timeout: 30000 });
    assert.match(page.url(), /instructor\.html/);
    assert.equal(await page.getAttribute('html', 'lang'), lang);
    assert.equal(await page.locator('.lang-switch [aria-pressed="true"]').getAttribute('data-lang'), lang);
    assert.deepEqual(problems.console, []);
    assert.deepEqual(problems.csp, []);
    await context.close();
  });
}
