// Issue 22, item 13: choice questions must not give their answer away by
// length or place. Reports every choice question (ja and en separately) and
// fails when the right option is strictly the longest in more than a third
// of them, or stands at the same place in all of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadExercises } from '../../web/js/exercise-loader.mjs';
import { choiceShapes, shapeProblems, visibleLength } from '../../web/js/choice-shape.mjs';

const root = join(import.meta.dirname, '..', '..', 'exercises');

test('visible length counts what the student reads, not TeX', () => {
  assert.equal(visibleLength('abc'), 3);
  assert.equal(visibleLength('置換等価性'), 5);
  assert.equal(visibleLength('$\\mathrm{Attention}(PX)$'), 'Attention(PX)'.length);
  assert.equal(visibleLength('$P^{\\top}$'), 'P^x'.length);
});

test('the check fails on questions whose right option is always the longest, or always first', () => {
  const q = (id, labels, answer) => ({ type: 'choice', id, options: labels.map((l, i) => ({ id: `o${i}`, label: { ja: l, en: l } })), answer });
  const ex = { id: 'e', blocks: [q('a', ['a long right one', 'short', 'tiny'], ['o0']), q('b', ['right, longest', 'no', 'nope'], ['o0']), q('c', ['ok', 'wrong but long', 'x'], ['o0'])] };
  const rows = choiceShapes([ex]);
  assert.deepEqual(rows.map((r) => r.longest.ja), [true, true, false]);
  const problems = shapeProblems(rows).join('\n');
  assert.match(problems, /ja: the right option is strictly the longest in 2 of 3/);
  assert.match(problems, /en: the right option is strictly the longest in 2 of 3/);
  assert.match(problems, /option 1 in all 3 choice questions/);
  const short = choiceShapes([{ id: 's', blocks: [q('a', ['ok', 'wrong but long', 'also wrong'], ['o0']), q('b', ['no', 'wrong, longer', 'long wrong one'], ['o0'])] }]);
  assert.match(shapeProblems(short).join('\n'), /en: the right option is strictly the shortest in 2 of 2/);
  // Multiple answers: the longest right one against the longest wrong one; a tie is not "strictly".
  const m = choiceShapes([{ id: 'm', blocks: [q('m', ['abcd', 'ab', 'abcd'], ['o0', 'o1'])] }]);
  assert.equal(m[0].longest.en, false);
  // answer_from questions (answers computed per learner) are not counted.
  assert.equal(choiceShapes([{ id: 'f', blocks: [{ type: 'choice', id: 'f', options: [], answer_from: {} }] }]).length, 0);
});

test('the lab\'s choice questions do not give their answer away by length or place (report below)', (t) => {
  const exercises = loadExercises(root);
  const rows = choiceShapes(exercises);
  for (const r of rows) t.diagnostic(`${r.exercise}/${r.question}: right option ${r.rightAt + 1} of ${r.options}; strictly longest ja ${r.longest.ja ? 'YES' : 'no'}, en ${r.longest.en ? 'YES' : 'no'}; strictly shortest ja ${r.shortest.ja ? 'YES' : 'no'}, en ${r.shortest.en ? 'YES' : 'no'} (ja ${r.lengths.ja} | en ${r.lengths.en})`);
  for (const lang of ['ja', 'en']) t.diagnostic(`${lang}: right option strictly longest in ${rows.filter((r) => r.longest[lang]).length} of ${rows.length}, strictly shortest in ${rows.filter((r) => r.shortest[lang]).length}`);
  assert.ok(rows.length >= 11, `expected the lab's 11 fixed choice questions, found ${rows.length}`);
  assert.deepEqual(shapeProblems(rows), []);
});
