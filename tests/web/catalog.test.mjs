// The one catalog (web/i18n/ja.json, en.json): plurals read right for 1 and
// for n, and every key the page's JavaScript asks for exists in both languages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CATALOG, errorMessage, format, hasKey } from '../../web/js/catalog.js';
import { message } from '../../web/js/grading/strings.js';
import { lmsText } from '../../web/js/lms/strings.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('plurals: "1 of your picks is not right", "2 of your picks are not right"', () => {
  assert.equal(format('en', 'q.extra', { count: 1 }), '1 of your picks is not right.');
  assert.equal(format('en', 'q.extra', { count: 2 }), '2 of your picks are not right.');
  assert.equal(format('en', 'q.missed', { count: 1 }), 'One more option should be picked.');
  assert.equal(format('en', 'q.missed', { count: 3 }), '3 more options should be picked.');
  // Japanese has one form; the count is still written in.
  assert.equal(format('ja', 'q.extra', { count: 1 }), '選んだものの中に、正しくないものが 1 個あります。');
  assert.equal(format('ja', 'q.extra', { count: 2 }), '選んだものの中に、正しくないものが 2 個あります。');
});

test('{count} is written with Intl.NumberFormat; other numbers as they are', () => {
  assert.equal(format('en', 'q.extra', { count: 1024 }), '1,024 of your picks are not right.');
  assert.equal(message('grading.learner_too_long', 'en', { max: 4096, length: 5000 }), 'A learner id has at most 4096 characters (this one has 5000).');
});

test('the grading and LMS modules read the same catalog', () => {
  assert.equal(message('grading.reset_button', 'ja'), CATALOG.ja['grading.reset_button']);
  assert.equal(message('grading.reset_button', 'en'), CATALOG.en['grading.reset_button']);
  assert.equal(lmsText('lms.failed', 'en', { message: 'x' }), 'Could not talk to the LMS: x');
  // An unknown language falls back to Japanese; an unknown key shows itself.
  assert.equal(format('fr', 'grading.reset_button'), CATALOG.ja['grading.reset_button']);
  assert.equal(format('en', 'no.such.key'), 'no.such.key');
});

// Every literal key passed to t(), has(), message(), messages(), lmsText() or
// a `key: '…'` field in web/js and web/*.js.
function sourceFiles(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(m?js)$/.test(e.name)) out.push(p);
  }
  return out;
}
const CALL = /\b(?:t|has|message|messages|lmsText|format\(\s*\w+\s*,)\s*\(?\s*'([a-z][\w-]*(?:\.[\w-]+)+)'/g;

test('every key used in the JavaScript exists in both catalogs', () => {
  const files = [...sourceFiles(path.join(root, 'web/js')), path.join(root, 'web/embed.js')];
  const used = new Map();
  for (const file of files) {
    const src = fs.readFileSync(file, 'utf8');
    for (const m of src.matchAll(CALL)) used.set(m[1], path.relative(root, file));
  }
  assert.ok(used.size > 100, `found only ${used.size} keys: is the scan broken?`);
  for (const key of ['q.extra', 'grading.reset_button', 'lms.finish']) assert.ok(used.has(key), key);
  const missing = [];
  for (const [key, file] of used) {
    for (const lang of ['ja', 'en']) if (!hasKey(lang, key)) missing.push(`${lang}.json lacks ${key} (used in ${file})`);
  }
  assert.deepEqual(missing, []);
});

test('the catalogs have the same keys (plural forms aside)', () => {
  const base = (k) => k.replace(/_(zero|one|two|few|many|other)$/, '');
  const keys = (lang) => new Set(Object.keys(CATALOG[lang]).map(base));
  assert.deepEqual([...keys('ja')].filter((k) => !keys('en').has(k)), []);
  assert.deepEqual([...keys('en')].filter((k) => !keys('ja').has(k)), []);
});

// Every error code the core can throw to the page (cpp/src, cpp/bindings:
// InvalidArgument("code", …) / OutOfRange("code", …)) and the page's own
// codes have a message in both catalogs; the CLI's own codes (cpp/cli) never
// reach the page.
function cppCodes() {
  const codes = new Set();
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(cpp|hpp|h)$/.test(e.name)) {
        for (const m of fs.readFileSync(p, 'utf8').matchAll(/\b(?:InvalidArgument|OutOfRange)\s*\(\s*"([a-z_0-9]+)"/g)) codes.add(m[1]);
      }
    }
  };
  walk(path.join(root, 'cpp/src'));
  walk(path.join(root, 'cpp/bindings'));
  return codes;
}

test('every error code in the C++ core has a message in ja and en', () => {
  const codes = cppCodes();
  assert.ok(codes.size >= 40, `found only ${codes.size} codes: is the scan broken?`);
  for (const code of ['position_past_table', 'odd_width', 'too_many_tokens', 'unknown_scheme']) assert.ok(codes.has(code), code);
  for (const code of ['worker_failed', 'unknown_method', 'page_too_few_tokens']) codes.add(code); // the page's own
  const missing = [];
  for (const code of codes) for (const lang of ['ja', 'en']) if (!hasKey(lang, `err.${code}`) && !hasKey(lang, `err.${code}.plain`)) missing.push(`${lang}: err.${code}`);
  assert.deepEqual(missing, []);
});

