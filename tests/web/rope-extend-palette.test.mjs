// Exercise 9's angle map draws an angle mod 2π, so its palette must be
// cyclic: 0 and 2π one colour, neighbours across 0 neighbouring colours.
// Values worked out by hand from the sinebow formula
// (r, g, b) = 255·sin²(π(½ − u) + k·π/3), k = 0, 1, 2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sinebow } from '../../web/js/widgets/rope-extend.js';

const dist = (a, b) => Math.hypot(...a.rgb.map((v, i) => v - b.rgb[i]));

test('sinebow by hand: u = 0 is (255, 64, 64), u = ½ is (0, 191, 191)', () => {
  // u = 0: sin²(π/2) = 1, sin²(5π/6) = sin²(7π/6) = ¼ → 255, 63.75, 63.75.
  assert.deepEqual(sinebow(0).rgb, [255, 64, 64]);
  // u = ½: sin²(0) = 0, sin²(π/3) = sin²(2π/3) = ¾ → 0, 191.25, 191.25.
  assert.deepEqual(sinebow(0.5).rgb, [0, 191, 191]);
  assert.equal(sinebow(0).css, 'rgb(255,64,64)');
});

test('cyclic: u and u + 1 have one colour; angles just either side of 0 = 2π look alike', () => {
  for (const u of [0, 0.1, 0.25, 0.7, 0.999]) assert.deepEqual(sinebow(u + 1).rgb, sinebow(u).rgb, String(u));
  assert.deepEqual(sinebow(1).rgb, sinebow(0).rgb);
  // 0.5° either side of 0: as close as 0.5° either side of 180°, far closer than 0 and π.
  const across0 = dist(sinebow(-1 / 720), sinebow(1 / 720));
  const across180 = dist(sinebow(0.5 - 1 / 720), sinebow(0.5 + 1 / 720));
  assert.ok(across0 < 10, `${across0}`);
  assert.ok(Math.abs(across0 - across180) < 5);
  assert.ok(dist(sinebow(0), sinebow(0.5)) > 200);
  // Every step of 1/360 turn changes the colour by a little, all the way round (no seam).
  for (let k = 0; k < 360; k++) assert.ok(dist(sinebow(k / 360), sinebow((k + 1) / 360)) < 12, String(k));
});
