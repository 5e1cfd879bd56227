// Reorder animation by FLIP: note where each keyed element ([data-flip])
// stands, let the page redraw, then slide every element that moved from its
// old place to its new one (Web Animations API, transform only). Nothing
// moves when the reader asks for reduced motion.
export const DURATION = 320;

export function reducedMotion() {
  return typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
}

export function snapshot(container) {
  const at = new Map();
  for (const el of container.querySelectorAll('[data-flip]')) at.set(el.dataset.flip, el.getBoundingClientRect());
  return at;
}

// Returns how many elements were set moving.
export function play(container, before, { duration = DURATION } = {}) {
  if (!before || reducedMotion()) return 0;
  let n = 0;
  for (const el of container.querySelectorAll('[data-flip]')) {
    const r0 = before.get(el.dataset.flip);
    if (!r0) continue;
    const r1 = el.getBoundingClientRect();
    const dx = r0.left - r1.left;
    const dy = r0.top - r1.top;
    if (Math.abs(dx) < 0.5 && Math.abs(dy) < 0.5) continue;
    // One keyframe: from the old place to wherever the style sheet puts it.
    el.animate([{ transform: `translate(${dx}px, ${dy}px)` }], { duration, easing: 'cubic-bezier(0.2, 0.7, 0.2, 1)' });
    n++;
  }
  return n;
}
