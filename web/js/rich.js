// Exercise text to HTML: paragraphs (blank lines), **bold**, `code`, inline
// $…$ and display $$…$$ math typeset by KaTeX. Everything else is escaped, so
// exercise files cannot inject markup.
//
// KaTeX (76 KiB gzip, more than a third of app.js) is not bundled: the page
// loads dist/katex/katex.min.js once the start page is up (loadKatex), so the
// first screen waits only for the page and the core. Until it has arrived,
// tex() writes the formula's plain reading in a .tex-pending span, and every
// such span is typeset in place when KaTeX is there (also spans inserted
// later from strings made before).
let katex = globalThis.katex ?? null;

export function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

// htmlClass: allow \htmlClass{…}{…} (KaTeX's `trust`), only for the lab's
// own fixed formulas (widgets/algebra.js), never for exercise text.
export function tex(source, display = false, { htmlClass = false } = {}) {
  const trust = htmlClass ? (c) => c.command === '\\htmlClass' : false;
  if (katex) return katex.renderToString(source, { displayMode: display, throwOnError: false, output: 'htmlAndMathml', strict: 'ignore', trust });
  return `<span class="tex-pending" data-tex="${escapeHtml(source)}" data-display="${display ? 1 : 0}"${htmlClass ? ' data-html-class="1"' : ''}>${escapeHtml(texToText(source))}</span>`;
}

function typesetPending(scope) {
  for (const el of scope.querySelectorAll('.tex-pending')) el.outerHTML = tex(el.dataset.tex, el.dataset.display === '1', { htmlClass: el.dataset.htmlClass === '1' });
}

let loading = null;
// Loads KaTeX's script and style sheet from the page's own folder (same
// origin; file:// too, as classic scripts are). Resolves when every pending
// formula is typeset; rejects if the script cannot load (the plain readings
// stay, so the page is still usable).
export function loadKatex(doc = document) {
  if (katex) return Promise.resolve();
  loading ??= new Promise((resolve, reject) => {
    const css = doc.createElement('link');
    css.rel = 'stylesheet';
    css.href = 'katex/katex.min.css';
    const script = doc.createElement('script');
    script.src = 'katex/katex.min.js';
    script.onload = () => {
      katex = globalThis.katex ?? null;
      if (!katex) return reject(new Error('katex/katex.min.js did not define katex'));
      typesetPending(doc);
      new MutationObserver((records) => {
        // Most changes add no formula (a widget redrawn in place): one look at the page, not one per node.
        if (!doc.querySelector('.tex-pending')) return;
        for (const r of records) for (const n of r.addedNodes) if (n.nodeType === 1) (n.matches('.tex-pending') ? typesetPending(n.parentNode ?? doc) : typesetPending(n));
      }).observe(doc.body, { childList: true, subtree: true });
      resolve();
    };
    script.onerror = () => {
      loading = null;
      reject(new Error('katex/katex.min.js could not be loaded'));
    };
    doc.head.append(css, script);
  });
  return loading;
}

// An opening bracket just before inline math, and closing punctuation just
// after it, stay on the math's line: "($k$ is …)" never breaks after "(".
const OPENERS = /[(\[（「『]+$/;
const CLOSERS = /^[)\]）」』.,;:!?、。，．：；]+/;

function inline(text) {
  const parts = [];
  // Split out math first so that * and ` inside TeX are left alone.
  const re = /\$\$([\s\S]+?)\$\$|\$([^$]+?)\$/g;
  let last = 0;
  let carry = ''; // closing punctuation already glued to the math before it
  let m;
  while ((m = re.exec(text))) {
    let before = text.slice(last, m.index);
    if (carry) before = before.slice(carry.length);
    carry = '';
    last = re.lastIndex;
    if (m[1] !== undefined) {
      parts.push(formatPlain(before), tex(m[1], true));
      continue;
    }
    const open = before.match(OPENERS)?.[0] ?? '';
    // Only text up to the next math can close this one.
    const next = re.lastIndex < text.length ? text.slice(re.lastIndex).match(CLOSERS)?.[0] ?? '' : '';
    carry = next;
    const math = tex(m[2], false);
    parts.push(formatPlain(before.slice(0, before.length - open.length)));
    parts.push(open || next ? `<span class="nobr">${escapeHtml(open)}${math}${escapeHtml(next)}</span>` : math);
  }
  parts.push(formatPlain(carry ? text.slice(last).slice(carry.length) : text.slice(last)));
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
    .map((p) => {
      const lines = p.trim().split('\n');
      // A paragraph whose every line starts with "- " is a list (exercise 12's note on MicroPython).
      if (lines.length > 0 && lines.every((l) => /^\s*- /.test(l))) return `<ul>${lines.map((l) => `<li>${inline(l.replace(/^\s*- /, '').trim())}</li>`).join('')}</ul>`;
      return `<p>${inline(p.trim())}</p>`;
    })
    .join('');
}

