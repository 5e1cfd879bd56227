// Issue 24, part D: what the last pass changed. Each test fails if the
// defect it names comes back.
//
// - Exercise 9's angle map is the main visual beside the graded prediction:
//   whole on the first screen at 1280×800 (ja, en), left of it the question;
//   on a phone first, under its controls, the text and the question after it. It starts with
//   Part 2's frequencies (base 100, the run's) at L = 24 under plain RoPE, so that its first
//   picture hatches what training never saw, and its verdict (pairs 2, 3) is no variant's answer: the hatched cells are the ones counted here by hand (before, it started
//   with PI and hatched nothing); its frequencies are no asked variant's (the question asks base
//   10 000, read from the exercise file). Set to PI, nothing is hatched and the map says why (by
//   construction). The text after the question says what the start shows.
// - Labels on one line: RoPE's sliders (exercise 8) and stretching RoPE's
//   controls (exercise 9), at 390 and 1280 px, ja and en; on a phone the lab
//   controls' labels sit beside their fields (exercise 4).
// - Exercise 4's whole difference grid on the phone's first screen (its last
//   row was at 920 / 957 px of 844); exercises 1, 2 and 4's grid ends on the
//   first screen at 1280×800 (it ended at 819).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startLab, openPage, gotoReady, urlFor, artifacts, exerciseFile, T } from './helpers.mjs';

const file = exerciseFile;

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

// ---------------------------------------------------------------- exercise 9

const ex9 = file('09-rope-extend.yaml');
const methodsAsked = ex9.variants.method.options;
const sAsked = ex9.variants.s;

// Which pairs leave under method m at stretch s, for d 8, trained length L (16 unless given) and
// base b (10^4 unless given) (a second, plain implementation): the trained positions 0 … L swept
// the arc [0, L·θᵢ] (mod 2π, the whole circle once L·θᵢ ≥ 2π); a pair leaves if some position
// 0 … L·s turns it, under θ'ᵢ, to an angle off that arc.
function leavingByHand(m, s, b = 10000, L = 16) {
  const theta = [0, 1, 2, 3].map((i) => b ** (-i / 4));
  const scaled = theta.map((th, i) => ({ none: th, pi: th / s, ntk: (b * s ** (8 / 6)) ** (-i / 4), base: 500000 ** (-i / 4) })[m]);
  const twoPi = 2 * Math.PI;
  return theta.map((th, i) => {
    if (L * th >= twoPi) return false;
    for (let pos = 0; pos <= L * s; pos++) {
      const a = (pos * scaled[i]) % twoPi;
      if (a > L * th + 1e-9) return true;
    }
    return false;
  });
}

// θ'ᵢ of method m at stretch s (d 8, base 10^4), by hand.
const thetaOf = (m, s) => [0, 1, 2, 3].map((i) => ({ none: 10 ** -i, pi: 10 ** -i / s, ntk: (10000 * s ** (8 / 6)) ** (-i / 4), base: 500000 ** (-i / 4) })[m]);

// The cells (position m = 0 … L·s, pair i) the map hatches under method m at stretch s, d 8,
// trained length L (16 unless given), base b, counted by hand: a pair that swept less than the
// circle in training (L·θᵢ < 2π), at an angle m·θ'ᵢ (mod 2π) strictly between L·θᵢ and 2π.
function unseenCellsByHand(m, s, b, L = 16) {
  const twoPi = 2 * Math.PI;
  const theta = [0, 1, 2, 3].map((i) => b ** (-i / 4));
  const scaled = theta.map((th, i) => ({ none: th, pi: th / s })[m]);
  let n = 0;
  for (let pos = 0; pos <= L * s; pos++)
    theta.forEach((th, i) => {
      const a = (pos * scaled[i]) % twoPi;
      if (L * th < twoPi && a > L * th + 1e-6 && a < twoPi - 1e-6) n++;
    });
  return n;
}

