// Redraw in place: make the children of an element on the page look like a
// freshly built set of nodes, keeping every existing node whose place and tag
// still match and changing only the text and attributes that differ. A
// control that changes numbers (position information on/off, a length
// slider) then updates the widgets the reader is looking at rather than
// rebuilding them: the elements keep their identity (and the keyboard focus,
// and what a screen reader is on), and the browser lays out and paints only
// what changed. Nodes are matched by place and tag; a node whose tag differs
// is replaced by the new one, and so is an element whose number of children changed.
//
// What the reader set is kept: the `hidden` state of an existing element (a
// data table the reader opened stays open) and a toggle button's
// `aria-expanded` and its text ("hide table"). Listeners of kept nodes stay;
// the new nodes' listeners are dropped with them, so a kept node's listener
// must not hold on to a node that may be replaced (heatmap.js and
// lineplot.js find their table by aria-controls).
const KEEP = new Set(['hidden', 'aria-expanded']);

function sameKind(a, b) {
  return a.nodeType === b.nodeType && (a.nodeType !== 1 || (a.namespaceURI === b.namespaceURI && a.tagName === b.tagName));
}

function syncAttributes(old, next) {
  for (const { name } of [...old.attributes]) if (!KEEP.has(name) && !next.hasAttribute(name)) old.removeAttribute(name);
  for (const { name, value } of next.attributes) if (!KEEP.has(name) && old.getAttribute(name) !== value) old.setAttribute(name, value);
}

function morphNode(old, next) {
  if (old.nodeType !== 1) {
    if (old.nodeValue !== next.nodeValue) old.nodeValue = next.nodeValue;
    return;
  }
  syncAttributes(old, next);
  // A show/hide toggle keeps what the reader made of it.
  if (old.hasAttribute('aria-expanded')) return;
  morphChildren(old, [...next.childNodes]);
}

// An element whose number of children changed (a heatmap's grid or a
// table's rows for a new length) is put in whole: matched by place, nearly
// every node in it would change, and setting thousands of attributes on the
// page costs more than new nodes.
const rebuilt = (old, next) => old.nodeType === 1 && old.childNodes.length !== next.childNodes.length;

// parent: the element on the page; nodes: the new children (built off the page).
export function morphChildren(parent, nodes) {
  const list = nodes.filter((n) => n !== null && n !== undefined && n !== false).map((n) => (n instanceof Node ? n : document.createTextNode(String(n))));
  const old = [...parent.childNodes];
  for (let i = 0; i < list.length; i++) {
    const o = old[i];
    const n = list[i];
    if (!o) parent.append(n);
    else if (sameKind(o, n) && !rebuilt(o, n)) morphNode(o, n);
    else o.replaceWith(n);
  }
  for (let i = list.length; i < old.length; i++) old[i].remove();
  return parent;
}
