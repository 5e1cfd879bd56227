// Exercise 8's RoPE view: q and k of one pair (2i, 2i+1) drawn as arrows
// that turn with m and n. The test works out every expected number itself:
// θ_i = 10000^(−2i/d), the arrow of R_m q points at q's own angle + m·θ_i,
// and the score ⟨R_m q, R_n k⟩ = Σ_i (rotated pair products) in doubles.
// Only q and k themselves (random draws from the exercise's seed) come from
// the core, as the page's inputs. Controls are reached with Tab from the top
// of the page and moved with the arrow keys.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLab, openPage, gotoReady, urlFor, nodeCore, axeViolations } from './helpers.mjs';

let lab;
let core;
before(async () => {
  lab = await startLab();
  core = await nodeCore();
});
after(async () => {
  await lab?.close();
});

const D = 8; // the exercise's d_head
const theta = (i) => 10000 ** ((-2 * i) / D);
const TAU = 2 * Math.PI;
const wrap = (a) => ((((a + Math.PI) % TAU) + TAU) % TAU) - Math.PI; // into [−π, π)
const rotate = (v, pos) => {
  const out = [];
  for (let i = 0; i < v.length / 2; i++) {
    const a = pos * theta(i);
    const [x, y] = [v[2 * i], v[2 * i + 1]];
    out.push(x * Math.cos(a) - y * Math.sin(a), x * Math.sin(a) + y * Math.cos(a));
  }
  return out;
};
const score = (q, k, m, n) => {
  const a = rotate(q, m);
  const b = rotate(k, n);
  return a.reduce((sum, x, j) => sum + x * b[j], 0);
};

async function tabUntil(page, id, max = 120) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((want) => document.activeElement?.id === want, id)) return;
  }
  throw new Error(`#${id} never reached by Tab`);
}

// The drawn arrows' angles as they end up on screen, counter-clockwise from
// the x axis (screen y points down): the line's two ends through its screen
// transform, which includes the CSS rotation that turns it, once every turn has finished.
async function arrows(page) {
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'));
  return page.locator('.w-rope .rope-arrow').evaluateAll((els) =>
    Object.fromEntries(
      els
        .filter((e) => e.getBoundingClientRect().width + e.getBoundingClientRect().height > 0)
        .map((e) => {
          const m = e.getScreenCTM();
          const x = Number(e.getAttribute('x2'));
          const y = Number(e.getAttribute('y2'));
          const p0 = new DOMPoint(0, 0).matrixTransform(m);
          const p1 = new DOMPoint(x, y).matrixTransform(m);
          return [e.dataset.role, Math.atan2(-(p1.y - p0.y), p1.x - p0.x)];
        }),
    ),
  );
}
const values = (page) =>
  page.locator('.w-rope .rope-scores dd').evaluateAll((els) => Object.fromEntries(els.map((e) => [e.className, Number(e.dataset.value)])));

function checkArrows(got, q, k, i, m, n, s) {
  const own = (v) => Math.atan2(v[2 * i + 1], v[2 * i]);
  const near = (a, b, what) => assert.ok(Math.abs(wrap(a - b)) < 1e-4, `${what}: drawn ${a} rad, expected ${wrap(b)} rad`);
  near(got.q, own(q) + m * theta(i), `R_${m} q, pair ${i}`);
  near(got.k, own(k) + n * theta(i), `R_${n} k, pair ${i}`);
  near(got.q0, own(q), `q at position 0, pair ${i}`);
  near(got.k0, own(k), `k at position 0, pair ${i}`);
  if (s) {
    near(got['q-shifted'], own(q) + (m + s) * theta(i), `R_${m + s} q`);
    near(got['k-shifted'], own(k) + (n + s) * theta(i), `R_${n + s} k`);
  } else {
    assert.equal(got['q-shifted'], undefined, 'no shifted arrows while s = 0');
  }
}

