// web/js/rich.js texToText: the plain reading of a formula (aria-label, table
// headers, and the stand-in shown until KaTeX has loaded). Expected readings
// written by hand; none may keep TeX markup.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { texToText, tex } from '../../web/js/rich.js';

const RAW_TEX = /[A-Za-z0-9)]_[A-Za-z0-9{]|\^\{|\\[A-Za-z]+|[{}]/;

test('formulas of the exercises read as plain text', () => {
  const cases = [
    ['\\mathrm{softmax}\\!\\left(\\frac{QK^\\top}{\\sqrt{d_k}}\\right)V', 'softmax(QKᵀ/√dₖ)V'],
    ['Q = XW^Q', 'Q = XW^Q'],
    ['x_{12}', 'x₁₂'],
    ['m_h', 'mₕ'],
    ['\\theta_i = 10000^{-2i/d}', 'θᵢ = 10000^(-2i/d)'],
    ['PE_{(pos, 2i)} = \\sin(pos / 10000^{2i/d})', 'PE_(pos, 2i) = sin(pos / 10000^(2i/d))'],
    ['\\max\\lvert A \\rvert', 'max| A |'],
    ['\\langle R_{3} q,\\ R_{5} k \\rangle', '⟨ R₃ q, R₅ k ⟩'],
    ['a \\to b', 'a → b'],
    ['Q K^{\\top}', 'Q Kᵀ'],
    ['x^2 + y^{10}', 'x² + y¹⁰'],
    ['\\frac{1}{2^{8/n}}', '1/(2^(8/n))'],
    ['\\mathbb{R}^{n \\times d}', 'R^(n × d)'],
  ];
  for (const [source, reading] of cases) {
    assert.equal(texToText(source), reading, source);
    assert.doesNotMatch(texToText(source), RAW_TEX, source);
  }
});

test('before KaTeX has loaded, tex() writes the plain reading in a placeholder, escaped', () => {
  const html = tex('a < b_{i}', true);
  assert.match(html, /^<span class="tex-pending" data-tex="a &lt; b_\{i\}" data-display="1">a &lt; bᵢ<\/span>$/);
  assert.doesNotMatch(tex('"><script>x</script>'), /<script>/);
});

test('the lab\'s own \\htmlClass formula reads plainly and keeps its trust when typeset later', () => {
  assert.equal(texToText(String.raw`\htmlClass{alg-p}{P}\,QK^{\top}\htmlClass{alg-p}{P^{\top}}`), 'P QKᵀPᵀ');
  assert.match(tex(String.raw`\htmlClass{alg-p}{P}`, false, { htmlClass: true }), /data-html-class="1"/);
  assert.doesNotMatch(tex(String.raw`\htmlClass{alg-p}{P}`), /data-html-class/);
});

test('no page script imports KaTeX: it is loaded after the first screen (rich.js)', async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const dir = new URL('../../web/js/', import.meta.url).pathname;
  const offenders = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.m?js$/.test(e.name) && /from\s+['"]katex['"]|require\(['"]katex['"]\)/.test(readFileSync(p, 'utf8'))) offenders.push(p);
    }
  };
  walk(dir);
  assert.deepEqual(offenders, []);
});
