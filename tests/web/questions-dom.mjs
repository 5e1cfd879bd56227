// A stand-in DOM for node --test, enough for web/js/questions.js and
// web/js/dom.js: elements with attributes, classes, children, listeners,
// innerHTML kept as a string, simple selectors (tag, .class, tag.class,
// comma lists), and a document whose <script> loads are answered by the
// test (the Python runtime and the code editor). Installs window, document,
// Node, Worker and localStorage on globalThis.
import { FakeStorage } from './fakes.mjs';

export class FakeNode {
  constructor() {
    this.parent = null;
  }
  get isConnected() {
    let n = this;
    while (n.parent) n = n.parent;
    return n.connected === true;
  }
  remove() {
    if (!this.parent) return;
    const kids = this.parent.children;
    kids.splice(kids.indexOf(this), 1);
    this.parent = null;
  }
  replaceWith(other) {
    const p = this.parent;
    if (!p) return;
    p.children[p.children.indexOf(this)] = other;
    other.parent = p;
    this.parent = null;
  }
}

export class FakeText extends FakeNode {
  constructor(text) {
    super();
    this.data = String(text);
  }
  get textContent() {
    return this.data;
  }
  all() {
    return [];
  }
}

const stripTags = (html) => html.replace(/<[^>]*>/g, '');

export class FakeElement extends FakeNode {
  constructor(tag) {
    super();
    this.tagName = tag.toUpperCase();
    this.attrs = new Map();
    this.children = [];
    this.listeners = {};
    this.dataset = {};
    this._html = '';
    this._value = undefined;
    this.checked = false;
    const el = this;
    this.classList = {
      contains: (c) => el.className.split(' ').includes(c),
      add: (c) => el.classList.toggle(c, true),
      remove: (c) => el.classList.toggle(c, false),
      toggle(c, force) {
        const set = el.className.split(' ').filter(Boolean);
        const on = force === undefined ? !set.includes(c) : !!force;
        const next = set.filter((x) => x !== c);
        if (on) next.push(c);
        el.className = next.join(' ');
        return on;
      },
    };
  }
  get className() {
    return this.attrs.get('class') ?? '';
  }
  set className(v) {
    this.attrs.set('class', String(v));
  }
  setAttribute(k, v) {
    this.attrs.set(k, String(v));
  }
  getAttribute(k) {
    return this.attrs.has(k) ? this.attrs.get(k) : null;
  }
  hasAttribute(k) {
    return this.attrs.has(k);
  }
  removeAttribute(k) {
    this.attrs.delete(k);
  }
  get hidden() {
    return this.attrs.has('hidden');
  }
  set hidden(v) {
    if (v) this.attrs.set('hidden', '');
    else this.attrs.delete('hidden');
  }
  get disabled() {
    return this.attrs.has('disabled');
  }
  set disabled(v) {
    if (v) this.attrs.set('disabled', '');
    else this.attrs.delete('disabled');
  }
  get id() {
    return this.getAttribute('id') ?? '';
  }
  get value() {
    return this._value ?? this.getAttribute('value') ?? '';
  }
  set value(v) {
    this._value = String(v);
  }
  get innerHTML() {
    return this._html;
  }
  set innerHTML(v) {
    this._html = String(v);
    this.children = [];
  }
  get textContent() {
    return stripTags(this._html) + this.children.map((c) => c.textContent).join('');
  }
  set textContent(v) {
    this._html = '';
    this.children = [];
    if (String(v) !== '') this.append(new FakeText(v));
  }
  append(...nodes) {
    for (const n of nodes) {
      const node = typeof n === 'string' ? new FakeText(n) : n;
      node.remove();
      node.parent = this;
      this.children.push(node);
    }
  }
  replaceChildren(...nodes) {
    for (const c of this.children) c.parent = null;
    this.children = [];
    this._html = '';
    this.append(...nodes);
  }
  addEventListener(type, f) {
    (this.listeners[type] ??= []).push(f);
  }
  removeEventListener(type, f) {
    this.listeners[type] = (this.listeners[type] ?? []).filter((g) => g !== f);
  }
  // Runs the listeners as the browser would; resolves when async ones finish.
  async fire(type, extra = {}) {
    const event = { type, target: this, defaultPrevented: false, preventDefault() { this.defaultPrevented = true; }, ...extra };
    await Promise.all((this.listeners[type] ?? []).map((f) => f(event)));
    return event;
  }
  // This element and every element under it, in document order.
  all(pred = () => true) {
    return [...(pred(this) ? [this] : []), ...this.children.flatMap((c) => c.all(pred))];
  }
  querySelectorAll(selector) {
    // As a browser: an empty selector (or an empty part of a list) is a SyntaxError.
    if (selector.split(',').some((x) => !x.trim())) throw Object.assign(new Error(`'${selector}' is not a valid selector`), { name: 'SyntaxError' });
    const tests = selector.split(',').map((s) => matcher(s.trim()));
    return this.children.flatMap((c) => c.all((e) => tests.some((t) => t(e))));
  }
  querySelector(selector) {
    return this.querySelectorAll(selector)[0] ?? null;
  }
}

function matcher(simple) {
  const [tag, ...classes] = simple.split('.');
  return (e) => (!tag || e.tagName === tag.toUpperCase()) && classes.every((c) => e.classList.contains(c));
}

// What the test answers for a <script> the page loads: src → a function run
// when the script "loads" (return false to fail the load).
export const scripts = new Map();

export function installDom() {
  const head = new FakeElement('head');
  head.append = (s) => {
    const load = scripts.get(s.src);
    setImmediate(() => (load && load() !== false ? s.onload?.() : s.onerror?.()));
  };
  const body = new FakeElement('body');
  body.connected = true;
  const document = {
    // As a browser: an empty or odd tag name is an InvalidCharacterError.
    createElement: (tag) => {
      if (!/^[a-z][a-z0-9-]*$/i.test(tag)) throw Object.assign(new Error(`'${tag}' is not a valid tag name`), { name: 'InvalidCharacterError' });
      return new FakeElement(tag);
    },
    createTextNode: (text) => new FakeText(text),
    documentElement: { lang: 'ja' },
    head,
    body,
  };
  const window = new EventTarget();
  Object.assign(globalThis, { document, window, Node: FakeNode, localStorage: new FakeStorage() });
  return { document, window, body };
}
