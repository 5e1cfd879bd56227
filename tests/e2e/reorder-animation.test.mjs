// The reorder animates: moving a chip by keyboard slides the chips, each
// token's output row (exercise 1's table of the reordered sentence), the
// lines' labels, and the cells of Attention(PX) (exercise 2) to their new
// places. With prefers-reduced-motion: reduce nothing moves, and the
// keyboard listbox and its announcements work the same.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLab, openPage, gotoReady, urlFor, nextFrames } from './helpers.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

// Every animation that starts on the page from now on (Web Animations, CSS
// transitions, CSS animations), named by what it moves. Each one is noted
// when it is made: element.animate() is wrapped, and the transitionrun and
// animationstart events are heard. A per-frame look at
// document.getAnimations() alone can miss a 260 ms slide that starts and ends
// between two frames of a starved machine (seen once on a quiet run). The
// frames in which something moved are kept for a timing report.
async function watchAnimations(page) {
  await page.evaluate(() => {
    window.__seen = new Set();
    window.__frames = [];
    const note = (el) => {
      if (!el || el.nodeType !== 1) return;
      const name = el.dataset?.flip ?? (el.classList.contains('line-label') ? `label:${el.dataset.hlToken}` : el.classList.contains('att-line') ? 'line' : `other:${el.tagName}.${el.getAttribute('class')}`);
      window.__seen.add(name);
    };
    const animate = Element.prototype.animate;
    Element.prototype.animate = function (...args) {
      const a = animate.apply(this, args);
      note(this);
      return a;
    };
    document.addEventListener('transitionrun', (e) => note(e.target), true);
    document.addEventListener('animationstart', (e) => note(e.target), true);
    const tick = (now) => {
      if (now && document.getAnimations().length) window.__frames.push(now);
      for (const a of document.getAnimations()) note(a.effect?.target);
      requestAnimationFrame(tick);
    };
    tick();
  });
}
const seen = (page) => page.evaluate(() => [...window.__seen].sort());

// After the page has drawn the move: a few frames for the slides to start,
// then until every slide named in `expected` (and one matching `pattern`, if
// given) has been seen and no finite animation is still running. Not a time:
// a starved machine only makes this take longer.
async function slidesOver(page, expected, pattern = null) {
  await nextFrames(page, 3);
  try {
    await page.waitForFunction(
      ([names, src]) =>
        names.every((n) => window.__seen.has(n)) &&
        (!src || [...window.__seen].some((n) => new RegExp(src).test(n))) &&
        document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().endTime === Infinity),
      [expected, pattern],
    );
  } catch (e) {
    // Say which part never came: a missing slide, or one still running.
    const state = await page.evaluate(() => ({
      seen: [...window.__seen].sort(),
      running: document.getAnimations().filter((a) => a.playState === 'running').map((a) => `${a.effect?.target?.getAttribute?.('class') ?? '?'} ${a.effect?.target?.dataset?.flip ?? ''} ends ${a.effect?.getComputedTiming().endTime}`),
    }));
    e.message += `\nexpected ${expected.join(', ')}${pattern ? ` and /${pattern}/` : ''}; seen ${state.seen.join(', ') || 'nothing'}; running ${state.running.join(' | ') || 'nothing'}`;
    throw e;
  }
}

async function tabToChips(page) {
  await page.mouse.click(1, 1);
  for (let n = 0; n < 80; n++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(() => document.activeElement?.classList.contains('chip'))) return;
  }
  throw new Error('no chip reached by Tab');
}
const liveText = (page) => page.locator('[data-widget="chips"] .sr-only[aria-live]').textContent();
const chipTokens = (page) => page.locator('.chip .chip-text').allTextContents();

// 犬 grabbed, moved one to the right, dropped: 犬 and が swap places; the
// slides in `expected` seen and over.
async function moveFirstRight(page, expected) {
  await tabToChips(page);
  await page.keyboard.press('Space');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Space');
  await page.waitForFunction(() => document.querySelector('.w-outputs [data-order="b"] tbody tr th')?.textContent === '1. が');
  await slidesOver(page, expected);
}

