// Issue 24, exercises 4, 5, 6 and 7's phone box (part G). Each test fails if the defect it names
// comes back.
//
// - Exercise 6 at 1280×800: the trained table's first view (its row-norm plot) starts within the
//   first two screens (top < 1,600 px), the wall picture still whole on the first screen. Before:
//   1,654 px (ja) and 1,709 px (en), under the model-file box (now under the views).
// - Exercise 4 at 1280×800: the clocks on the first screen with the lesson picture (a row of small
//   clocks under the lines), linked by position: hover a row of the encoding strip, or Tab to a chip
//   and move with →, and the clocks show that position (hands = sin/cos worked out here), lit, with
//   the strip's row, the difference grid's row of the token standing there and the table's column.
//   Before: the clocks at y ≈ 2,000, below the encoding table.
// - Exercise 4, Learned: the strip's colours are not all within a few percent of the background
//   (on −1…1 the learned table's N(0, 0.02²) values were all near white); its key gives the range
//   as the largest |value| drawn. Before: no cell more than 22 of 255 from white.
// - Exercise 5 at 1280×800: the mask formula in the side column at the column's text size (the block's
//   font size ≥ the text's, KaTeX's glyphs ≥ it, and the x-height as drawn ≥ the text's), and the
//   attention matrix beside the lines on the first screen, whole, not scrolling sideways (the room
//   beside the lines was empty). Before: the block at 13.1 px against 15.5 px text, KaTeX's x-height
//   8 px against the text's 9 px (as the canvas measures them, in whole pixels), the matrix at
//   y ≈ 780, under the lines.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLab, openPage, gotoReady, urlFor, T } from './helpers.mjs';

async function tabUntil(page, predicate, max = 150) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(predicate)) return;
  }
  throw new Error('never reached by Tab');
}

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

for (const lang of ['ja', 'en']) {
  test(`1280×800 ${lang}: exercise 6's trained-table views within the first two screens, the wall picture whole on the first`, { timeout: T(180000) }, async () => {
    const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
    await gotoReady(page, urlFor(lab, 'http', { ex: 'wall-1024', lang }));
    await page.waitForSelector('.wall-table .table-views[data-kind="table"] figure', { timeout: T(120000) });
    const at = await page.evaluate(() => {
      const top = (e) => e.getBoundingClientRect().top + window.scrollY;
      const pic = document.querySelector('.wall-picture-box svg').getBoundingClientRect();
      const views = document.querySelector('.wall-table .table-views[data-kind="table"]');
      return { view: top(views.querySelector('figure')), pic: { top: pic.top + window.scrollY, bottom: pic.bottom + window.scrollY }, fileBox: top(document.querySelector('.wall-table .table-drop')), viewsBottom: views.getBoundingClientRect().bottom + window.scrollY };
    });
    assert.ok(at.view < 1600, `the trained table's first view starts at ${Math.round(at.view)} px, not within the first two screens`);
    assert.ok(at.pic.top >= 0 && at.pic.bottom <= 800, `the wall picture at ${Math.round(at.pic.top)}–${Math.round(at.pic.bottom)} px, not whole on the first screen`);
    // The model-file box is still there, under the views it changes.
    assert.ok(at.fileBox > at.viewsBottom, 'the model-file box is under the views');
    // No label of a line plot is cut at the plot's edge: the table's norm plot ends 10 % past its
    // wall, and "no rows (50 and up)" was cut to "no r" (ja too).
    const labels = await page.evaluate(() =>
      [...document.querySelectorAll('svg.lineplot')].flatMap((svg) => {
        const b = svg.getBoundingClientRect();
        return [...svg.querySelectorAll('text')]
          .filter((tx) => tx.textContent && tx.getBoundingClientRect().width > 0)
          .map((tx) => {
            const r = tx.getBoundingClientRect();
            return { text: tx.textContent, wall: tx.classList.contains('lp-wall-label'), cut: r.left < b.left - 1 || r.right > b.right + 1 };
          });
      }),
    );
    assert.ok(labels.filter((l) => l.wall).length >= 2, 'the wall labels of the learned plot and the norm plot');
    assert.deepEqual(labels.filter((l) => l.cut).map((l) => l.text), [], 'labels cut at a plot’s edge');
    assert.deepEqual(problems.console, []);
    await context.close();
  });
}