test('RoPE: arrows turn by m·θ_i and n·θ_i per pair; shifting both keeps the angle and the score, by keyboard', { timeout: 120000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  // The page's q and k: the core's draw for the exercise's seed (0).
  const drawn = core.ropeCheck({ dHead: D, m: 0, n: 0, shift: 0, seed: 0 });
  const q = Array.from(drawn.q);
  const k = Array.from(drawn.k);
  await gotoReady(page, urlFor(lab, 'http', { ex: 'rope', lang: 'en' }));
  await page.waitForSelector('.w-rope .rope-arrow[data-role="q"]');
  checkArrows(await arrows(page), q, k, 0, 3, 1, 0);

  // From the top: Tab to m and press → twice (m = 5).
  await page.mouse.click(1, 1);
  await page.evaluate(() => window.scrollTo(0, 0));
  await tabUntil(page, 'rope-m');
  for (let j = 0; j < 2; j++) await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.querySelector('.w-rope .rope-out').textContent === '5');
  await page.waitForFunction(() => document.querySelector('.w-rope .rope-scores dt')?.textContent.includes('m = 5'));
  checkArrows(await arrows(page), q, k, 0, 5, 1, 0);
  assert.match(page.url(), /[#&]m=5/);

  // Pair picker: Tab on to it, ↓ twice: pair 2, θ_2 = 10000^(−1/2) = 0.01.
  await tabUntil(page, 'rope-pair');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction(() => document.querySelector('.w-rope .rope-theta')?.dataset.theta && Math.abs(Number(document.querySelector('.w-rope .rope-theta').dataset.theta) - 0.01) < 1e-6);
  checkArrows(await arrows(page), q, k, 2, 5, 1, 0);
  const v0 = await values(page);
  const want0 = score(q, k, 5, 1);
  assert.ok(Math.abs(v0['rope-score-before'] - want0) < 1e-5 * Math.max(1, Math.abs(want0)), `score ${v0['rope-score-before']} vs ${want0}`);
  const angle0 = wrap(Math.atan2(q[5], q[4]) + 5 * theta(2) - (Math.atan2(k[5], k[4]) + 1 * theta(2)));
  assert.ok(Math.abs((v0['rope-angle-before'] * Math.PI) / 180 - angle0) < 1e-4, `angle ${v0['rope-angle-before']}° vs ${(angle0 * 180) / Math.PI}°`);

  // Back to pair 0 (fast), then shift both by s = 7 with the s slider.
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await page.waitForFunction(() => Math.abs(Number(document.querySelector('.w-rope .rope-theta')?.dataset.theta) - 1) < 1e-6);
  await page.keyboard.down('Shift');
  await page.keyboard.press('Tab');
  await page.keyboard.up('Shift');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'rope-shift');
  for (let j = 0; j < 7; j++) await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.querySelector('.w-rope .rope-arrow[data-role="q-shifted"]') && document.querySelectorAll('.w-rope .rope-out')[2].textContent === '7');
  await page.waitForFunction(() => document.querySelector('.w-rope .rope-scores')?.textContent.includes('m = 12'));
  const got = await arrows(page);
  checkArrows(got, q, k, 0, 5, 1, 7);
  // Both arrows turned by 7·θ_0 = 7 rad; the angle between them did not move.
  assert.ok(Math.abs(wrap(got['q-shifted'] - got.q - 7 * theta(0))) < 1e-4);
  assert.ok(Math.abs(wrap(got['k-shifted'] - got.k - 7 * theta(0))) < 1e-4);
  assert.ok(Math.abs(wrap(got['q-shifted'] - got['k-shifted'] - (got.q - got.k))) < 1e-4, 'angle between the arrows kept');
  const v = await values(page);
  assert.ok(Math.abs(v['rope-angle-after'] - v['rope-angle-before']) < 1e-3, `angles ${v['rope-angle-before']}° → ${v['rope-angle-after']}°`);
  // The score, worked out here in doubles, is the same after the shift (to 1e-9 relative) …
  const before_ = score(q, k, 5, 1);
  const after_ = score(q, k, 12, 8);
  assert.ok(Math.abs(after_ - before_) <= 1e-9 * Math.abs(before_), `independent scores ${before_} vs ${after_}`);
  // … and the page's scores are that score (the core rotates in float32: 1e-5).
  for (const key of ['rope-score-before', 'rope-score-after']) assert.ok(Math.abs(v[key] - before_) < 1e-5 * Math.max(1, Math.abs(before_)), `${key} ${v[key]} vs ${before_}`);
  assert.ok(v['rope-diff'] < 1e-5, `diff ${v['rope-diff']}`);
  assert.match(page.url(), /[#&]k=7/);
  // The two scores' labels: before, and after moving both by s (the shift named, so never the same label twice).
  await page.waitForFunction(() => document.querySelectorAll('.w-rope .rope-scores dt annotation').length === 2);
  assert.deepEqual(await page.locator('.w-rope .rope-scores dt annotation').allTextContents(), ['\\langle R_{5} q,\\ R_{1} k \\rangle', '\\langle R_{5+7} q,\\ R_{1+7} k \\rangle']);

  // The data table: one row per pair, with the shifted columns.
  await page.getByRole('button', { name: 'Show the numbers as a table' }).click();
  assert.equal(await page.locator('.w-rope .rope-table tbody tr').count(), D / 2);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems.console, []);
  await context.close();
});

