// Heavy blocks drawn when they are needed rather than at load (exercise 6's
// similarity heatmaps: 2,600 elements each, far below the first screen).
// A deferred block is an element with `data-deferred` and a draw function:
// drawn when it comes within half a screen of the viewport
// (IntersectionObserver), when anything in it takes focus (Tab reaches its
// scroll box), before the page is printed, and, at once, by drawNear(root),
// which the page calls just before it says data-ready (and a widget after
// redrawing in place): a block the screen shows (or nearly) is always drawn
// then, so "ready" still means "everything shown is drawn".
const draws = new WeakMap();
const NEAR = 0.5; // how near, in screens
let observer = null;

// Draws the block now (once); a no-op for one already drawn.
export function drawNow(el) {
  const draw = draws.get(el);
  if (!draw) return;
  draws.delete(el);
  observer?.unobserve(el);
  delete el.dataset.deferred;
  draw();
}

function ensureObserver() {
  if (observer || typeof IntersectionObserver === 'undefined') return observer;
  // Half a screen above and below: drawn while still out of sight when
  // scrolling (a 50 × 50 grid takes some tens of ms to draw).
  observer = new IntersectionObserver((entries) => {
    for (const e of entries) if (e.isIntersecting) drawNow(e.target);
  }, { rootMargin: `${NEAR * 100}% 0px ${NEAR * 100}% 0px` });
  if (typeof window !== 'undefined') window.addEventListener('beforeprint', () => drawAll(document));
  return observer;
}

// Blocks deferred before the page's first drawNear: observed only from then on.
// While the page is still being drawn, the blocks above a deferred one have not
// their final size, and the observer could see it "near" in a layout that is
// about to grow (exercise 6 drew one of its heatmaps at load in ja and not in en).
const waiting = new Set();
let observing = false;

// A new render begins (runner.js): blocks deferred from now on wait for its drawNear.
export function holdObserving() {
  observing = false;
}

// el: the block (attached or not yet); draw(): fills it in.
export function deferDraw(el, draw) {
  el.dataset.deferred = 'true';
  draws.set(el, draw);
  el.addEventListener('focusin', () => drawNow(el), { once: true });
  const io = ensureObserver();
  if (!io) drawNow(el); // no IntersectionObserver: draw at once
  else if (observing) io.observe(el);
  else waiting.add(el);
}

// Draws every deferred block under root that is within half a screen of
// the viewport (a layout read; called once a render has landed, when the
// blocks above it have their final size).
// It also starts observing the blocks deferred before it (since holdObserving).
export function drawNear(root) {
  const blocks = root.querySelectorAll('[data-deferred]');
  const hgt = window.innerHeight || document.documentElement.clientHeight;
  for (const el of blocks) {
    const r = el.getBoundingClientRect();
    if (r.bottom >= -NEAR * hgt && r.top <= (1 + NEAR) * hgt) drawNow(el);
  }
  if (!observing) {
    observing = true;
    for (const el of waiting) if (draws.has(el)) observer?.observe(el);
    waiting.clear();
  }
}

// Forgets the blocks under root that were never drawn (root's contents are
// about to be replaced): the observer lets go of them.
export function forget(root) {
  for (const el of root.querySelectorAll('[data-deferred]')) {
    draws.delete(el);
    waiting.delete(el);
    observer?.unobserve(el);
  }
}

export function drawAll(root) {
  for (const el of root.querySelectorAll('[data-deferred]')) drawNow(el);
}
