// Stand-ins for the browser in node --test: a Storage that can be told to
// fail, a clock, windows that record postMessage, and message events.

export class FakeStorage {
  constructor(entries = {}) {
    this.map = new Map(Object.entries(entries));
    this.failGet = null; // an Error to throw from getItem/key/length
    this.failSet = null; // an Error to throw from setItem, or a function (key) => Error|null
    this.writes = [];
  }
  get length() {
    if (this.failGet) throw this.failGet;
    return this.map.size;
  }
  key(i) {
    if (this.failGet) throw this.failGet;
    return [...this.map.keys()][i] ?? null;
  }
  getItem(k) {
    if (this.failGet) throw this.failGet;
    return this.map.has(k) ? this.map.get(k) : null;
  }
  setItem(k, v) {
    const e = typeof this.failSet === 'function' ? this.failSet(k) : this.failSet;
    if (e) throw e;
    this.writes.push(k);
    this.map.set(String(k), String(v));
  }
  removeItem(k) {
    if (this.failGet) throw this.failGet;
    this.map.delete(k);
  }
  snapshot() {
    return Object.fromEntries([...this.map].sort(([a], [b]) => a.localeCompare(b)));
  }
}

export function domException(name, message = name) {
  const e = new Error(message);
  e.name = name;
  return e;
}

// A clock that moves only when told to.
export function fakeClock(start = '2026-12-01T09:00:00.000Z') {
  let t = Date.parse(start);
  return {
    now: () => new Date(t),
    ms: () => t,
    tick(ms) {
      t += ms;
    },
  };
}

// A window that records what is posted to it: [{data, targetOrigin}].
export class PostTarget extends EventTarget {
  constructor(name) {
    super();
    this.name = name;
    this.posted = [];
  }
  postMessage(data, targetOrigin) {
    if (targetOrigin === undefined) throw new TypeError('postMessage needs a target origin');
    // What the structured clone would deliver: a copy, not the object.
    this.posted.push({ data: structuredClone(data), targetOrigin });
  }
}

// A 'message' event as a window receives it.
export function messageEvent(data, origin, source) {
  const e = new Event('message');
  Object.defineProperties(e, { data: { value: data }, origin: { value: origin }, source: { value: source } });
  return e;
}
