// Reorder animation by FLIP: note where each keyed element ([data-flip])
// stands, let the page redraw, then slide every element that moved from its
// old place to its new one (Web Animations API, transform only). Nothing
// moves when the reader asks for reduced motion. Places are measured from
// the element's [data-flip-root] (its grid or table), so that a change of
// height above it slides nothing.
export const DURATION = 320;

export function reducedMotion() {
  return typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
}

function place(el, roots) {
  const r = el.getBoundingClientRect();
  const root = el.parentElement?.closest('[data-flip-root]');
  if (!root) return { left: r.left, top: r.top };
  if (!roots.has(root)) roots.set(root, root.getBoundingClientRect());
  const o = roots.get(root);
  return { left: r.left - o.left, top: r.top - o.top };
}

export function snapshot(container) {
  const at = new Map();
  const roots = new Map();
  for (const el of container.querySelectorAll('[data-flip]')) at.set(el.dataset.flip, place(el, roots));
  return at;
}

// Returns how many elements were set moving.
export function play(container, before, { duration = DURATION } = {}) {
  if (!before || reducedMotion()) return 0;
  let n = 0;
  const roots = new Map();
  for (const el of container.querySelectorAll('[data-flip]')) {
    const r0 = before.get(el.dataset.flip);
    if (!r0) continue;
    const r1 = place(el, roots);
    const dx = r0.left - r1.left;
    const dy = r0.top - r1.top;
    if (Math.abs(dx) < 0.5 && Math.abs(dy) < 0.5) continue;
    // One keyframe: from the old place to wherever the style sheet puts it.
    el.animate([{ transform: `translate(${dx}px, ${dy}px)` }], { duration, easing: 'cubic-bezier(0.2, 0.7, 0.2, 1)' });
    n++;
  }
  return n;
}
