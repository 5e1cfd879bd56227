// The docs check: README.md, docs/**/*.md and exercises/README.md link only
// to files and headings that exist, name only npm scripts that package.json
// has and poslab subcommands the CLI has, and their generated blocks are what
// scripts/render-docs.mjs renders from the committed run files and bench
// results (so measured figures cannot drift from their sources).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { docFiles, facts, renderAll, renderText, share } from '../../scripts/render-docs.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const files = docFiles(root);

// Files another branch adds (the docs link to them already). Remove an entry
// once its branch is merged: from then on a missing file fails as any other.
const ADDED_BY_OTHER_BRANCHES = new Set([]);
// npm scripts another branch adds to package.json (the docs name them already).
const SCRIPTS_ADDED_BY_OTHER_BRANCHES = new Set([]);

// Markdown without its fenced code blocks (links and headings there are text).
function withoutFences(text) {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

// A heading's anchor as GitHub makes it: inline markup dropped, lower case,
// punctuation removed (letters, digits, marks, _, - and spaces kept), spaces
// to hyphens; a repeated anchor gets -1, -2, …
export function anchors(text) {
  const seen = new Map();
  const out = new Set();
  for (const line of withoutFences(text).split('\n')) {
    const m = line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/);
    if (!m) continue;
    const plain = m[1].replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const base = plain.toLowerCase().replace(/[^\p{L}\p{M}\p{N}_\- ]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  for (const m of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) out.add(m[1]);
  return out;
}

function links(text) {
  const prose = withoutFences(text).replace(/`[^`\n]*`/g, '');
  const out = [];
  for (const m of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) out.push(m[1]);
  for (const m of prose.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)) out.push(m[1]);
  return out;
}

test('anchors are made as a repository host makes them', () => {
  // Expected anchors worked out by hand from GitHub's rule.
  const a = anchors('# What `poslab` accepts in a file\n## Look back 4 with a smaller base (100)\n## Notes\n## Notes\n```\n# not a heading\n```\n### 問 1：説明\n');
  assert.deepEqual([...a].sort(), ['look-back-4-with-a-smaller-base-100', 'notes', 'notes-1', 'what-poslab-accepts-in-a-file', '問-1説明'].sort());
});

test('every relative link in the docs points to a file that exists, and to a heading of it', () => {
  const problems = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const target of links(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      const [path, anchor] = target.split('#');
      const resolved = path ? normalize(join(dirname(file), decodeURIComponent(path))) : file;
      if (resolved.startsWith('..')) {
        problems.push(`${file}: ${target} leaves the repository`);
        continue;
      }
      if (!existsSync(join(root, resolved))) {
        if (!ADDED_BY_OTHER_BRANCHES.has(resolved)) problems.push(`${file}: ${target}: no file ${resolved}`);
        continue;
      }
      if (anchor !== undefined && anchor !== '') {
        if (statSync(join(root, resolved)).isDirectory() || !resolved.endsWith('.md')) {
          problems.push(`${file}: ${target}: an anchor into a file that is not Markdown`);
          continue;
        }
        const heads = anchors(readFileSync(join(root, resolved), 'utf8'));
        if (!heads.has(decodeURIComponent(anchor))) problems.push(`${file}: ${target}: ${resolved} has no heading #${anchor}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

test('the link check sees a broken link and a broken anchor (it could fail)', () => {
  assert.deepEqual(links('[a](x.md) ![b](img.png "t") `[c](not-a-link.md)`\n```\n[d](no.md)\n```\n[e]: ref.md'), ['x.md', 'img.png', 'ref.md']);
  assert.ok(!anchors(readFileSync(join(root, 'docs/README.md'), 'utf8')).has('no-such-heading'));
});

test('every `npm run X` (and npm start / npm test) named in the docs is a script of package.json', () => {
  const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts;
  const named = new Set();
  const missing = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(/\bnpm (?:run ([a-z][\w:-]*)|(start|test)\b)/g)) {
      const name = m[1] ?? m[2];
      named.add(name);
      if (!(name in scripts) && !SCRIPTS_ADDED_BY_OTHER_BRANCHES.has(name)) missing.push(`${file}: npm run ${name}`);
    }
  }
  assert.deepEqual(missing, [], `package.json scripts: ${Object.keys(scripts).join(', ')}`);
  assert.ok(named.has('start') && named.has('test'), 'the README names the two commands');
});

// The subcommands the CLI dispatches, read from its own "unknown command" message.
function subcommands() {
  const src = readFileSync(join(root, 'cpp/cli/main.cpp'), 'utf8');
  const m = src.match(/commands: ([^;(]*?)\s*\(poslab --help\)/s);
  assert.ok(m, 'cpp/cli/main.cpp lists its commands in the unknown-command message');
  const list = m[1].replace(/"\s*"/g, '').split(',').map((s) => s.trim()).filter(Boolean);
  for (const c of list) assert.match(src, new RegExp(`cmd == "${c}"`), `main.cpp dispatches ${c}`);
  return new Set(list);
}

test('every `poslab SUBCOMMAND` named in the docs is a subcommand of the CLI', () => {
  const known = subcommands();
  assert.ok(known.has('grade') && known.has('extend') && !known.has('gradee'));
  const missing = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(/(?<![\w./-])poslab ([a-z][a-z-]*)/g))
      if (!known.has(m[1])) missing.push(`${file}: poslab ${m[1]}`);
  }
  assert.deepEqual(missing, [], `subcommands: ${[...known].join(', ')}`);
});

test('the generated blocks in the docs equal what render-docs renders from the committed files', () => {
  const stale = renderAll(root).filter((d) => d.text !== d.rendered).map((d) => d.file);
  assert.deepEqual(stale, [], 'run node scripts/render-docs.mjs and commit the result');
});

test('a generated block that was edited by hand is found', () => {
  const file = 'docs/experiments/page-run.md';
  const text = readFileSync(join(root, file), 'utf8');
  const edited = text.replace(/(<!-- generated:page-run -->\n)/, '$1Hand-typed: NTK-aware solves every n.\n');
  assert.notEqual(edited, text);
  assert.notEqual(renderText(edited, file, root), edited);
  assert.equal(renderText(edited, file, root), renderText(text, file, root));
});

test('shares are never rounded onto 0 or 1', () => {
  assert.equal(share(1), '1');
  assert.equal(share(0), '0');
  assert.equal(share(0.9974), '0.997');
  assert.equal(share(0.99996), '> 0.999');
  assert.equal(share(0.004), '0.004');
  assert.equal(share(0.5), '0.50');
});

// A run shaped as poslab extend prints it: per seed, per method, the largest n
// solved (zero-shot and fine-tuned). The sentences below were worked out by hand.
function fakeRun(solved) {
  return {
    options: { trainMax: 8, testMax: 32, finetuneSteps: 30 },
    runs: Object.entries(solved).map(([seed, byMethod]) => ({
      seed: Number(seed),
      curves: Object.entries(byMethod).flatMap(([method, [zero, tuned]]) => [
        { method, finetuned: false, solvedUpTo: zero, meanExtrapolated: 0.5 },
        { method, finetuned: true, solvedUpTo: tuned, meanExtrapolated: 0.5 },
      ]),
    })),
  };
}

test('a comparing sentence says "in every seed" only when every seed says so', () => {
  // The README's old contradiction: NTK-aware furthest in seeds 1 and 2, YaRN (21 > 20) in seed 3.
  const run = fakeRun({ 1: { ntk: [16, 32], yarn: [3, 14] }, 2: { ntk: [18, 32], yarn: [6, 32] }, 3: { ntk: [20, 32], yarn: [21, 32] } });
  const zero = facts(run, false);
  assert.equal(zero[0], 'No method reaches furthest without fine-tuning in every seed (seed 1: NTK-aware (n = 16); seed 2: NTK-aware (n = 18); seed 3: YaRN (rescaled edges) (n = 21)); NTK-aware in 2 of 3.');
  assert.equal(zero[1], 'No method solves every n ≤ 32 without fine-tuning in every seed.');
  // After the fine-tune every seed's best solves every n: only the second sentence is said.
  assert.deepEqual(facts(run, true), ['NTK-aware solves every n ≤ 32 after 30 fine-tune steps in every seed; YaRN (rescaled edges) in seeds 2 and 3 only.']);
  // One method furthest in every seed, tied in one.
  const tied = facts(fakeRun({ 1: { ntk: [16, 32], none: [10, 32] }, 2: { ntk: [18, 32], none: [18, 32] } }), false);
  assert.equal(tied[0], 'NTK-aware reaches furthest without fine-tuning in every seed (tied in some): seed 1: NTK-aware (n = 16); seed 2: NTK-aware and plain RoPE (none) (n = 18).'); // methods in the run's order
  // When one seed stops short (27 of 32), "every n in every seed" must not be said.
  const short = facts(fakeRun({ 1: { ntk: [32, 32] }, 2: { ntk: [32, 32] }, 3: { ntk: [27, 32] } }), false);
  assert.equal(short[1], 'No method solves every n ≤ 32 without fine-tuning in every seed; NTK-aware in seeds 1 and 2 only.');
});