test('RoPE: a position from the URL outside the sliders is ignored, not drawn', { timeout: 60000 }, async () => {
  const { page, context, problems } = await openPage(lab, 'http');
  await gotoReady(page, urlFor(lab, 'http', { ex: 'rope', lang: 'ja', extra: '&m=99999&n=-4&pair=9&k=2' }));
  await page.waitForSelector('.w-rope .rope-arrow[data-role="q-shifted"]');
  assert.deepEqual(await page.locator('.w-rope .rope-out').allTextContents(), ['3', '1', '2']);
  assert.equal(await page.locator('#rope-pair').inputValue(), '0');
  assert.deepEqual(problems.console, []);
  await context.close();
});

// The angle's value (the label by the arc) covers no line of the drawing: not the arrows (their
// heads too), not the dotted arrows of position 0, not the arcs, the axes or the circle. Each
// line's centre is sampled (getPointAtLength, every half unit) into screen space, and no point
// may fall in the label's box grown by that line's half width; an arrowhead's triangle is sampled
// as the marker draws it (13 units long, tip 2.6 past the line's end, 6.5 either side). At 1280×800
// and 390×844, in states where the arrows crowd the label's usual place.
const LABEL_STATES = ['', '&m=64&n=64&k=64', '&m=0&n=0', '&m=5&n=1&pair=2', '&m=10&n=3&k=20', '&m=1&n=0', '&m=40&n=7&k=5&pair=1', '&m=2&n=2&k=33&pair=3'];
function labelHits() {
  const fig = document.querySelector('.w-rope .rope-drawing');
  const label = fig.querySelector('.rope-angle-label');
  const r = label.getBoundingClientRect();
  const hits = [];
  let points = 0;
  const shown = (e) => e.getBoundingClientRect().width + e.getBoundingClientRect().height > 0 && getComputedStyle(e.parentElement).display !== 'none';
  for (const e of fig.querySelectorAll('.rope-arrow, .rope-angle, .rope-axis, .rope-circle')) {
    if (!shown(e) || (e.tagName === 'path' && !e.getAttribute('d'))) continue;
    const m = e.getScreenCTM();
    const k = Math.hypot(m.a, m.b);
    const grow = (parseFloat(getComputedStyle(e).strokeWidth) / 2) * k;
    const inside = (p, pad) => p.x > r.left - pad && p.x < r.right + pad && p.y > r.top - pad && p.y < r.bottom + pad;
    const at = (x, y) => new DOMPoint(x, y).matrixTransform(m);
    const what = `${e.getAttribute('class')}${e.dataset.role ? ` (${e.dataset.role})` : ''}`;
    const len = e.getTotalLength();
    for (let s = 0; s <= len; s += 0.5) {
      const p = e.getPointAtLength(s).matrixTransform(m);
      points++;
      if (inside(p, grow)) hits.push(`${what} at ${s.toFixed(1)} of ${len.toFixed(1)}`);
    }
    if (e.getAttribute('marker-end')) {
      const x2 = Number(e.getAttribute('x2'));
      for (let u = -10.4; u <= 2.6; u += 0.5)
        for (let v = -6.5; v <= 6.5; v += 0.5) {
          if (Math.abs(v) > (6.5 * (2.6 - u)) / 13) continue;
          points++;
          if (inside(at(x2 + u, v), 0)) hits.push(`${what}'s head`);
        }
    }
  }
  return { label: label.textContent, box: [r.left, r.top, r.width, r.height].map(Math.round), points, hits: [...new Set(hits)] };
}
for (const [width, height, lang] of [[1280, 800, 'ja'], [390, 844, 'en']]) {
  test(`RoPE at ${width}×${height}: the angle's value covers no arrow, dotted arrow, arc, axis or the circle`, { timeout: 180000 }, async () => {
    const { page, context, problems } = await openPage(lab, 'http', { viewport: { width, height } });
    for (const extra of LABEL_STATES) {
      await gotoReady(page, urlFor(lab, 'http', { ex: 'rope', lang, extra }));
      await page.waitForSelector('.w-rope .rope-arrow[data-role="q"]');
      // Drawn: every arrow's turn has ended.
      await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'));
      const got = await page.evaluate(labelHits);
      assert.match(got.label, /^-?\d+\.\d°$/, `${extra}: the label says ${got.label}`);
      assert.ok(got.box[2] > 20 && got.box[3] > 8 && got.points > 500, `${extra}: ${JSON.stringify(got)}`);
      assert.deepEqual(got.hits, [], `${extra}: the label ${got.label} at ${got.box} covers`);
    }
    assert.deepEqual(problems.console, []);
    await context.close();
  });
}