// A plain-text reading of TeX (x_k → xₖ, \frac{a}{b} → a/b, \sqrt{d_k} →
// √dₖ, Q K^\top → Q Kᵀ, \cdot → ·): for aria-label (screen readers do not
// all read KaTeX's MathML), for places that show text rather than typeset
// math (table headers, titles), and in place of a formula until KaTeX has
// loaded. Never shows TeX markup.
const SUB = { 0: '₀', 1: '₁', 2: '₂', 3: '₃', 4: '₄', 5: '₅', 6: '₆', 7: '₇', 8: '₈', 9: '₉', '+': '₊', '-': '₋', '=': '₌', '(': '₍', ')': '₎', a: 'ₐ', e: 'ₑ', h: 'ₕ', i: 'ᵢ', j: 'ⱼ', k: 'ₖ', l: 'ₗ', m: 'ₘ', n: 'ₙ', o: 'ₒ', p: 'ₚ', r: 'ᵣ', s: 'ₛ', t: 'ₜ', u: 'ᵤ', v: 'ᵥ', x: 'ₓ' };
const SUP = { 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹', '+': '⁺', '-': '⁻', '−': '⁻', '=': '⁼', '(': '⁽', ')': '⁾', T: 'ᵀ', i: 'ⁱ', n: 'ⁿ', k: 'ᵏ', d: 'ᵈ' };
const SYMBOLS = {
  cdot: '·', times: '×', to: '→', top: 'ᵀ', dots: '…', cdots: '⋯', ldots: '…', approx: '≈', le: '≤', leq: '≤', ge: '≥', geq: '≥',
  ne: '≠', neq: '≠', in: '∈', infty: '∞', sum: 'Σ', prod: 'Π', pi: 'π', theta: 'θ', lambda: 'λ', alpha: 'α', beta: 'β', gamma: 'γ',
  delta: 'δ', mu: 'μ', sigma: 'σ', phi: 'φ', langle: '⟨', rangle: '⟩', lvert: '|', rvert: '|', vert: '|', quad: ' ', qquad: ' ',
  S: '§', left: '', right: '', big: '', Big: '', bigl: '', bigr: '', ',': ' ', ';': ' ', ':': ' ', '!': '', ' ': ' ', '{': '{', '}': '}',
};
const GROUP = '\\{([^{}]*)\\}';
const simple = (a) => /^[\p{L}\p{N}.·√ᵀ₀-₎ₐ-ₜᵢ-ᵥⱼ⁰-⁾ⁱⁿᵏᵈ]*$/u.test(a);
const wrap = (a) => (simple(a) ? a : `(${a})`);
const script = (map, hat) => (s) => {
  if ([...s].every((c) => c in map)) return [...s].map((c) => map[c]).join('');
  return /^\(.*\)$|^\w$/.test(s) ? `${hat}${s}` : `${hat}(${s})`;
};

export function texToText(source) {
  let s = String(source)
    .replace(/\\(begin|end)\{[^{}]*\}|\\htmlClass\{[^{}]*\}/g, '')
    .replace(/\\(mathrm|text|mathbb|mathbf|boldsymbol|operatorname|underbrace)\s*(?=\{)/g, '\\$1');
  let before;
  do {
    before = s;
    s = s
      .replace(new RegExp(`\\\\(?:mathrm|text|mathbb|mathbf|boldsymbol|operatorname|underbrace)${GROUP}`, 'g'), '$1')
      .replace(/_\{([^{}]*)\}|_(\w)/g, (m, a, b) => script(SUB, '_')(a ?? b))
      .replace(/\^\s*\\top\b|\^\{\s*\\top\s*\}/g, 'ᵀ')
      .replace(/\^\{([^{}]*)\}|\^(\w)/g, (m, a, b) => script(SUP, '^')(a ?? b))
      .replace(new RegExp(`\\\\frac${GROUP}${GROUP}`, 'g'), (m, a, b) => `${wrap(a)}/${wrap(b)}`)
      .replace(new RegExp(`\\\\sqrt${GROUP}`, 'g'), (m, a) => `√${wrap(a)}`)
      // A bare group (not an argument of \frac and the like) is just its content.
      .replace(/(?<!\\[a-zA-Z]+\s*|[}^_]\s*)\{([^{}]*)\}/g, '$1');
  } while (s !== before);
  return s
    .replace(/\\\\/g, ' ')
    .replace(/\\([a-zA-Z]+|.)/g, (m, c) => SYMBOLS[c] ?? c)
    .replace(/[{}&]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

// Kept for callers that name the Unicode reading: the same reading.
export const texToUnicode = texToText;

// Exercise text as plain text (math read by texToText), for aria-label.
export function richToText(text) {
  return String(text)
    .replace(/\$\$([\s\S]+?)\$\$|\$([^$]+?)\$/g, (m, a, b) => texToText(a ?? b))
    .replace(/\*\*|`/g, '');
}
