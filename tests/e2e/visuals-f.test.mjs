// Issue 24, sticky boxes and exercise 7's play bar (part F). Each test fails if the defect it names
// comes back.
//
// - No sticky box cuts a line of text: on exercises 3 and 7 at 390×844, ja and en, before and while
//   the questions are answered (3) or the models train (7), at every scroll position, each line box
//   of text inside a sticky element (Range.getClientRects) is either wholly inside the part of it
//   that shows or wholly outside it. Before: exercise 3's lead ("Answer the questions and each step
//   fills in…") was cut by the bottom edge of the drawing's box (en), and exercise 7's "Show the
//   numbers as a table" by the bottom edge of the live chart's box.
// - Exercise 7's sticky box at 390×844 while it trains takes at most half the screen, Pause and Step
//   in it with the chart. Before: 610 of 844 px (en), the play bar on two rows, the note under it.
// - Exercise 7's Train, Pause and Step sit with the chart: on the first screen at 1280×800, and at
//   390×844 on screen together with the chart (stuck to the top while it trains); each reached by Tab
//   from the top of the page and pressed with Enter or Space. Before: Train at y ≈ 873 (1280×800) and
//   ≈ 1,642 (390×844), under the prediction and the form; Pause and Step below the fold at 1280.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLab, openPage, gotoReady, urlFor, answerNumeric, T } from './helpers.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

const W7 = '[data-widget="train"]';

// Runs in the page: scrolls through it (every 60 px) and, at each place, for every sticky element
// on screen, finds the text lines inside it that its visible part cuts. The visible part: its border
// box, within the viewport when it is stuck (its top where its `top` puts it); a box whose overflow
// is not visible clips at its edge even when it is not stuck. Returns the cuts found (none expected)
// and how many sticky boxes and lines were looked at.
function stickyCuts() {
  const cuts = [];
  let boxes = 0;
  let lines = 0;
  const vh = window.innerHeight;
  const max = document.documentElement.scrollHeight - vh;
  const start = window.scrollY;
  const visibleText = (root) => {
    const out = [];
    const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
      acceptNode: (n) => {
        if (!n.textContent.trim()) return NodeFilter.FILTER_REJECT;
        const p = n.parentElement;
        if (!p.checkVisibility({ visibilityProperty: true, opacityProperty: false })) return NodeFilter.FILTER_REJECT;
        // Text kept for screen readers only (a 1 px clipped box) is not drawn.
        if (p.closest('[style*="clip"], .widget-title') && getComputedStyle(p.closest('[style*="clip"], .widget-title')).clipPath !== 'none') return NodeFilter.FILTER_REJECT;
        return NodeFilter.FILTER_ACCEPT;
      },
    });
    for (let n = walk.nextNode(); n; n = walk.nextNode()) out.push(n);
    return out;
  };
  // (sticky now, or while the page is scrolled: the elements whose style says sticky)
  const sticky = [...document.querySelectorAll('body *')].filter((e) => getComputedStyle(e).position === 'sticky');
  for (let y = 0; y <= max + 59; y += 60) {
    window.scrollTo(0, Math.min(y, max));
    for (const el of sticky) {
      const cs = getComputedStyle(el);
      if (cs.position !== 'sticky' || cs.top === 'auto') continue;
      const r = el.getBoundingClientRect();
      if (!r.height || r.bottom <= 0 || r.top >= vh) continue;
      const stuck = Math.abs(r.top - parseFloat(cs.top)) < 1;
      const clips = cs.overflowY !== 'visible' || cs.overflowX !== 'visible';
      if (!stuck && !clips) continue;
      boxes++;
      const top = stuck ? Math.max(r.top, 0) : r.top;
      const bottom = stuck ? Math.min(r.bottom, vh) : r.bottom;
      for (const n of visibleText(el)) {
        const range = document.createRange();
        range.selectNodeContents(n);
        for (const l of range.getClientRects()) {
          if (!l.width || !l.height) continue;
          lines++;
          const inside = l.top >= top - 1 && l.bottom <= bottom + 1;
          const outside = l.bottom <= top + 1 || l.top >= bottom - 1;
          if (!inside && !outside) cuts.push(`at scroll ${Math.round(window.scrollY)}: "${n.textContent.trim().slice(0, 40)}" (${Math.round(l.top)}–${Math.round(l.bottom)}) cut by ${el.className || el.tagName} (${Math.round(top)}–${Math.round(bottom)})`);
        }
      }
    }
  }
  window.scrollTo(0, start);
  return { cuts: [...new Set(cuts)].slice(0, 8), boxes, lines };
}

