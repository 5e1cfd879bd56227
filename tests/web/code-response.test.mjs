// A code question's attempt as the LMS and xAPI see it: the code itself is the response.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildStatement, responseText } from '../../web/js/grading/embed-bridge.js';
import { interactionResponse } from '../../web/js/lms/scorm.js';

const answer = { code: 'def causal_mask(seq_len):\n    return []\n', status: 'ok', results: [{ ok: true, value: [] }] };

test('xAPI answered: the code is result.response, a long-fill-in interaction', () => {
  assert.equal(responseText(answer), answer.code);
  const s = buildStatement({
    verb: 'answered', learner: 'alice', homePage: 'https://lms.example', activityBase: 'https://lab.example/',
    exercise: { id: 'write-the-code', title: { ja: 'コード', en: 'Code' }, contentHash: '0123456789abcdef', seed: 1 },
    question: { id: 'causal-mask', type: 'code', prompt: { ja: 'p', en: 'p' } },
    score: { raw: 1, max: 1 }, success: true, answer, durationMs: 1000,
  });
  assert.equal(s.result.response, answer.code);
  assert.equal(s.object.definition.interactionType, 'long-fill-in');
});

test('SCORM: the code as learner_response (2004: long-fill-in up to 4000 characters; 1.2: 255)', () => {
  assert.deepEqual(interactionResponse('code', answer, 'scorm2004'), { type: 'long-fill-in', response: answer.code });
  assert.deepEqual(interactionResponse('code', answer, 'scorm12'), { type: 'performance', response: answer.code });
  const long = { ...answer, code: '#'.repeat(300) };
  assert.equal(interactionResponse('code', long, 'scorm12').response, null);
  assert.equal(interactionResponse('code', long, 'scorm2004').response, long.code);
});
