// Exercise text to HTML: paragraphs (blank lines), **bold**, `code`, inline
// $…$ and display $$…$$ math typeset by KaTeX. Everything else is escaped, so
// exercise files cannot inject markup.
import katex from 'katex';

export function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

export function tex(source, display = false) {
  return katex.renderToString(source, { displayMode: display, throwOnError: false, output: 'htmlAndMathml', strict: 'ignore' });
}

function inline(text) {
  const parts = [];
  // Split out math first so that * and ` inside TeX are left alone.
  const re = /\$\$([\s\S]+?)\$\$|\$([^$]+?)\$/g;
  let last = 0;
  let m;
  while ((m = re.exec(text))) {
    parts.push(formatPlain(text.slice(last, m.index)));
    parts.push(m[1] !== undefined ? tex(m[1], true) : tex(m[2], false));
    last = re.lastIndex;
  }
  parts.push(formatPlain(text.slice(last)));
  return parts.join('');
}

function formatPlain(s) {
  return escapeHtml(s)
    .replace(/\*\*(.+?)\*\*/g, '<strong>$1</strong>')
    .replace(/`([^`]+)`/g, '<code>$1</code>');
}

export function richInline(text) {
  return inline(text);
}

export function richBlock(text) {
  return String(text)
    .split(/\n\s*\n/)
    .map((p) => `<p>${inline(p.trim())}</p>`)
    .join('');
}

// A plain-text reading of a short TeX label, for aria-label (screen readers
// do not all read KaTeX's MathML).
export function texToText(source) {
  return String(source)
    .replace(/\\sqrt\{([^}]*)\}/g, '√$1')
    .replace(/\\cdot/g, '·')
    .replace(/\\to/g, '→')
    .replace(/\\max/g, 'max')
    .replace(/\\lvert|\\rvert/g, '|')
    .replace(/\\[a-zA-Z]+/g, '')
    .replace(/[{}]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

// A short TeX label (x_1, x_{12}, m_h) as plain Unicode text (x₁, x₁₂, mₕ),
// for places that show text, not typeset math: table headers, titles.
const SUB = { 0: '₀', 1: '₁', 2: '₂', 3: '₃', 4: '₄', 5: '₅', 6: '₆', 7: '₇', 8: '₈', 9: '₉', '+': '₊', '-': '₋', '=': '₌', '(': '₍', ')': '₎', a: 'ₐ', e: 'ₑ', h: 'ₕ', i: 'ᵢ', j: 'ⱼ', k: 'ₖ', l: 'ₗ', m: 'ₘ', n: 'ₙ', o: 'ₒ', p: 'ₚ', r: 'ᵣ', s: 'ₛ', t: 'ₜ', u: 'ᵤ', v: 'ᵥ', x: 'ₓ' };
export function texToUnicode(source) {
  const sub = (s) => ([...s].every((c) => c in SUB) ? [...s].map((c) => SUB[c]).join('') : `(${s})`);
  return texToText(String(source).replace(/_\{([^{}]*)\}|_(\w)/g, (m, a, b) => sub(a ?? b)));
}

// Exercise text as plain text (math read by texToText), for aria-label.
export function richToText(text) {
  return String(text)
    .replace(/\$\$([\s\S]+?)\$\$|\$([^$]+?)\$/g, (m, a, b) => texToText(a ?? b))
    .replace(/\*\*|`/g, '');
}
