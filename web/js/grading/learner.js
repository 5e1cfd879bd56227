// The learner id, which seeds every variant. Three sources, strongest first:
//   1. the URL (`?learner=…` or `#learner=…`), as a course page's iframe sets it;
//   2. the host page, by postMessage through the embed bridge
//      ({context: 'position-lab', action: 'learner', learner});
//   3. typed by the student on the start page (kept in localStorage).
// A weaker source never overrides a stronger one. The seed itself is the
// core's: variantFor() asks lab.variant({exercise, learner}).
import { messages } from './strings.js';

export const LEARNER_KEY = 'poslab.learner.v1';
export const MAX_LEARNER_LENGTH = 200;
const RANK = { url: 3, host: 2, typed: 1 };

export class LearnerError extends Error {
  constructor(code, params = {}) {
    const text = messages(`grading.learner_${code}`, params);
    super(text.en);
    this.name = 'LearnerError';
    this.code = code;
    this.params = params;
    this.text = text;
  }
}

// The id as it will be used (NFC, trimmed), or a LearnerError saying what is wrong.
export function normalizeLearner(value) {
  const id = String(value ?? '').normalize('NFC').trim();
  if (id === '') throw new LearnerError('empty');
  const length = [...id].length;
  if (length > MAX_LEARNER_LENGTH) throw new LearnerError('too_long', { max: MAX_LEARNER_LENGTH, length });
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(id)) throw new LearnerError('bad_char');
  return id;
}

// `learner=` from the query or the hash; null when absent or unusable.
export function learnerFromUrl(href) {
  let url;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  const value = url.searchParams.get('learner') ?? new URLSearchParams(url.hash.replace(/^#/, '')).get('learner');
  if (value === null) return null;
  try {
    return normalizeLearner(value);
  } catch {
    return null;
  }
}

/**
 * @param {object} [o]
 * @param {string} [o.href] the page URL (default location.href)
 * @param {Storage|null} [o.storage] where a typed id is kept (default localStorage; failures are ignored)
 */
export function createLearner({ href = globalThis.location?.href, storage } = {}) {
  if (storage === undefined) {
    try {
      storage = globalThis.localStorage ?? null;
    } catch {
      storage = null;
    }
  }
  const listeners = new Set();
  // [{code, message: {ja, en}}]: a kept id that could not be used (shown by the grading panel).
  const warnings = [];
  let current = null; // {id, source}
  const fromUrl = href ? learnerFromUrl(href) : null;
  if (fromUrl) current = { id: fromUrl, source: 'url' };
  else {
    let typed = null;
    try {
      typed = storage?.getItem(LEARNER_KEY) ?? null;
    } catch {
      // Blocked storage: the student types the id (it then lasts for the visit).
    }
    if (typed !== null) {
      try {
        // Far longer than any id can be: not even normalized.
        if (typed.length > MAX_LEARNER_LENGTH * 4) throw new LearnerError('too_long', { max: MAX_LEARNER_LENGTH, length: typed.length });
        current = { id: normalizeLearner(typed), source: 'typed' };
      } catch {
        // A damaged value: not used; the student types the id again.
        warnings.push({ code: 'learner_dropped', message: messages('grading.learner_dropped') });
      }
    }
  }

  const set = (value, source) => {
    const id = normalizeLearner(value);
    if (current && RANK[current.source] > RANK[source]) return false;
    if (source === 'typed') {
      try {
        storage?.setItem(LEARNER_KEY, id);
      } catch {
        // Storage off: the id lasts for the visit.
      }
    }
    const changed = current?.id !== id;
    current = { id, source };
    if (changed) for (const f of listeners) f(current);
    return changed;
  };

  return {
    warnings,
    get id() {
      return current?.id ?? null;
    },
    // 'url' | 'host' | 'typed' | null
    get source() {
      return current?.source ?? null;
    },
    // Whether the student may type the id (not when the course page set it).
    get editable() {
      return !current || current.source === 'typed';
    },
    // What the student typed; throws a LearnerError (with .text {ja, en}).
    setTyped(value) {
      return set(value, 'typed');
    },
    // What the host page sent (the bridge has already checked its origin).
    setFromHost(value) {
      return set(value, 'host');
    },
    onChange(f) {
      listeners.add(f);
      return () => listeners.delete(f);
    },
  };
}

/**
 * The learner's variant of an exercise, from the core: {contentHash, seed, variant}.
 * `core` is the wasm PositionLab (core.variant) or the page's core client
 * (core.call('variant', …)); either way the core computes it.
 */
export async function variantFor(core, exercise, learner) {
  const id = normalizeLearner(learner);
  if (typeof core.variant === 'function') return core.variant({ exercise, learner: id });
  return core.call('variant', { exercise, learner: id });
}
