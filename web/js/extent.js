// Smallest / largest of a data-sized array without spreading it into a call:
// Math.min(...xs) passes every element as an argument and throws "Maximum
// call stack size exceeded" past about 10⁵ elements (a 65,536-row table's
// norms, a 200,000-tensor header). Non-finite values are skipped (and
// counted), so a plot's range is never NaN; an array with no finite value
// gives { min: NaN, max: NaN, finite: 0 }, which the caller must handle.
export function extent(values) {
  let min = Infinity;
  let max = -Infinity;
  let finite = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!Number.isFinite(v)) continue;
    finite++;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return finite ? { min, max, finite, skipped: values.length - finite } : { min: NaN, max: NaN, finite: 0, skipped: values.length };
}

export function minOf(values, fallback = NaN) {
  const e = extent(values);
  return e.finite ? e.min : fallback;
}

export function maxOf(values, fallback = NaN) {
  const e = extent(values);
  return e.finite ? e.max : fallback;
}

// Largest |v| over finite values (0 for none).
export function maxAbs(values) {
  let m = 0;
  for (let i = 0; i < values.length; i++) {
    const a = Math.abs(values[i]);
    if (Number.isFinite(a) && a > m) m = a;
  }
  return m;
}