test('exercise 9: the map starts with Part 2’s frequencies at L = 24 under plain RoPE, hatching pairs 2 and 3; its verdict is no asked variant’s answer; by hand, PI leaves no pair', () => {
  assert.deepEqual(sAsked, { kind: 'integer', min: 2, max: 4 });
  assert.deepEqual(methodsAsked, ['none', 'ntk', 'base']);
  // The question asks base 10 000 and L = 16 (its prompt and its key's args); the start is base 100, the run's.
  const key = ex9.blocks.find((b) => b.id === 'which-pairs-leave').answer_from.pairs_leaving.args;
  assert.deepEqual({ d: key.d, base: key.base, trainedLength: key.trainedLength }, { d: 8, base: 10000, trainedLength: 16 });
  assert.equal(ex9.blocks.find((b) => b.type === 'choice' && b.answer_from?.extend_run).answer_from.extend_run.args.base, 100);
  // The start: plain RoPE at base 100, θᵢ = 1, 0.32, 0.1, 0.032, trained to L = 24: pairs 0 and 1
  // swept 24 and 7.6 rad (the whole circle); pairs 2 and 3 swept 2.4 and 0.76 rad and reach 4.8
  // and 1.5 at position 48.
  assert.deepEqual(leavingByHand('none', 2, 100, 24), [false, false, true, true]);
  assert.ok(unseenCellsByHand('none', 2, 100, 24) > 0);
  // Copying the start's verdict answers no variant: every asked method and s at the question's
  // settings gives another set of pairs (Part 2's own L = 16 would give pairs 1–3, the answer of
  // every "none" variant).
  const start = JSON.stringify(leavingByHand('none', 2, 100, 24));
  for (const m of methodsAsked)
    for (let s = sAsked.min; s <= sAsked.max; s++) assert.notEqual(JSON.stringify(leavingByHand(m, s)), start, `${m}, s = ${s}`);
  assert.deepEqual(leavingByHand('none', 2, 100, 16), leavingByHand('none', 2));
  // PI leaves no pair, at every s asked and at either base: θᵢ/s at 16·s ends where θᵢ at 16 did.
  for (let s = sAsked.min; s <= sAsked.max; s++) for (const b of [100, 10000]) {
    assert.deepEqual(leavingByHand('pi', s, b), [false, false, false, false]);
    assert.equal(unseenCellsByHand('pi', s, b), 0);
  }
  // The start turns the pairs 1–3 at other speeds than any asked variant: its map is none of theirs.
  const startTheta = [0, 1, 2, 3].map((i) => 100 ** (-i / 4));
  for (const m of methodsAsked)
    for (let s = sAsked.min; s <= sAsked.max; s++)
      for (const i of [1, 2, 3]) assert.ok(Math.abs(thetaOf(m, s)[i] - startTheta[i]) > 1e-3, `${m}, s = ${s}, pair ${i}`);
});

const M9 = '[data-widget="angles"]';
const text9 = { ja: /図は、下の Part 2 で学習させるモデルの周波数（.*）を、長さ.*まで学習して.*倍に伸ばし、素の RoPE で使ったところから始まります。オレンジの斜線が/, en: /The picture starts with the frequencies of the model Part 2 trains below \(.*\), trained up to .* and stretched .* times, under plain RoPE\. Orange hatching marks/ };
const no9 = { ja: '出ない', en: 'no' };
const yes9 = { ja: '出る', en: 'yes' };
const piWhy9 = { ja: /PI では、最後の位置 s·L でも組 i の角度は s·L·θᵢ\/s = L·θᵢ で.*作り方からして見たことのない角度は生まれません/, en: /PI, by construction: the last position s·L turns pair i by s·L·θᵢ\/s = L·θᵢ, exactly where training ended, so no angle is ever unseen/ };

function where9() {
  const box = (e) => e && (({ top, bottom, left, right }) => ({ top, bottom, left, right }))(e.getBoundingClientRect());
  const w = document.querySelector('[data-widget="angles"]');
  return {
    main: w?.hasAttribute('data-main-visual') ?? false,
    widget: box(w),
    map: box(w?.querySelector('svg.ropeext-svg')),
    question: box(document.querySelector('[data-question="which-pairs-leave"]')),
    method: w?.querySelector('select[id$="-method"]')?.value,
    base: w?.querySelector('select[id$="-base"]')?.value,
    hatched: w?.querySelectorAll('.ropeext-svg rect[fill^="url("]').length,
    scrollX: document.documentElement.scrollWidth > innerWidth,
  };
}

