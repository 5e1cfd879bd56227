// The learner id: from the URL, the host, or typed (kept); a weaker source
// never overrides a stronger one; seeds come from the core.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { createLearner, learnerFromUrl, normalizeLearner, variantFor, LEARNER_KEY, LearnerError } from '../../web/js/grading/learner.js';
import { FakeStorage, domException } from './fakes.mjs';

const require = createRequire(import.meta.url);
const yaml = require('js-yaml');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const wasmPath = path.resolve(process.env.POSLAB_WASM || path.join(root, 'build/wasm/poslab.js'));
const demo = yaml.load(fs.readFileSync(path.join(root, 'tests/fixtures/exercises/grading-demo.yaml'), 'utf8'));

let lab;
before(async () => {
  lab = await require(wasmPath)();
});

test('learner= is read from the query or the hash, normalized', () => {
  assert.equal(learnerFromUrl('https://lab.example/index.html?exercise=rope&learner=s1234567'), 's1234567');
  assert.equal(learnerFromUrl('https://lab.example/index.html#ex=rope&learner=%E5%AD%A6%E7%94%9F%201'), '学生 1');
  assert.equal(learnerFromUrl('file:///x/index.html?learner=%20bob%20'), 'bob');
  assert.equal(learnerFromUrl('https://lab.example/index.html?learner='), null);
  assert.equal(learnerFromUrl('https://lab.example/index.html'), null);
  assert.equal(learnerFromUrl('not a url'), null);
});

test('bad ids say what is wrong, in ja and en', () => {
  assert.throws(() => normalizeLearner('   '), (e) => e instanceof LearnerError && e.code === 'empty' && e.text.ja === '学習者 ID を入力してください。');
  assert.throws(() => normalizeLearner('x'.repeat(201)), (e) => e.code === 'too_long' && /at most 200 characters \(this one has 201\)/.test(e.message));
  assert.equal(normalizeLearner('あ'.repeat(200)), 'あ'.repeat(200), '200 characters, not bytes');
  assert.throws(() => normalizeLearner('a\nb'), (e) => e.code === 'bad_char');
  // NFC: a decomposed が and a composed が are the same learner.
  assert.equal(normalizeLearner('か\u3099'), 'が');
});

test('the URL wins over the host and a typed id; a typed id is kept for the next visit', () => {
  const storage = new FakeStorage();
  const typed = createLearner({ href: 'https://lab.example/index.html', storage });
  assert.equal(typed.id, null);
  assert.equal(typed.editable, true);
  const changes = [];
  typed.onChange((c) => changes.push(c));
  assert.equal(typed.setTyped(' s123 '), true);
  assert.deepEqual([typed.id, typed.source], ['s123', 'typed']);
  assert.equal(storage.getItem(LEARNER_KEY), 's123');
  assert.deepEqual(changes, [{ id: 's123', source: 'typed' }]);
  assert.equal(createLearner({ href: 'https://lab.example/index.html', storage }).id, 's123', 'persisted');

  // The host outranks what was typed, and then typing cannot override it.
  assert.equal(typed.setFromHost('lms-42'), true);
  assert.deepEqual([typed.id, typed.source, typed.editable], ['lms-42', 'host', false]);
  assert.equal(typed.setTyped('s999'), false);
  assert.equal(typed.id, 'lms-42');

  const fromUrl = createLearner({ href: 'https://lab.example/index.html?learner=url-7', storage });
  assert.deepEqual([fromUrl.id, fromUrl.source, fromUrl.editable], ['url-7', 'url', false]);
  assert.equal(fromUrl.setFromHost('lms-42'), false);
  assert.equal(fromUrl.setTyped('s123'), false);
  assert.equal(fromUrl.id, 'url-7');
});

test('a Storage that throws only means the typed id lasts for the visit', () => {
  const storage = new FakeStorage();
  storage.failGet = domException('SecurityError');
  storage.failSet = domException('SecurityError');
  const l = createLearner({ href: 'file:///lab/index.html', storage });
  assert.equal(l.id, null);
  assert.equal(l.setTyped('s1'), true);
  assert.equal(l.id, 's1');
});

test('seeds come from the core: the same learner the same variant, another learner another seed', async () => {
  const a1 = await variantFor(lab, demo, 'alice');
  const a2 = await variantFor(lab, demo, ' alice ');
  const b = await variantFor(lab, demo, 'bob');
  assert.deepEqual(a1, a2, 'the id is normalized before the core sees it');
  assert.notEqual(a1.seed, b.seed);
  assert.equal(a1.contentHash, lab.contentHash({ exercise: demo }));
  // The page's core client: core.call('variant', …) gets the same request.
  const calls = [];
  const client = { call: async (method, args) => (calls.push([method, args.learner]), lab.variant(args)) };
  assert.deepEqual(await variantFor(client, demo, 'alice'), a1);
  assert.deepEqual(calls, [['variant', 'alice']]);
  await assert.rejects(variantFor(lab, demo, ''), LearnerError);
});
