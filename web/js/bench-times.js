/* global __BENCH_TIMES__ */
// How long the training runs took when `npm run bench` last measured them
// (bench/results/workers.json, put in by scripts/build-web.mjs at build time),
// so that the page's words about a run's length are a measurement, with its
// date, machine and load, never a promise. null when no bench result was
// there at build time: the page then says nothing about the time in advance
// (its progress line still estimates the time left from the run's own pace).
// Shape: { date, cpu, cpus, load, ex7: { workers, after_s, one_s }, ex9?: the same
// for exercise 9's Part 2 (two seeds) }.
export const benchTimes = typeof __BENCH_TIMES__ !== 'undefined' ? __BENCH_TIMES__ : null;
