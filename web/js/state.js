// The page state in the URL, as TensorFlow Playground does: the exercise and
// the lab's settings live in the hash (#ex=reorder&pe=sinusoidal&d=16&seed=3
// &s=…&order=1,0,2), the language in ?lang=en or the hash. hide=header,nav,
// pe,… trims the page for embedding in a course page (header, path, pager,
// footer, or any lab control by name). Only values that
// differ from the exercise's defaults are written, so links stay short.

const NUMBER_KEYS = ['d', 'seed', 'heads', 'pos', 'm', 'n', 'k', 'pair'];
// Kept as typed, so that the widget can say what is wrong with a bad value
// (the training widget's schemes=learned,none&seeds=1,2&steps=100; workers=2 fixes
// how many Web Workers train, for tests and the bench; kernels=reference trains
// with the core's plain loops, the bench's "before").
const TEXT_KEYS = ['schemes', 'seeds', 'steps', 'workers', 'kernels'];

export function readState(loc = window.location) {
  const state = {};
  const query = new URLSearchParams(loc.search);
  const hash = new URLSearchParams(loc.hash.replace(/^#/, ''));
  for (const params of [query, hash]) {
    for (const [key, value] of params) {
      if (key === 'ex' || key === 'lang' || key === 's' || key === 'pe' || key === 'combine') state[key] = value;
      else if (key === 'exercise') state.ex = value;  // the embedding form: index.html?exercise=ID&embed=1
      else if (key === 'embed') state.embed = value === '1' || value === 'true';
      else if (key === 'present') state.present = value === '1' || value === 'true';  // presenter mode (presenter.js)
      else if (TEXT_KEYS.includes(key)) state[key] = value;
      else if (key === 'mask') state.mask = value === '1' || value === 'true';
      else if (key === 'hide') state.hide = value.split(',').filter(Boolean);
      else if (key === 'order') state.order = value.split(',').filter((x) => x !== '').map(Number);
      else if (NUMBER_KEYS.includes(key)) {
        const n = Number(value);
        if (Number.isFinite(n)) state[key] = n;
      }
    }
  }
  return state;
}

export function hashOf(state) {
  const params = new URLSearchParams();
  if (state.ex) params.set('ex', state.ex);
  if (state.lang && state.lang !== 'ja') params.set('lang', state.lang);
  if (state.s !== undefined) params.set('s', state.s);
  for (const key of ['pe', 'combine']) if (state[key] !== undefined) params.set(key, state[key]);
  if (state.mask !== undefined) params.set('mask', state.mask ? '1' : '0');
  for (const key of NUMBER_KEYS) if (state[key] !== undefined) params.set(key, String(state[key]));
  for (const key of TEXT_KEYS) if (state[key] !== undefined) params.set(key, state[key]);
  if (state.order && state.order.length) params.set('order', state.order.join(','));
  if (state.hide && state.hide.length) params.set('hide', state.hide.join(','));
  const s = params.toString();
  return s ? `#${s}` : '';
}

export function writeState(state) {
  const hash = hashOf(state);
  // ?lang= is read once on load; the hash carries it from then on.
  const query = new URLSearchParams(window.location.search);
  query.delete('lang');
  const search = query.toString() ? `?${query}` : '';
  const url = window.location.pathname + search + hash;
  try {
    history.replaceState(null, '', url || '#');
  } catch {
    window.location.hash = hash;
  }
}

export function shareLink(state) {
  const base = window.location.href.split('#')[0].split('?')[0];
  return base + hashOf(state);
}
