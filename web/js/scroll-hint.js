// Sideways scrolling that a reader can see and reach. A formula, table or
// heatmap wider than the screen scrolls inside its own box: the box fades at
// each edge it can scroll towards, a table's caption stays in view, and a formula that scrolls becomes
// focusable (the arrow keys scroll it) with a name that says so. Tables and
// heatmaps are focusable already.
import { t } from './i18n.js';

const SELECTOR = '.math-block, .table-scroll, .hm-scroll';

function update(el) {
  const max = el.scrollWidth - el.clientWidth;
  const scrolls = max > 1;
  el.classList.toggle('fade-left', scrolls && el.scrollLeft > 1);
  el.classList.toggle('fade-right', scrolls && el.scrollLeft < max - 1);
  // A table's caption wraps to the box, not to the wider table (style.css).
  // Written only when it changes: a write would make the next box's reading lay the page out again.
  const width = `${el.clientWidth}px`;
  if (el.style.getPropertyValue('--box-width') !== width) el.style.setProperty('--box-width', width);
  if (el.classList.contains('math-block')) {
    if (scrolls) {
      el.tabIndex = 0;
      el.setAttribute('role', 'group');
      el.setAttribute('aria-label', t('scroll.math'));
    } else if (el.hasAttribute('tabindex')) {
      el.removeAttribute('tabindex');
      el.removeAttribute('role');
      el.removeAttribute('aria-label');
    }
  }
}

export function watchScrollers(root) {
  const seen = new WeakSet();
  // The box and what it holds are watched: the content can grow while the
  // box keeps its size (a web font arrives, a table is re-rendered).
  const boxOf = new WeakMap();
  const resize = new ResizeObserver((entries) => entries.forEach((e) => update(boxOf.get(e.target) ?? e.target)));
  const add = (el) => {
    const inner = el.firstElementChild;
    if (inner && !boxOf.has(inner)) {
      boxOf.set(inner, el);
      resize.observe(inner);
    }
    if (seen.has(el)) {
      update(el);
      return;
    }
    seen.add(el);
    el.addEventListener('scroll', () => update(el), { passive: true });
    resize.observe(el);
    update(el);
  };
  const scan = (node) => {
    if (node.nodeType !== 1) return;
    if (node.matches(SELECTOR)) add(node);
    node.querySelectorAll(SELECTOR).forEach(add);
    // New content inside a box that was already there (a table re-rendered).
    const box = node.parentElement?.closest(SELECTOR);
    if (box) add(box);
  };
  scan(root);
  // KaTeX's fonts arrive after the formula is laid out, and widen it.
  const all = () => root.querySelectorAll(SELECTOR).forEach(update);
  document.fonts?.addEventListener?.('loadingdone', all);
  document.fonts?.ready.then(all);
  new MutationObserver((records) => records.forEach((r) => r.addedNodes.forEach(scan))).observe(root, { childList: true, subtree: true });
}