test('errors render from code and params; a code whose params are missing uses its shorter form', () => {
  const past = { code: 'position_past_table', params: { position: '2047', max_positions: '1024', last_position: '1023' }, message: 'position 2047 has no row…' };
  assert.equal(errorMessage('ja', past), '位置 2047 に対応する行が学習型の表にありません。表は 1024 行（位置 0〜1023）で、学習時の長さを超えて延ばすことはできません。');
  assert.match(errorMessage('en', past), /^Position 2047 has no row in the learned table\./);
  // out_of_range_option: with value, without value, with neither min nor max.
  assert.equal(errorMessage('en', { code: 'out_of_range_option', params: { field: 'heads', min: '1', max: '64', value: '65' } }), 'Heads H must be from 1 to 64 (it is 65).');
  assert.equal(errorMessage('en', { code: 'out_of_range_option', params: { field: 'heads', min: '1', max: '64' } }), 'Heads H must be from 1 to 64.');
  assert.equal(errorMessage('ja', { code: 'out_of_range_option', params: { field: 'lr', value: '9', above: '0', max: '1' } }), 'lr の値（9）が使える範囲の外です。');
  assert.equal(errorMessage('ja', { code: 'odd_width', params: {} }), '幅を 2 以上の偶数にしてください（値は sin/cos や回転の組で 2 つずつ使います）。');
  // Unknown codes: null, so the page falls back to the core's English text.
  assert.equal(errorMessage('ja', { code: 'no_such_code', params: {} }), null);
  assert.equal(errorMessage('ja', { code: 'error', params: {} }), null);
  assert.equal(errorMessage('ja', new Error('x')), null);
});

// Wording found stiff or wrong by a native reader (issue 10) stays gone, and
// the two source articles are introduced on the start page before "ガイド" /
// "ブログ" are used elsewhere.
test('wording: the phrases a native reader flagged are gone; the guide and the blog are introduced', () => {
  const texts = [...Object.values(CATALOG.ja), ...Object.values(CATALOG.en)];
  for (const f of fs.readdirSync(path.join(root, 'exercises')).filter((n) => n.endsWith('.yaml'))) texts.push(fs.readFileSync(path.join(root, 'exercises', f), 'utf8'));
  const all = texts.join('\n');
  for (const bad of ['この実験室では', '並びのある列', '文献の予想', '未達成：', 'option(s)', 'Zero, to rounding', '1 of your picks are']) assert.ok(!all.includes(bad), bad);
  assert.match(CATALOG.ja['start.sources'], /「ガイド」/);
  assert.match(CATALOG.ja['start.sources'], /「ブログ」/);
  assert.match(CATALOG.en['start.sources'], /“the guide”/);
  assert.match(CATALOG.en['start.sources'], /“the blog”/);
  // Japanese text uses the full-width colon after Japanese words.
  const halfWidth = Object.entries(CATALOG.ja).filter(([k, v]) => !k.startsWith('grading.embed') && /[^\x00-\x7F]: /.test(v)).map(([k]) => k);
  assert.deepEqual(halfWidth, []);
});

test('English track: a reordering target uses the words of its exercise’s sentence (dog/cat first)', async () => {
  const { loadExercises } = await import('../../web/js/exercise-loader.mjs');
  const exercises = loadExercises(path.join(root, 'exercises'));
  const words = (s) => s.toLowerCase().replace(/[.]/g, '').split(/\s+/).filter(Boolean).sort().join(' ');
  let targets = 0;
  for (const ex of exercises) {
    for (const b of ex.blocks.filter((x) => x.type === 'tokens' && x.target)) {
      targets += 1;
      assert.equal(words(b.target.en), words(ex.lab.sentence.en), `${ex.id}: "${b.target.en}" reorders "${ex.lab.sentence.en}"`);
    }
  }
  assert.ok(targets >= 2);
  assert.equal(exercises.find((e) => e.id === 'reorder').lab.sentence.en, 'The dog chased the cat.');
});

test('other counted messages read right for 1 and for n', () => {
  assert.equal(format('en', 'q.wrong_some', { count: 1, n: 2 }), '1 of the 2 values is right. Look again at the ✗ fields.');
  assert.equal(format('en', 'q.wrong_some', { count: 2, n: 3 }), '2 of the 3 values are right. Look again at the ✗ fields.');
  assert.match(format('en', 'plot.aria', { caption: 'x', count: 1 }), /^Plot of x \(1 line\)\./);
  assert.match(format('en', 'plot.aria', { caption: 'x', count: 3 }), /^Plot of x \(3 lines\)\./);
  assert.equal(format('ja', 'q.wrong_some', { count: 1, n: 2 }), '2 個中 1 個が正しい値です。✗ の欄を見直しましょう。');
  // Messages with numbers that are not plural-aware are worded so that 1 reads right too.
  for (const key of ['grading.import_done', 'extrap.started', 'extrap.done', 'heatmap.aria']) assert.doesNotMatch(CATALOG.en[key], /\{\w+\} \w+s\b/, key);
});