test('exercise 1: a keyboard reorder slides the chips, the output rows and the line labels', { timeout: 90000 }, async (t) => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
  await gotoReady(page, urlFor(lab, 'http', { ex: 'reorder' }));
  await watchAnimations(page);
  await moveFirstRight(page, ['chip:0', 'chip:1', 'out-b:0', 'out-b:1', 'label:0', 'label:1']);
  const names = await seen(page);
  assert.deepEqual(await chipTokens(page), ['が', '犬', '猫', 'を', '追いかけ', 'た']);
  assert.equal(await liveText(page), '犬 を 6 個中 2 番目に置きました。');
  // 犬 (token 0) and が (token 1) moved; the rest stayed.
  for (const n of ['chip:0', 'chip:1', 'out-b:0', 'out-b:1', 'label:0', 'label:1']) assert.ok(names.includes(n), `${n} slides (seen: ${names.join(', ')})`);
  for (const n of ['chip:2', 'out-b:2', 'out-a:0']) assert.ok(!names.includes(n), `${n} stays put`);
  // The touch buttons (a click) slide the chips too: 犬 one further right, past 猫.
  await page.evaluate(() => window.__seen.clear());
  await page.locator('[data-move="right"]').click();
  await page.waitForFunction(() => document.querySelector('.w-outputs [data-order="b"] tbody tr:nth-child(3) th')?.textContent === '3. 犬');
  await slidesOver(page, ['chip:0', 'chip:2', 'out-b:0', 'out-b:2']);
  const clicked = await seen(page);
  for (const n of ['chip:0', 'chip:2', 'out-b:0', 'out-b:2']) assert.ok(clicked.includes(n), `${n} slides after a click (seen: ${clicked.join(', ')})`);
    // A timing report, not a verdict (the test machine is shared): frame gaps while something moved.
  const gaps = await page.evaluate(() => window.__frames.slice(1).map((f, k) => f - window.__frames[k]).filter((g) => g < 1000).sort((a, b) => a - b));
  if (gaps.length) t.diagnostic(`reorder animation: ${gaps.length + 1} frames, median gap ${gaps[gaps.length >> 1].toFixed(1)} ms, 95th percentile ${gaps[Math.floor(gaps.length * 0.95)].toFixed(1)} ms`);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('exercise 2: the cells of Attention(PX) travel with their tokens, and the P factors light up', { timeout: 90000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
  await gotoReady(page, urlFor(lab, 'http', { ex: 'formula' }));
  assert.equal(await page.locator('.algebra').getAttribute('data-identity'), 'true');
  await watchAnimations(page);
  await tabToChips(page);
  await page.keyboard.press('Space');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Space');
  await page.waitForFunction(() => document.querySelector('.algebra')?.dataset.identity === 'false');
  await slidesOver(page, ['px:0:2', 'px:1:2', 'px:r0', 'px:c1'], 'alg-p');
  const names = await seen(page);
  // Row 犬 and row が of Attention(PX) change places: cell (犬, 猫) moves, (猫, 猫) does not.
  for (const n of ['px:0:2', 'px:1:2', 'px:r0', 'px:c1']) assert.ok(names.includes(n), `${n} slides`);
  assert.ok(!names.includes('px:2:2') && !names.includes('x:0:2'), 'cells whose place is the same stay');
  assert.ok(names.some((n) => /alg-p/.test(n)), 'the P factors pulse');
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('prefers-reduced-motion: the same reorder moves nothing, and the listbox still works and speaks', { timeout: 90000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 }, reducedMotion: 'reduce' });
  await gotoReady(page, urlFor(lab, 'http', { ex: 'reorder' }));
  assert.equal(await page.evaluate(() => matchMedia('(prefers-reduced-motion: reduce)').matches), true);
  await watchAnimations(page);
  // Nothing expected: the move is drawn, a few frames pass, nothing may have moved.
  await moveFirstRight(page, []);
  assert.deepEqual(await seen(page), []);
  assert.deepEqual(await chipTokens(page), ['が', '犬', '猫', 'を', '追いかけ', 'た']);
  assert.equal(await liveText(page), '犬 を 6 個中 2 番目に置きました。');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.token), '犬');
  assert.deepEqual(problems.console, []);
  await context.close();
});
