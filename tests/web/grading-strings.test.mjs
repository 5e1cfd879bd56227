// web/js/grading/strings.js: the grading modules' text, from the one catalog.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { message, messages } from '../../web/js/grading/strings.js';
import en from '../../web/i18n/en.json' with { type: 'json' };
import ja from '../../web/i18n/ja.json' with { type: 'json' };

test('message: Japanese unless told otherwise, placeholders filled; messages: both languages', () => {
  assert.equal(message('grading.learner_empty'), ja['grading.learner_empty']);
  assert.equal(message('grading.learner_empty', 'en'), en['grading.learner_empty']);
  assert.equal(message('grading.learner_saved', 'en', { id: 's9' }), en['grading.learner_saved'].replace('{id}', 's9'));
  assert.deepEqual(messages('grading.learner_saved', { id: 's9' }), {
    ja: ja['grading.learner_saved'].replace('{id}', 's9'),
    en: en['grading.learner_saved'].replace('{id}', 's9'),
  });
  assert.notEqual(ja['grading.learner_saved'], en['grading.learner_saved']);
});
