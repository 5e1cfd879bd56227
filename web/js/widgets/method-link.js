// Linked highlighting across the two "stretching RoPE" widgets (issue 24): one
// method highlighted per page (none, PI, NTK-aware, YaRN, …). Anything that
// stands for a method carries data-method-key: the angle map (the method it
// draws), a run's curve and its legend entry, a row of the run's table.
// Hovering or focusing one lights every element of that method on the page
// (.lit, and .method-lit on each linked root, so the rest can be dimmed);
// leaving clears it. The roots talk through one window event, so the two
// widgets need not know each other.
const EVENT = 'poslab:method-highlight';
let current = null;

function set(method) {
  const next = method ?? null;
  if (next === current) return;
  current = next;
  window.dispatchEvent(new CustomEvent(EVENT, { detail: { method: next } }));
}

const keyOf = (target, root) => {
  const el = target?.closest?.('[data-method-key]');
  return el && root.contains(el) ? el.dataset.methodKey : null;
};

export function apply(root) {
  root.classList.toggle('method-lit', current !== null && !!root.querySelector(`[data-method-key="${current}"]`));
  for (const el of root.querySelectorAll('[data-method-key]')) el.classList.toggle('lit', el.dataset.methodKey === current);
  if (current === null) delete root.dataset.methodLit;
  else root.dataset.methodLit = current;
}

// Makes root's [data-method-key] elements write the highlight and light up with it.
export function linkMethods(root) {
  root.addEventListener('mouseover', (e) => {
    const k = keyOf(e.target, root);
    if (k !== null) set(k);
  });
  root.addEventListener('mouseout', (e) => {
    if (keyOf(e.target, root) !== null && keyOf(e.relatedTarget, root) === null) set(keyOf(document.activeElement, root));
  });
  root.addEventListener('focusin', (e) => set(keyOf(e.target, root)));
  root.addEventListener('focusout', (e) => {
    if (keyOf(e.relatedTarget, root) === null) set(null);
  });
  const on = () => {
    if (!root.isConnected) return window.removeEventListener(EVENT, on);
    apply(root);
  };
  window.addEventListener(EVENT, on);
  return { refresh: () => apply(root) };
}
