// Screenshots for the visA report (not committed).
import { startLab, openPage, gotoReady, urlFor } from '../tests/e2e/helpers.mjs';
import { join } from 'node:path';
const out = '/work/wt/visA/test-artifacts/visA';
const lab = await startLab();
const which = process.argv[2] ?? 'main';
const exAll = ['reorder','formula','hand-calc','add-position','causal-mask','wall-1024','train-short-test-long','rope','rope-extend','alibi','check','write-the-code'];
const jobs = [];
if (which === 'main') for (const ex of ['hand-calc','add-position','alibi']) for (const lang of ['ja','en']) for (const [w,h] of [[1280,800],[390,844]]) jobs.push({ex,lang,w,h});
if (which === 'phone') for (const ex of exAll) jobs.push({ex,lang:'ja',w:390,h:844});
if (which === 'phone-en') for (const ex of exAll) jobs.push({ex,lang:'en',w:390,h:844});
for (const j of jobs) {
  const { page, context } = await openPage(lab, 'http', { viewport: { width: j.w, height: j.h } });
  try {
    await gotoReady(page, urlFor(lab, 'http', { ex: j.ex, lang: j.lang }));
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(out, `${j.ex}-${j.lang}-${j.w}.png`) });
    console.log('ok', j.ex, j.lang, j.w);
  } catch (e) { console.log('fail', j.ex, j.lang, j.w, e.message.slice(0, 200)); }
  await context.close();
}
await lab.close();
