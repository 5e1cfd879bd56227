// Issue 22: every paper the lab cites in its exercise files (and page strings)
// is in docs/claims.md, with what it found and what the lab measured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { citations, missingFrom } from '../../web/js/citations.mjs';

const root = join(import.meta.dirname, '..', '..');

test('citations are found in the ways the lab writes them', () => {
  const c = citations('Press, Smith & Lewis (2022, the ALiBi paper); Kazemnejad ら（2023、「…」）; Haviv et al. 2022; Chen et al. (2023) extended; bloc97\'s NTK-aware scaling (2023); YaRN (Peng et al. 2023, arXiv:2309.00071)');
  assert.deepEqual(c.papers.map((p) => `${p.author} ${p.year}`).sort(), ['Chen 2023', 'Haviv 2022', 'Kazemnejad 2023', 'Peng 2023', 'Press 2022', 'bloc97 2023']);
  assert.deepEqual(c.arxiv, ['2309.00071']);
  // A list without them reports each; a line naming author and year covers one.
  assert.deepEqual(missingFrom('| Haviv 2022 | …\n| Peng | 2023 |', citations('Haviv et al. 2022; Nobody et al. (2031); see arXiv:2401.00001')), ['Nobody 2031', 'arXiv:2401.00001']);
});

test('every paper cited in exercises/*.yaml and web/i18n is listed in docs/claims.md', (t) => {
  const files = readdirSync(join(root, 'exercises')).filter((f) => f.endsWith('.yaml')).map((f) => join(root, 'exercises', f));
  files.push(join(root, 'web/i18n/ja.json'), join(root, 'web/i18n/en.json'));
  const text = files.map((f) => readFileSync(f, 'utf8')).join('\n');
  const cited = citations(text);
  t.diagnostic(`cited: ${cited.papers.map((p) => `${p.author} ${p.year}`).join(', ')}; ${cited.arxiv.map((a) => `arXiv:${a}`).join(', ')}`);
  assert.ok(cited.papers.length >= 6, `found only ${cited.papers.length} citations; the extraction is broken`);
  const claims = readFileSync(join(root, 'docs/claims.md'), 'utf8');
  assert.deepEqual(missingFrom(claims, cited), [], 'cited in the lab but not in docs/claims.md');
});
