// ALiBi over a longer sequence: with every q·k equal, the last token's weight
// on the token d back is e^{−m_h·d} / Σ_{d'<L} e^{−m_h·d'}, with the paper's
// slopes m_h = 2^{−8h/H}, worked out here; the steepest head leans most on
// the nearest token. The length slider is moved with the keyboard.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLab, openPage, gotoReady, urlFor, openGate } from './helpers.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

const expected = (H, L) =>
  Array.from({ length: H }, (_, hd) => {
    const m = 2 ** ((-8 * (hd + 1)) / H);
    const z = Array.from({ length: L }, (_, d) => Math.exp(-m * d)).reduce((a, b) => a + b, 0);
    return Array.from({ length: L }, (_, d) => Math.exp(-m * d) / z);
  });

async function falloffTable(page) {
  return page.locator('.alibi-distance .lineplot-figure table, .alibi-distance table.data-table').first().evaluate((t) => [...t.querySelectorAll('tbody tr')].map((tr) => ({ d: Number(tr.querySelector('th').textContent), ys: [...tr.querySelectorAll('td')].map((td) => Number(td.textContent)) })));
}

test('ALiBi: the last token\'s weight by distance per head is softmax(−m_h·d); the length slider by keyboard', { timeout: 90000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'alibi' }));
  await openGate(page, 'al');
  await page.waitForSelector('.alibi-distance');
  let rows = await falloffTable(page);
  let want = expected(4, 24);
  assert.ok(rows.length >= 12);
  for (const r of rows) r.ys.forEach((y, hd) => assert.ok(Math.abs(y - want[hd][r.d]) <= 0.0006, `head ${hd + 1}, d = ${r.d}: ${y} vs ${want[hd][r.d]}`));
  // Nearer tokens weigh more in every head, and most in the steepest head.
  const first = rows.find((r) => r.d === 0).ys;
  assert.ok(first[0] > first[1] && first[1] > first[2] && first[2] > first[3]);

  // The slider: Tab to it, End → L = 32.
  await page.mouse.click(1, 1);
  for (let i = 0; i < 150 && !(await page.evaluate(() => document.activeElement?.id === 'al-length')); i++) await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'al-length');
  await page.keyboard.press('End');
  await page.waitForFunction(() => document.querySelector('.alibi-distance')?.textContent.includes('L = 32'));
  rows = await falloffTable(page);
  want = expected(4, 32);
  for (const r of rows) r.ys.forEach((y, hd) => assert.ok(Math.abs(y - want[hd][r.d]) <= 0.0006, `L=32 head ${hd + 1}, d = ${r.d}`));
  // Every head's bias on one colour scale: the steepest head's far corner, −m_1·(L − 1).
  const legend = await page.locator('.alibi-distance .heatmap .hm-legend').first().textContent();
  assert.match(legend, new RegExp((-0.25 * 31).toFixed(3).replace('.', '\\.')));
  assert.deepEqual(problems.console, []);
  await context.close();
});