for (const lang of ['ja', 'en']) {
  test(`exercise 9 at 1280×800 ${lang}: the angle map whole on the first screen beside the prediction, hatching the unseen angles of Part 2's frequencies at L = 24 (none, base 100); PI hatches nothing and says why`, { timeout: T(120000) }, async () => {
    const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
    try {
      await gotoReady(page, urlFor(lab, 'http', { ex: 'rope-extend', lang }));
      // The whole column, as worked out by hand for plain RoPE at base 100, L = 24.
      const want = leavingByHand('none', 2, 100, 24).map((b) => (b ? yes9[lang] : no9[lang]));
      await page.waitForFunction((w) => JSON.stringify([...document.querySelectorAll('[data-widget="angles"] .ropeext-table tbody td:last-child')].map((td) => td.textContent)) === w, JSON.stringify(want), { timeout: T(20000) });
      await page.evaluate(() => window.scrollTo(0, 0));
      const s = await page.evaluate(where9);
      assert.equal(s.main, true, 'the angle map is the main visual');
      assert.equal(s.method, 'none');
      assert.equal(s.base, '100');
      // Every unseen cell hatched, as counted by hand (before: PI at the start, 0 hatched).
      assert.ok(s.hatched > 0, 'the first picture hatches nothing');
      assert.equal(s.hatched, unseenCellsByHand('none', 2, 100, 24));
      assert.ok(s.map.top >= 0 && s.map.bottom <= 800, `the map at ${Math.round(s.map.top)}–${Math.round(s.map.bottom)} px, not whole on the first screen`);
      assert.ok(s.question.right <= s.widget.left, 'the prediction sits left of the picture');
      assert.equal(s.scrollX, false);
      // The text after the question says what the picture starts with.
      assert.match(await page.locator('.exercise').textContent(), text9[lang]);
      await page.screenshot({ path: join(artifacts, `visuals-d-rope-extend-${lang}-1280.png`) });
      // PI: nothing hatched, every pair stays, and the map says it is so by construction.
      await page.selectOption('[data-widget="angles"] select[id$="-method"]', 'pi');
      await page.waitForFunction((w) => JSON.stringify([...document.querySelectorAll('[data-widget="angles"] .ropeext-table tbody td:last-child')].map((td) => td.textContent)) === w, JSON.stringify([0, 1, 2, 3].map(() => no9[lang])), { timeout: T(20000) });
      assert.equal(await page.locator('[data-widget="angles"] .ropeext-svg rect[fill^="url("]').count(), 0);
      assert.match(await page.locator('[data-widget="angles"] .ropeext-note').first().textContent(), piWhy9[lang]);
      assert.deepEqual(problems.console, []);
    } finally {
      await context.close();
    }
  });
}

test('exercise 9 at 390×844: the angle map first, whole on the first screen under its controls (plain RoPE at base 100, as wide); the text and the prediction after it; Tab goes the same way', { timeout: T(120000) }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 390, height: 844 } });
  try {
    for (const lang of ['ja', 'en']) {
      await gotoReady(page, urlFor(lab, 'http', { ex: 'rope-extend', lang }));
      await page.evaluate(() => window.scrollTo(0, 0));
      const s = await page.evaluate(() => {
        const box = (e) => e && (({ top, bottom }) => ({ top, bottom }))(e.getBoundingClientRect());
        const w = document.querySelector('[data-widget="angles"]');
        return {
          main: w.hasAttribute('data-main-visual'),
          map: box(w.querySelector('.ropeext-figure svg')),
          controls: box(w.querySelector('.ropeext-controls')),
          method: w.querySelector('.ropeext-controls select[id$="-method"]')?.value,
          // Each select wide enough for its chosen value: the text, its padding and the arrow (≈ 20 px).
          clipped: [...w.querySelectorAll('.ropeext-controls select')].filter((sel) => {
            const cs = getComputedStyle(sel);
            const probe = document.body.appendChild(Object.assign(document.createElement('span'), { textContent: sel.selectedOptions[0].textContent }));
            probe.style.cssText = `position:absolute;visibility:hidden;white-space:nowrap;font:${cs.font}`;
            const need = probe.getBoundingClientRect().width + parseFloat(cs.paddingLeft) + parseFloat(cs.paddingRight) + 20;
            probe.remove();
            return sel.getBoundingClientRect().width < need;
          }).map((sel) => sel.selectedOptions[0].textContent),
          text: box(document.querySelector('.lab-stage-side > .text')),
          question: box(document.querySelector('[data-question="which-pairs-leave"]')),
          scrollX: document.documentElement.scrollWidth > innerWidth,
        };
      });
      assert.equal(s.main, true);
      assert.equal(s.scrollX, false);
      // The whole map on the first screen (it began at 2,460 px ja / 2,691 px en, after the text and the question).
      assert.ok(s.map.top >= 0 && s.map.bottom <= 844, `${lang}: the map at ${Math.round(s.map.top)}–${Math.round(s.map.bottom)} px`);
      assert.ok(s.controls.top >= 0 && s.controls.bottom <= s.map.top, `${lang}: the controls are not above the map`);
      assert.equal(s.method, 'none', `${lang}: the map starts as wide on a phone too`);
      assert.deepEqual(s.clipped, [], `${lang}: a select too narrow for its value`);
      assert.ok(s.text.top > s.map.bottom && s.question.top > s.text.bottom, `${lang}: not map, text, question`);
      // Tab from the top: the map's first control before any choice of the question.
      let first = null;
      for (let k = 0; k < 80 && !first; k++) {
        await page.keyboard.press('Tab');
        first = await page.evaluate(() => (document.activeElement.closest('.ropeext-controls') ? 'map' : document.activeElement.closest('[data-question="which-pairs-leave"]') ? 'question' : null));
      }
      assert.equal(first, 'map', `${lang}: Tab reached the ${first} first`);
    }
    assert.deepEqual(problems.console, []);
  } finally {
    await context.close();
  }
});

