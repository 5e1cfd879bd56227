// richBlock: a paragraph of "- " lines is a list (exercise 12's note showed
// its dashes as text, issue 24's walk); other paragraphs stay paragraphs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { richBlock } from '../../web/js/rich.js';

test('a paragraph whose every line starts with "- " becomes one list item per line', () => {
  const html = richBlock('Differences:\n\n- Only `math` imports.\n- **round** differs.');
  assert.equal(html, '<p>Differences:</p><ul><li>Only <code>math</code> imports.</li><li><strong>round</strong> differs.</li></ul>');
});

test('a paragraph with one line not starting with "- " stays a paragraph; a dash inside a line is text', () => {
  assert.equal(richBlock('- one\ntwo'), '<p>- one\ntwo</p>');
  assert.equal(richBlock('a - b'), '<p>a - b</p>');
});
