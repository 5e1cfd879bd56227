#!/usr/bin/env node
// npm run mutate:js: StrykerJS (stryker.config.mjs) over web/js/grading/*.js
// and web/js/questions.js, then killed/total per file from the JSON report.
// Killed counts killed and timed-out mutants (a timeout is a test noticing);
// total leaves out mutants no test reaches ("no coverage" is reported apart,
// as it is a gap too) and ones that do not compile.
//   STRYKER_MUTATE=web/js/grading/learner.js npm run mutate:js
//   node scripts/mutate-js.mjs --report-only      re-print the last report
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const report = join(root, 'reports/mutation/mutation.json');
if (!process.argv.includes('--report-only')) {
  const r = spawnSync('nice', [join(root, 'node_modules/.bin/stryker'), 'run', 'stryker.config.mjs'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 2);
}
if (!existsSync(report)) { console.error('mutate:js: no report at reports/mutation/mutation.json'); process.exit(2); }
const { files } = JSON.parse(readFileSync(report, 'utf8'));
let worst = 100;
console.log('\nmutate:js: killed/total per file (no coverage: mutants no test reaches)');
for (const [file, { mutants }] of Object.entries(files).sort()) {
  const n = (s) => mutants.filter((m) => s.includes(m.status)).length;
  const killed = n(['Killed', 'Timeout']);
  const total = killed + n(['Survived', 'NoCoverage']);
  const pct = total ? (100 * killed) / total : 100;
  worst = Math.min(worst, pct);
  console.log(`  ${file.padEnd(36)} ${String(killed).padStart(4)}/${String(total).padEnd(4)} ${pct.toFixed(0).padStart(3)} %  (survived ${n(['Survived'])}, no coverage ${n(['NoCoverage'])})`);
}
process.exit(worst >= 90 ? 0 : 1);
