// Exercise 4 shows the sinusoidal table's wavelengths, computed by the core:
// 2π·10000^{2i/D} positions per turn of pair i (worked out here by hand).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLab, openPage, gotoReady, urlFor } from './helpers.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

test('add position: the sinusoidal wavelengths per pair; none for learned', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'add-position', extra: '&pe=sinusoidal&d=8' }));
  const cells = await page.locator('.pe-wavelengths tbody td').allInnerTexts();
  const want = [0, 1, 2, 3].map((i) => 2 * Math.PI * 10000 ** ((2 * i) / 8));
  assert.equal(cells.length, 4);
  cells.forEach((c, i) => assert.ok(Math.abs(Number(c.replace(/,/g, '')) - want[i]) <= Math.max(0.05, want[i] * 1e-4), `pair ${i}: ${c} vs ${want[i]}`));
  await gotoReady(page, urlFor(lab, 'http', { ex: 'add-position', extra: '&pe=learned&d=8' }));
  assert.equal(await page.locator('.pe-wavelengths').count(), 0);
  assert.deepEqual(problems.console, []);
  await context.close();
});
