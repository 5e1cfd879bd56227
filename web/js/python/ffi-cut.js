// MicroPython's foreign-function interface (the `js` and `jsffi` modules,
// every JsProxy) reads JavaScript objects from one table, globalThis.proxy_js_ref,
// by index: index 0 is globalThis, which `import js` wraps. Once the harness
// is ready, that table is replaced, for good, by one that answers every index
// with INERT: a function-shaped proxy with no properties, no prototype, that
// returns nothing when called. `js.eval`, `js.globalThis`, `jsffi.to_js(x).constructor`
// all raise AttributeError from then on, whatever Python did to reach them.
export const INERT = new Proxy(function inert() {}.bind(null), {
  get: () => undefined,
  has: () => false,
  set: () => true,
  apply: () => undefined,
  construct: () => INERT,
  getPrototypeOf: () => null,
  setPrototypeOf: () => true,
  ownKeys: () => [],
  defineProperty: () => true,
  deleteProperty: () => true,
  getOwnPropertyDescriptor: () => undefined,
  isExtensible: () => false,
  preventExtensions: () => false,
});
export function cutForeignFunctions() {
  const real = globalThis.proxy_js_ref;
  if (!Array.isArray(real)) throw new Error('MicroPython changed: proxy_js_ref is not a table; update py-worker.js before running student code');
  const table = new Proxy(real, {
    get(t, k) {
      if (typeof k === 'string' && /^\d+$/.test(k)) return t[k] === undefined ? undefined : INERT;
      if (k === Symbol.iterator) return function* items() { for (let i = 0; i < t.length; i++) yield t[i] === undefined ? undefined : INERT; };
      return t[k];
    },
  });
  Object.defineProperty(globalThis, 'proxy_js_ref', { value: table, writable: false, configurable: false });
}