// Exercise 3's answers, worked out by hand: x₁ = (1, 0), x₂ = (0, 1), Q = K = V = X, d_k = 2.
// Order A (keys x₁, x₂): q·k = 1, 0; / √2 = 0.707, 0; softmax: e^0.7071 = 2.0281, 2.0281 / 3.0281 =
// 0.670 and 0.330; y₁ = 0.670·x₁ + 0.330·x₂ = (0.670, 0.330). Order B (keys x₂, x₁): the same numbers
// in the other order, and the same y₁.
const HAND = {
  'dots-a': ['1', '0'],
  'scaled-a': ['0.707', '0'],
  'softmax-a': ['0.670', '0.330'],
  'output-a': ['0.670', '0.330'],
  'dots-b': ['0', '1'],
  'scaled-b': ['0', '0.707'],
  'softmax-b': ['0.330', '0.670'],
  'output-b': ['0.670', '0.330'],
};

test('exercise 3 at 390×844, ja and en: the sticky drawing cuts no line of text, before and while the questions are answered', { timeout: T(240000) }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 390, height: 844 } });
  try {
    for (const lang of ['en', 'ja']) {
      await gotoReady(page, urlFor(lab, 'http', { ex: 'hand-calc', lang }));
      await page.evaluate(() => window.scrollTo(0, 0));
      const first = await page.evaluate(stickyCuts);
      assert.ok(first.boxes > 0 && first.lines > 20, `${lang}: the drawing's box was looked at (${first.boxes} boxes, ${first.lines} lines)`);
      assert.deepEqual(first.cuts, [], `${lang}, first screen`);
      // The lead is still on the page, as ordinary text right after the box.
      const lead = await page.evaluate(() => {
        const p = document.querySelector('.w-handcalc .widget-lead, .hc-after-box .widget-lead');
        const box = document.querySelector('.lab-stage-visual').getBoundingClientRect();
        return { text: p?.textContent ?? '', top: p?.getBoundingClientRect().top, boxBottom: box.bottom, inBox: !!p?.closest('.lab-stage-visual') };
      });
      assert.ok(lead.text.length > 20, `${lang}: the lead is gone`);
      assert.equal(lead.inBox, false, `${lang}: the lead is still in the sticky box`);
      assert.ok(lead.top >= lead.boxBottom && lead.top < 844, `${lang}: the lead at ${Math.round(lead.top)} px, the box ends at ${Math.round(lead.boxBottom)}`);
      // Answering: half the steps, then all, a field focused each time (the box may scroll to it).
      const ids = Object.keys(HAND);
      for (const [i, id] of ids.entries()) {
        const r = await answerNumeric(page, id, HAND[id]);
        assert.match(r.cls, /\bok\b|correct/, `${lang}: ${id} ${HAND[id].join(', ')} not accepted: ${r.text}`);
        if (i === 3 || i === ids.length - 1) {
          await page.locator(`[data-question="${id}"] input[data-field="0"]`).focus();
          const during = await page.evaluate(stickyCuts);
          assert.deepEqual(during.cuts, [], `${lang}, after ${id}`);
        }
      }
      // (the next language starts from nothing solved)
      await page.evaluate(() => localStorage.clear());
    }
    assert.deepEqual(problems.console, []);
  } finally {
    await context.close();
  }
});

