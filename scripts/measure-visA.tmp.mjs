import { startLab, openPage, gotoReady, urlFor } from '../tests/e2e/helpers.mjs';
const lab = await startLab();
const lang = process.argv[2] ?? 'ja';
const exAll = (process.argv[3] ?? 'reorder,formula,hand-calc,add-position,causal-mask,wall-1024,train-short-test-long,rope,rope-extend,alibi,check,write-the-code').split(',');
const { page, context } = await openPage(lab, 'http', { viewport: { width: 390, height: 844 } });
for (const ex of exAll) {
  await gotoReady(page, urlFor(lab, 'http', { ex, lang }));
  await page.evaluate(() => window.scrollTo(0, 0));
  const s = await page.evaluate(() => {
    const main = document.querySelector('[data-main-visual]');
    const d = main && [...main.querySelectorAll('svg, canvas, .heatmap-grid, .hc-orders, .diff-grid, .clocks')].find((e) => e.getBoundingClientRect().height > 20);
    const c = document.querySelector('.exercise .controls');
    const r = (e) => e ? [Math.round(e.getBoundingClientRect().top), Math.round(e.getBoundingClientRect().bottom)] : null;
    return { main: r(main), drawing: r(d), tag: d ? (d.className.baseVal ?? d.className) : null, controls: r(c), header: r(document.querySelector('.site-header')), sx: document.documentElement.scrollWidth > innerWidth };
  });
  console.log(ex, JSON.stringify(s));
}
await context.close(); await lab.close();
