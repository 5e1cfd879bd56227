// Reads a hand-made mutant list (tests/mutants/*.txt, tests/mutants-js/*.txt):
// one mutant a line, FILE<TAB>ORIGINAL<TAB>REPLACEMENT; blank lines and lines
// starting with # are skipped. Shared by scripts/mutate.mjs (the C++ core) and
// scripts/mutate-js-list.mjs (scripts/grade-code.mjs).
import { readFileSync } from 'node:fs';

export function readMutantList(list) {
  return readFileSync(list, 'utf8')
    .split('\n')
    .map((line, i) => ({ line, at: i + 1 }))
    .filter(({ line }) => line.trim() && !line.startsWith('#'))
    .map(({ line, at }) => {
      const parts = line.split('\t');
      if (parts.length !== 3) throw new Error(`${list}:${at}: needs FILE<TAB>ORIGINAL<TAB>REPLACEMENT`);
      const [file, original, replacement] = parts;
      return { file, original, replacement, at };
    });
}
