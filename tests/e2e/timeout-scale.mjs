// Loaded with `node --import` by scripts/stress-e2e.sh (and by anyone on a
// slow or busy machine): POSLAB_TIMEOUT_SCALE=k multiplies every test's own
// `timeout` (node:test) by k, and helpers.mjs multiplies its waits and the
// Playwright default timeout of the pages it opens by k. A timeout is a bound
// for a test that hangs, not a check of speed: under stress-ng a starved test
// that would pass given the time is not the race the stress run hunts.
import { createRequire, syncBuiltinESMExports } from 'node:module';

const raw = process.env.POSLAB_TIMEOUT_SCALE ?? '1';
const scale = Number(raw);
if (!Number.isFinite(scale) || scale < 1 || scale > 20) {
  throw new Error(`POSLAB_TIMEOUT_SCALE must be a number from 1 to 20, got '${raw}'`);
}
if (scale !== 1) {
  const require = createRequire(import.meta.url);
  const nt = require('node:test');
  const original = nt.test;
  const scaled = function (name, options, fn) {
    if (options && typeof options === 'object' && typeof options.timeout === 'number') options = { ...options, timeout: options.timeout * scale };
    return original.call(this, name, options, fn);
  };
  Object.assign(scaled, original);
  nt.test = scaled;
  syncBuiltinESMExports();
}
