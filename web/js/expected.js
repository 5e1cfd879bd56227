// Resolves an exercise file's `expect` (a declared live core call) to a
// number. Arguments may name the lab's current values ("$sentence", "$d",
// …) or be {ja, en} pairs. Results are cached per call.
import { getPath } from './check.js';
import { pick } from './i18n.js';

function substitute(value, lab) {
  if (typeof value === 'string' && value.startsWith('$')) {
    const key = value.slice(1);
    const map = { sentence: lab.sentence, d: lab.d, seed: lab.seed, pe: lab.pe, causal: lab.causal, heads: lab.heads };
    if (!(key in map)) throw new Error(`unknown variable ${value}`);
    return map[key];
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, lab));
  if (value && typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 2 && keys.includes('ja') && keys.includes('en')) return pick(value);
    return Object.fromEntries(keys.map((k) => [k, substitute(value[k], lab)]));
  }
  return value;
}

export function makeResolver(core) {
  const cache = new Map();
  return async function resolve(expect, lab) {
    const args = substitute(expect.args ?? {}, lab);
    const key = JSON.stringify([expect.call, args]);
    if (!cache.has(key)) cache.set(key, core.call(expect.call, args));
    const result = await cache.get(key);
    const value = expect.pick ? getPath(result, expect.pick) : result;
    if (typeof value !== 'number') throw new Error(`expect: ${expect.call} gave no number at "${expect.pick}"`);
    return value;
  };
}
