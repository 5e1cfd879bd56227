// Text crosses from JS (UTF-16) into the C++ core (UTF-8). A lone surrogate
// has no UTF-8 form: it must be refused with 'invalid_text' naming where it
// is, never turned into another character (Emscripten's encoder pairs a lone
// high surrogate with whatever follows, so 'a\uD800b' became one astral
// character and the 'b' was gone).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadLab } from './helpers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
let lab;
let exercise;
before(async () => {
  lab = await loadLab();
  // Any exercise the core accepts: the built site keeps them as JSON.
  const all = JSON.parse(readFileSync(join(root, 'dist', 'exercises.json'), 'utf8'));
  const { file, ...data } = all.find((e) => e.id === 'hand-calc');
  exercise = data;
});

function refused(f) {
  try {
    f();
  } catch (e) {
    return e;
  }
  assert.fail('expected an invalid_text error, got a result');
}

test('tokenize refuses a lone high surrogate and a lone low one, naming the position', () => {
  const high = refused(() => lab.tokenize('a\uD800b'));
  assert.equal(high.code, 'invalid_text');
  assert.equal(high.params.position, '1');
  assert.equal(high.params.character, '2');
  assert.equal(high.params.codeUnit, 'U+D800');
  assert.match(high.message, /lone surrogate \(U\+D800\) at position 1/);
  // At the very end, and a low one with nothing before it.
  assert.equal(refused(() => lab.tokenize('犬が\uDBFF')).params.position, '2');
  const low = refused(() => lab.tokenize('\uDC00猫'));
  assert.equal(low.params.position, '0');
  assert.equal(low.params.codeUnit, 'U+DC00');
  // A low surrogate after a whole pair: 🐶 is \uD83D\uDC36 (code units 0, 1), the lone one is unit 2, character 2.
  const after = refused(() => lab.tokenize('🐶\uDC36'));
  assert.equal(after.params.position, '2');
  assert.equal(after.params.character, '2');
  // Two high ones in a row: the first is already lone.
  assert.equal(refused(() => lab.tokenize('x\uD83D\uD83D\uDC36')).params.position, '1');
});

test('whole surrogate pairs still pass: 🐶 stays one token, nothing is dropped', () => {
  const tokens = lab.tokenize('🐶 ran');
  assert.ok(tokens.includes('🐶'), JSON.stringify(tokens));
  assert.ok(tokens.includes('ran'), JSON.stringify(tokens));
});

test('options objects: the path of the string is named (text, nested arrays, keys, the JSON-based grading calls)', () => {
  const e1 = refused(() => lab.forward({ text: '犬が\uD800猫' }));
  assert.equal(e1.code, 'invalid_text');
  assert.equal(e1.params.path, 'text');
  assert.equal(e1.params.position, '2');
  const e2 = refused(() => lab.forward({ tokens: ['犬', 'が', '\uDFFF'] }));
  assert.equal(e2.params.path, 'tokens[2]');
  const e3 = refused(() => lab.forward({ text: '犬', ['pe\uD800']: 'none' }));
  assert.equal(e3.code, 'invalid_text');
  assert.match(e3.params.path, /the key "pe\uFFFD"/);
  // The grading calls go through JSON: a learner id with a lone surrogate.
  const e4 = refused(() => lab.variant({ exercise, learner: 'stu\uD800dent' }));
  assert.equal(e4.code, 'invalid_text');
  assert.equal(e4.params.path, 'learner');
  assert.equal(e4.params.position, '3');
  // And an answer string deep in an attempt.
  const e5 = refused(() => lab.gradeExercise({ exercise, seed: 1, attempts: [{ question: 'dots-a', answer: ['1', '0\uDC00'], lab: {}, lang: 'ja' }] }));
  assert.equal(e5.params.path, 'attempts[0].answer[1]');
  // The same calls with whole text work.
  assert.equal(typeof lab.variant({ exercise, learner: 'student🐶' }).seed, 'number');
});