// ---------------------------------------------------------------- labels on one line

// Runs in the page: each label matched by sel, its lines (one line box per line of text) and its box.
function lineCount(sel) {
  return [...document.querySelectorAll(sel)]
    .filter((e) => e.getBoundingClientRect().height > 0)
    .map((e) => {
      const range = document.createRange();
      range.selectNodeContents(e);
      const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
      return { text: e.textContent, lines: new Set(rects.map((r) => Math.round(r.top))).size };
    });
}

for (const [width, height] of [
  [390, 844],
  [1280, 800],
]) {
  test(`${width} px: RoPE's and stretching RoPE's control labels each on one line (ja and en)`, { timeout: T(180000) }, async () => {
    const { page, context, problems } = await openPage(lab, 'http', { viewport: { width, height } });
    try {
      for (const lang of ['ja', 'en']) {
        for (const [ex, sel, n] of [
          ['rope', '.rope-control label', 4],
          ['rope-extend', '.ropeext-controls label', 6],
        ]) {
          await gotoReady(page, urlFor(lab, 'http', { ex, lang }));
          const ls = await page.evaluate(lineCount, sel);
          assert.equal(ls.length, n, `${ex} ${lang}: ${ls.length} labels`);
          for (const l of ls) assert.equal(l.lines, 1, `${ex} ${lang} ${width}: "${l.text}" on ${l.lines} lines`);
          // Nothing of the controls past the widget's edge.
          const over = await page.evaluate((s) => {
            const w = document.querySelector(s).closest('.widget').getBoundingClientRect();
            return [...document.querySelectorAll(`${s}, ${s} ~ *`)].map((e) => e.getBoundingClientRect()).filter((r) => r.width > 0 && r.right > w.right + 1).length;
          }, sel);
          assert.equal(over, 0, `${ex} ${lang} ${width}: a control runs past its card`);
        }
      }
      assert.deepEqual(problems.console, []);
    } finally {
      await context.close();
    }
  });
}

test('390 px: the lab controls set each label beside its field (exercise 4, ja and en)', { timeout: T(120000) }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 390, height: 844 } });
  try {
    for (const lang of ['ja', 'en']) {
      await gotoReady(page, urlFor(lab, 'http', { ex: 'add-position', lang }));
      const pairs = await page.evaluate(() =>
        [...document.querySelectorAll('.exercise .controls label[for]')].map((l) => {
          const f = document.getElementById(l.htmlFor);
          const a = l.getBoundingClientRect();
          const b = f.getBoundingClientRect();
          return { label: l.textContent, sameRow: a.top >= b.top - 1 && a.bottom <= b.bottom + 1, left: a.right <= b.left + 1 };
        }),
      );
      assert.equal(pairs.length, 4, JSON.stringify(pairs));
      for (const p of pairs) assert.ok(p.sameRow && p.left, `${lang}: "${p.label}" is not beside its field`);
    }
    assert.deepEqual(problems.console, []);
  } finally {
    await context.close();
  }
});

// ---------------------------------------------------------------- the difference grid on the first screen

// (Exercise 4's whole grid on the phone's first screen: visuals-c.test.mjs, on the same render as its other phone checks.)

test('1280×800: exercises 1, 2 and 4 end their difference grid on the first screen (ja and en)', { timeout: T(180000) }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
  try {
    for (const lang of ['ja', 'en']) {
      for (const ex of ['reorder', 'formula', 'add-position']) {
        await gotoReady(page, urlFor(lab, 'http', { ex, lang }));
        await page.evaluate(() => window.scrollTo(0, 0));
        const g = await page.evaluate(() => {
          const cells = [...document.querySelectorAll('.diff-grid .diff-cell')].map((c) => c.getBoundingClientRect());
          return { n: cells.length, bottom: Math.max(...cells.map((r) => r.bottom)), minH: Math.min(...cells.map((r) => r.height)) };
        });
        assert.equal(g.n, 36, `${ex} ${lang}: ${g.n} cells`);
        assert.ok(g.bottom <= 800, `${ex} ${lang}: the grid ends at ${Math.round(g.bottom)} px of 800`);
        // Still a grid to read: cells no flatter than 20 px.
        assert.ok(g.minH >= 20, `${ex} ${lang}: cells ${g.minH} px tall`);
      }
    }
    assert.deepEqual(problems.console, []);
  } finally {
    await context.close();
  }
});
