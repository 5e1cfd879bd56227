// web/js/extent.js: ranges of data-sized arrays by a loop. Math.min(...xs)
// throws "Maximum call stack size exceeded" on arrays this large; extent does
// not, and it skips non-finite values (so a plot's range is never NaN).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extent, minOf, maxOf, maxAbs } from '../../web/js/extent.js';

test('2^24 values (a 4096 × 4096 table): the spread throws, the loop gives the range', () => {
  const n = 1 << 24;
  const xs = new Float32Array(n);
  for (let i = 0; i < n; i++) xs[i] = Math.sin(i) * (i % 1000);
  xs[123457] = -5000;
  xs[n - 1] = 7000;
  assert.throws(() => Math.min(...xs), RangeError);
  const e = extent(xs);
  assert.equal(e.min, -5000);
  assert.equal(e.max, 7000);
  assert.equal(e.finite, n);
  assert.equal(maxAbs(xs), 7000);
});

test('non-finite values are skipped and counted; none finite gives NaN that the caller must handle', () => {
  assert.deepEqual(extent([1, NaN, -Infinity, 3, Infinity, -2]), { min: -2, max: 3, finite: 3, skipped: 3 });
  const none = extent([NaN, Infinity]);
  assert.equal(none.finite, 0);
  assert.ok(Number.isNaN(none.min) && Number.isNaN(none.max));
  assert.equal(minOf([NaN], -1), -1);
  assert.equal(maxOf([], 9), 9);
  assert.equal(minOf([4, 2, 8]), 2);
  assert.equal(maxOf([4, 2, 8]), 8);
  assert.equal(maxAbs([-3.4e38, 1e38, NaN, -Infinity]), 3.4e38);
  assert.equal(maxAbs([]), 0);
});