// Where Train, Pause, Step and the chart's frame are (viewport coordinates).
function bar(w) {
  const box = (e) => (({ top, bottom, left, right }) => ({ top, bottom, left, right }))(e.getBoundingClientRect());
  const q = (s) => document.querySelector(`${w} ${s}`);
  return { train: box(q('.train-button')), pause: box(q('.pause-button')), step: box(q('.step-button')), frame: box(q('.extrap-results .lp-frame')), vh: window.innerHeight, vw: window.innerWidth };
}
const inView = (b, s, name) => assert.ok(b.top >= 0 && b.bottom <= s.vh && b.left >= 0 && b.right <= s.vw, `${name} at ${Math.round(b.top)}–${Math.round(b.bottom)} px (screen ${s.vh})`);
const focused = (page, sel) => page.evaluate((s) => !!document.activeElement?.matches(s), sel);
async function tabFromTop(page, selector, n = 200) {
  await page.evaluate(() => {
    document.activeElement?.blur();
    window.scrollTo(0, 0);
  });
  await page.locator('body').focus();
  for (let i = 0; i < n; i++) {
    await page.keyboard.press('Tab');
    if (await focused(page, selector)) return i + 1;
  }
  throw new Error(`${selector} not reached with Tab`);
}

for (const [width, height, lang] of [
  [1280, 800, 'en'],
  [1280, 800, 'ja'],
  [390, 844, 'ja'],
  [390, 844, 'en'],
]) {
  test(`exercise 7 at ${width}×${height} (${lang}): Train, Pause and Step with the chart, by Tab and Enter/Space`, { timeout: T(240000) }, async () => {
    const { page, context, problems } = await openPage(lab, 'http', { viewport: { width, height } });
    try {
      await gotoReady(page, urlFor(lab, 'http', { ex: 'train-short-test-long', lang, extra: '&seeds=1&steps=2000' }));
      await page.evaluate(() => window.scrollTo(0, 0));
      const phone = width < 600;
      const empty = await page.evaluate(bar, W7);
      if (!phone) {
        // The first screen: the chart's frame and Train, before anything is done.
        inView(empty.train, empty, 'Train');
        inView(empty.frame, empty, 'the chart');
      }
      // The prediction, recorded before training (the gate is unchanged: the note by Train asks for it).
      assert.equal(await page.locator(`${W7} .extrap-predict-first`).isVisible(), true, 'the note asking for the prediction first is not by Train');
      await page.locator('[data-question="predict"] input[type="radio"]').first().check();
      await page.locator('[data-question="predict"] button[type="submit"]').click();
      await page.waitForFunction((w) => document.querySelector(`${w} .extrap-predict-first`)?.hidden === true, W7);
      // Tab from the top to Train: where the focus leaves it, the chart is on screen with it.
      await tabFromTop(page, `${W7} .train-button`);
      const atTrain = await page.evaluate(bar, W7);
      inView(atTrain.train, atTrain, 'Train (focused)');
      inView(atTrain.frame, atTrain, 'the chart (Train focused)');
      assert.ok(atTrain.train.bottom <= atTrain.frame.top, 'Train is not at the chart\'s top');
      await page.keyboard.press('Enter');
      await page.waitForSelector(`${W7}[data-status="running"]`, { timeout: T(60000) });
      // (the first test of a run drawn: the live chart's frame)
      await page.waitForFunction((w) => document.querySelectorAll(`${w} .extrap-results .em-live polyline`).length > 0, W7, { timeout: T(120000) });
      // Pause by Tab from the top and Space; Pause and Step with the chart.
      await tabFromTop(page, `${W7} .pause-button`);
      await page.keyboard.press('Space');
      await page.waitForSelector(`${W7}[data-held="true"]`, { timeout: T(60000) });
      const done = await page.locator(`${W7} .progress`).evaluate((e) => Number(e.dataset.stepsDone));
      await tabFromTop(page, `${W7} .step-button`);
      const atStep = await page.evaluate(bar, W7);
      for (const k of ['pause', 'step', 'frame']) inView(atStep[k], atStep, `${k} (Step focused)`);
      await page.keyboard.press('Enter');
      await page.waitForFunction(({ w, done }) => Number(document.querySelector(`${w} .progress`).dataset.stepsDone) > done && document.querySelector(`${w}`).dataset.held === 'true', { w: W7, done }, { timeout: T(60000) });
      if (!phone) {
        // At the top of the page, all three on the first screen.
        await page.evaluate(() => window.scrollTo(0, 0));
        const top = await page.evaluate(bar, W7);
        for (const k of ['train', 'pause', 'step', 'frame']) inView(top[k], top, k);
      } else {
        // Scrolled on to the form under the chart: the bar and the chart stuck together at the top.
        await page.locator(`${W7} .seeds-input`).scrollIntoViewIfNeeded();
        await page.evaluate((w) => window.scrollBy(0, document.querySelector(`${w} .seeds-input`).getBoundingClientRect().top - window.innerHeight / 2), W7);
        const low = await page.evaluate(bar, W7);
        for (const k of ['pause', 'step', 'frame']) inView(low[k], low, `${k} (scrolled to the form)`);
      }
      await page.locator(`${W7} .cancel-button`).click();
      await page.waitForSelector(`${W7}[data-status="cancelled"]`, { timeout: T(60000) });
      assert.deepEqual(problems.console, []);
    } finally {
      await context.close();
    }
  });
}

