// StrykerJS over the JavaScript that grades and stores answers (npm run
// mutate:js, which prints killed/total per file from the JSON report).
// The tap runner runs each tests/web file with node; with perTest coverage
// only the test files that reach a mutant run for it.
//   STRYKER_MUTATE=web/js/grading/learner.js npm run mutate:js   one file (comma-separated list)
// scripts/grade-code.mjs is listed but off by default: helper work on it is
// in flight; STRYKER_MUTATE=scripts/grade-code.mjs runs it alone.
const all = ['web/js/grading/*.js', 'web/js/questions.js'];
const mutate = process.env.STRYKER_MUTATE ? process.env.STRYKER_MUTATE.split(',') : all;

export default {
  testRunner: 'tap',
  // STRYKER_TESTS: other test files (comma-separated globs), e.g. before the wasm build exists.
  tap: { testFiles: process.env.STRYKER_TESTS ? process.env.STRYKER_TESTS.split(',') : ['tests/web/*.test.mjs'] },
  mutate,
  // scripts/grade-code.mjs is tested as a child process, which per-test
  // coverage cannot see: with it in the list, every mutant runs every test file.
  coverageAnalysis: mutate.some((f) => f.includes('grade-code')) ? 'off' : 'perTest',
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  // The tests read build/wasm and web/ through paths relative to the repo.
  inPlace: true,
  concurrency: Number(process.env.STRYKER_CONCURRENCY ?? 1),
  timeoutMS: 30000,
  thresholds: { high: 90, low: 80, break: null },
  cleanTempDir: 'always',
};
