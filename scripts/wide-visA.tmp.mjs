import { startLab, openPage, gotoReady, urlFor } from '../tests/e2e/helpers.mjs';
const lab = await startLab();
const { page, context } = await openPage(lab, 'http', { viewport: { width: 390, height: 844 } });
await gotoReady(page, urlFor(lab, 'http', { ex: process.argv[2] ?? 'rope', lang: process.argv[3] }));
console.log(await page.evaluate(() => { const out = []; for (const e of document.querySelectorAll('body *')) { const r = e.getBoundingClientRect(); if (r.right > innerWidth + 1) out.push(`${e.tagName}.${e.className?.baseVal ?? e.className} ${Math.round(r.left)}-${Math.round(r.right)}`); } return [document.documentElement.scrollWidth, ...out.slice(0, 12)]; }));
await context.close(); await lab.close();