// PE(pos, d) of sinusoidal at width D, worked out here.
const sinusoidal = (pos, d, D) => {
  const a = pos / Math.pow(10000, (2 * Math.floor(d / 2)) / D);
  return d % 2 === 0 ? Math.sin(a) : Math.cos(a);
};

const clockState = (page) =>
  page.evaluate(() => {
    const box = document.querySelector('.w-attention-lines .lines-clocks');
    const r = box.getBoundingClientRect();
    return {
      top: r.top,
      bottom: r.bottom,
      scrollY: window.scrollY,
      pos: box.dataset.pos,
      lit: box.classList.contains('lit'),
      hands: [...box.querySelectorAll('.mini-clock-item')].map((c) => [Number(c.dataset.sin), Number(c.dataset.cos)]),
      stripRows: [...document.querySelectorAll('.w-attention-lines .pe-row.hl-pos')].map((g) => g.dataset.hlPos),
      gridRows: [...document.querySelectorAll('.w-attention-lines .diff-row.hl-pos')].map((e) => e.textContent),
      tableCols: [...new Set([...document.querySelectorAll('.w-pe-table .hm-cell.hl-pos')].map((c) => c.dataset.hlPos))],
    };
  });

for (const lang of ['ja', 'en']) {
  test(`1280×800 ${lang}: exercise 4's clocks on the first screen with the lines, linked by position (hover and keyboard)`, { timeout: T(120000) }, async () => {
    const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
    await gotoReady(page, urlFor(lab, 'http', { ex: 'add-position', lang }));
    const D = 8;
    const words = lang === 'en' ? ['The', 'dog', 'chased', 'the', 'cat', '.'] : ['犬', 'が', '猫', 'を', '追いかけ', 'た'];
    const handsAt = (s, p) => {
      assert.equal(s.hands.length, D / 2);
      s.hands.forEach(([sv, cv], i) => {
        assert.ok(Math.abs(sv - sinusoidal(p, 2 * i, D)) < 1e-5, `clock ${i}: sin ${sv} at ${p}`);
        assert.ok(Math.abs(cv - sinusoidal(p, 2 * i + 1, D)) < 1e-5, `clock ${i}: cos ${cv} at ${p}`);
      });
    };
    let s = await clockState(page);
    assert.equal(s.scrollY, 0);
    assert.ok(s.top >= 0 && s.top < 800, `the clocks start at ${Math.round(s.top)} px, not on the first screen`);
    assert.ok(s.bottom <= 800, `the clocks end at ${Math.round(s.bottom)} px, cut by the screen's edge`);
    // At rest: the last position, unlit.
    assert.equal(s.pos, '5');
    assert.equal(s.lit, false);
    handsAt(s, 5);
    // Mouse on the strip's row 2: the clocks at 2, lit; the strip's row, the grid's row of the token at 2, the table's column 2.
    await page.locator('.w-attention-lines .pe-row[data-hl-pos="2"]').hover();
    await page.waitForFunction(() => document.querySelector('.lines-clocks')?.dataset.pos === '2');
    s = await clockState(page);
    assert.equal(s.lit, true);
    handsAt(s, 2);
    assert.deepEqual(s.stripRows, ['2']);
    assert.deepEqual(s.gridRows.map((x) => x.toLowerCase()), [words[2].toLowerCase()]);
    assert.deepEqual(s.tableCols, ['2']);
    // The grid's row of the token at position 4 turns the clocks to 4.
    await page.locator('.w-attention-lines .diff-row[data-hl-pos="4"]').hover();
    await page.waitForFunction(() => document.querySelector('.lines-clocks')?.dataset.pos === '4');
    s = await clockState(page);
    handsAt(s, 4);
    assert.deepEqual(s.stripRows, ['4']);
    // The light goes out; the clocks keep the last position.
    await page.mouse.move(2, 2);
    await page.waitForFunction(() => !document.querySelector('.lines-clocks')?.classList.contains('lit'));
    assert.equal((await clockState(page)).pos, '4');
    // Keyboard from the top of the page: Tab to the chips (position 0), → to position 1.
    await page.mouse.click(1, 1);
    await tabUntil(page, () => document.activeElement?.classList.contains('chip'));
    await page.waitForFunction(() => document.querySelector('.lines-clocks')?.dataset.pos === '0');
    s = await clockState(page);
    assert.equal(s.lit, true);
    handsAt(s, 0);
    assert.deepEqual(s.gridRows.map((x) => x.toLowerCase()), [words[0].toLowerCase()]);
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => document.querySelector('.lines-clocks')?.dataset.pos === '1');
    s = await clockState(page);
    handsAt(s, 1);
    assert.deepEqual(s.stripRows, ['1']);
    assert.deepEqual(s.tableCols, ['1']);
    assert.ok(s.top >= 0 && s.bottom <= 800, 'the clocks stayed on the first screen');
    assert.deepEqual(problems.console, []);
    await context.close();
  });
}

