// Sideways scrolling that a reader can see and reach. A formula, table or
// heatmap wider than the screen scrolls inside its own box: the box fades at
// each edge it can scroll towards, a table's caption stays in view, and a formula that scrolls becomes
// focusable (the arrow keys scroll it) with a name that says so. Tables and
// heatmaps are focusable already.
import { t } from './i18n.js';

const SELECTOR = '.math-block, .table-scroll, .hm-scroll';

// Every box's sizes are read first, then written: reading after a write
// would lay the page out again, once per box.
function updateAll(els) {
  const sizes = [...els].map((el) => ({ el, max: el.scrollWidth - el.clientWidth, left: el.scrollLeft, width: el.clientWidth }));
  sizes.forEach(apply);
}
const update = (el) => updateAll([el]);

function apply({ el, max, left, width }) {
  const scrolls = max > 1;
  el.classList.toggle('fade-left', scrolls && left > 1);
  el.classList.toggle('fade-right', scrolls && left < max - 1);
  // A table's caption wraps to the box, not to the wider table (style.css).
  if (el.style.getPropertyValue('--box-width') !== `${width}px`) el.style.setProperty('--box-width', `${width}px`);
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
  const resize = new ResizeObserver((entries) => updateAll(new Set(entries.map((e) => boxOf.get(e.target) ?? e.target))));
  // Watches a box (once) and notes it in `due` for the next update.
  const add = (el, due) => {
    const inner = el.firstElementChild;
    if (inner && !boxOf.has(inner)) {
      boxOf.set(inner, el);
      resize.observe(inner);
    }
    due.add(el);
    if (seen.has(el)) return;
    seen.add(el);
    el.addEventListener('scroll', () => update(el), { passive: true });
    resize.observe(el);
  };
  const scan = (node, due) => {
    if (node.nodeType !== 1) return;
    if (node.matches(SELECTOR)) add(node, due);
    node.querySelectorAll(SELECTOR).forEach((el) => add(el, due));
    // New content inside a box that was already there (a table re-rendered).
    const box = node.parentElement?.closest(SELECTOR);
    if (box) add(box, due);
  };
  const scanAll = (nodes) => {
    const due = new Set();
    nodes.forEach((n) => scan(n, due));
    updateAll(due);
  };
  scanAll([root]);
  // KaTeX's fonts arrive after the formula is laid out, and widen it.
  const all = () => updateAll(root.querySelectorAll(SELECTOR));
  document.fonts?.addEventListener?.('loadingdone', all);
  document.fonts?.ready.then(all);
  new MutationObserver((records) => scanAll(records.flatMap((r) => [...r.addedNodes]))).observe(root, { childList: true, subtree: true });
}