test('exercise 7 at 390×844, ja and en: no sticky box cuts a line of text, before and while it trains', { timeout: T(300000) }, async () => {
  for (const lang of ['en', 'ja']) {
    const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 390, height: 844 } });
    try {
      await gotoReady(page, urlFor(lab, 'http', { ex: 'train-short-test-long', lang, extra: '&seeds=1&steps=2000' }));
      await page.evaluate(() => window.scrollTo(0, 0));
      assert.deepEqual((await page.evaluate(stickyCuts)).cuts, [], `${lang}: before training`);
      await page.locator('[data-question="predict"] input[type="radio"]').first().check();
      await page.locator('[data-question="predict"] button[type="submit"]').click();
      await page.locator(`${W7} .train-button`).click();
      // The first test of a run drawn: the live chart in its sticky box.
      await page.waitForFunction((w) => document.querySelectorAll(`${w} .extrap-results .em-live polyline`).length > 0, W7, { timeout: T(120000) });
      const during = await page.evaluate(stickyCuts);
      assert.ok(during.boxes > 0 && during.lines > 10, `${lang}: the chart's box was looked at (${during.boxes} boxes, ${during.lines} lines)`);
      assert.deepEqual(during.cuts, [], `${lang}: during training`);
      // The stuck box takes at most half the screen (it took 610 of 844 px in en), its Pause and Step
      // shown in it, with the chart.
      const box = await page.evaluate((w) => {
        const b = document.querySelector(`${w} .extrap-chart-box`);
        const shown = (sel) => {
          const e = b.querySelector(sel);
          return !!e && e.getBoundingClientRect().height >= 44;
        };
        return { position: getComputedStyle(b).position, height: b.getBoundingClientRect().height, vh: window.innerHeight, pause: shown('.pause-button'), step: shown('.step-button'), chart: shown('.em-live svg') };
      }, W7);
      assert.equal(box.position, 'sticky', `${lang}: the chart's box is not sticky while it trains`);
      assert.ok(box.height <= box.vh / 2, `${lang}: the sticky box is ${Math.round(box.height)} px high, more than half of ${box.vh}`);
      assert.deepEqual([box.pause, box.step, box.chart], [true, true, true], `${lang}: Pause, Step and the chart in the box`);
      assert.equal(await page.locator(W7).getAttribute('data-status'), 'running', `${lang}: the run ended before the box was measured`);
      await page.locator(`${W7} .cancel-button`).click();
      await page.waitForSelector(`${W7}[data-status="cancelled"]`, { timeout: T(60000) });
      assert.deepEqual(problems.console, []);
    } finally {
      await context.close();
    }
  }
});