test('1280×800: exercise 4 with Learned, the encoding strip is drawn on the learned table\'s own range, its cells visible against the background', { timeout: T(120000) }, async () => {
  const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
  await gotoReady(page, urlFor(lab, 'http', { ex: 'add-position', lang: 'en', extra: '&pe=learned' }));
  const got = await page.evaluate(() => {
    const rgb = (c) => c.match(/[\d.]+/g).slice(0, 3).map(Number);
    // The colour under the drawing: the nearest ancestor with a background of its own.
    let bg = null;
    for (let e = document.querySelector('.w-attention-lines .lines-svg'); e && !bg; e = e.parentElement) {
      const c = getComputedStyle(e).backgroundColor;
      if (c && !/rgba\(0, 0, 0, 0\)|transparent/.test(c)) bg = rgb(c);
    }
    const cells = [...document.querySelectorAll('.w-attention-lines .pe-cell')];
    return {
      scheme: document.querySelector('.w-attention-lines .pe-strip').dataset.scheme,
      bg: bg ?? [255, 255, 255],
      cells: cells.map((r) => ({ value: Number(r.dataset.value), fill: rgb(r.getAttribute('fill')) })),
      key: document.querySelector('.w-attention-lines .lines-pe-key')?.textContent ?? '',
    };
  });
  assert.equal(got.scheme, 'learned');
  assert.equal(got.cells.length, 6 * 8);
  const far = got.cells.filter((c) => Math.max(...c.fill.map((v, k) => Math.abs(v - got.bg[k]))) > 40);
  assert.ok(far.length >= 0.3 * got.cells.length, `only ${far.length} of ${got.cells.length} cells more than 40/255 from the background ${got.bg}`);
  // The key's ends are ± the largest |value| drawn, and it says the range is the learned table's own.
  const m = Math.max(...got.cells.map((c) => Math.abs(c.value)));
  assert.ok(m > 0.01 && m < 0.2, `the learned values' largest |value| ${m}`);
  const ends = [...got.key.matchAll(/[−+]\s*(\d+\.\d+)/g)].map((x) => Number(x[1]));
  assert.equal(ends.length, 2, got.key);
  for (const e of ends) assert.ok(Math.abs(e - m) < 0.0006, `key end ${e}, largest |value| ${m}`);
  assert.match(got.key, /learned table's own range/);
  assert.deepEqual(problems.console, []);
  await context.close();
});

for (const lang of ['ja', 'en']) {
  test(`1280×800 ${lang}: exercise 5's mask formula at the side column's text size, the matrix beside the lines on the first screen`, { timeout: T(120000) }, async () => {
    const { page, context, problems } = await openPage(lab, 'http', { viewport: { width: 1280, height: 800 } });
    await gotoReady(page, urlFor(lab, 'http', { ex: 'causal-mask', lang }));
    await page.evaluate(() => document.fonts.ready);
    const got = await page.evaluate(() => {
      const px = (e) => parseFloat(getComputedStyle(e).fontSize);
      const text = document.querySelector('.lab-stage-side .text p');
      const block = document.querySelector('.lab-stage-side .math-block');
      const katex = block.querySelector('.katex');
      // Every glyph of the formula but the sub- and superscripts (KaTeX's mtight).
      const glyphs = [];
      const walk = document.createTreeWalker(katex.querySelector('.katex-html'), NodeFilter.SHOW_TEXT);
      // (KaTeX's struts, zero-width spaces at 1 px, draw nothing.)
      for (let n = walk.nextNode(); n; n = walk.nextNode()) if (n.textContent.replace(/\u200b/g, '').trim() && !n.parentElement.closest('.mtight')) glyphs.push({ ch: n.textContent, px: px(n.parentElement) });
      // The x-height as drawn: the height of an x in KaTeX's main font at the formula's size and in the text's font at its size.
      const g = document.createElement('canvas').getContext('2d');
      const xHeight = (font) => {
        g.font = font;
        return g.measureText('x').actualBoundingBoxAscent;
      };
      const cs = getComputedStyle(text);
      const box = (e) => e.getBoundingClientRect();
      const lines = box(document.querySelector('.w-attention-lines'));
      const matrix = box(document.querySelector('.w-attention .heatmap-grid'));
      const scroll = document.querySelector('.w-attention .hm-scroll') ?? document.querySelector('.w-attention .heatmap-grid').parentElement;
      return {
        text: px(text),
        block: px(block),
        katex: px(katex),
        glyphs,
        katexLoaded: document.fonts.check(`${px(katex)}px KaTeX_Main`),
        xFormula: xHeight(`${px(katex)}px KaTeX_Main`),
        xText: xHeight(`${cs.fontSize} ${cs.fontFamily}`),
        lines: { left: lines.left, right: lines.right, top: lines.top, bottom: lines.bottom },
        matrix: { left: matrix.left, right: matrix.right, top: matrix.top, bottom: matrix.bottom },
        sideways: scroll.scrollWidth > scroll.clientWidth + 1,
      };
    });
    assert.ok(got.text >= 15, `the side column's text at ${got.text} px`);
    assert.ok(got.block >= got.text, `the formula's block at ${got.block} px, under the text's ${got.text} px`);
    assert.ok(got.katex >= got.text, `KaTeX at ${got.katex} px`);
    assert.ok(got.glyphs.length >= 10, `${got.glyphs.length} glyphs`);
    for (const gl of got.glyphs) assert.ok(gl.px >= got.text, `'${gl.ch}' at ${gl.px} px`);
    assert.ok(got.katexLoaded, 'KaTeX_Main loaded');
    assert.ok(got.xFormula >= 0.95 * got.xText, `the formula's x-height ${got.xFormula.toFixed(2)} px, the text's ${got.xText.toFixed(2)} px`);
    // The matrix beside the lines (right of them, level with them), whole on the first screen.
    assert.ok(got.matrix.left >= got.lines.right, `the matrix (left ${got.matrix.left}) is not beside the lines (right ${got.lines.right})`);
    assert.ok(got.matrix.top < got.lines.bottom && got.matrix.top >= got.lines.top, 'the matrix is level with the lines');
    assert.ok(got.matrix.bottom <= 800 && got.matrix.right <= 1280, `the matrix ends at ${got.matrix.bottom} px`);
    assert.equal(got.sideways, false, 'the matrix scrolls sideways');
    // The mask, switched on beside them, empties the matrix's upper triangle there.
    await page.locator('.lab-stage-side input[type="checkbox"]').first().check();
    await page.waitForSelector('.w-attention .readout.same');
    const masked = await page.evaluate(() => {
      const cells = [...document.querySelectorAll('.w-attention .hm-cell.masked')];
      const grid = document.querySelector('.w-attention .heatmap-grid').getBoundingClientRect();
      const readout = document.querySelector('.w-attention .readout').getBoundingClientRect();
      return { n: cells.length, grid: grid.bottom, readout: readout.bottom };
    });
    assert.equal(masked.n, (6 * 5) / 2, 'the 15 pairs above the diagonal masked');
    assert.ok(masked.grid <= 800 && masked.readout <= 800, `with the mask: the matrix ends at ${masked.grid} px, its readout at ${masked.readout} px`);
    assert.deepEqual(problems.console, []);
    await context.close();
  });
}
