// richInline: an opening bracket just before inline math and closing
// punctuation just after it stay on the math's line (exercise 8's
// "… unchanged. (" ended a line, "k is the key vector.)" began the next).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { richInline, richBlock, tex } from '../../web/js/rich.js';

const k = tex('k');

test('"(" before inline math and ")" or "." after it are glued to it; the rest of the text is left as it was', () => {
  assert.equal(richInline('unchanged. ($k$ is the key.)'), `unchanged. <span class="nobr">(${k}</span> is the key.)`);
  assert.equal(richInline('the key ($k$).'), `the key <span class="nobr">(${k}).</span>`);
  assert.equal(richInline('pick $m$, $n$ and $s$.'), `pick <span class="nobr">${tex('m')},</span> ${tex('n')} and <span class="nobr">${tex('s')}.</span>`);
  assert.equal(richInline('「$x$」の値'), `<span class="nobr">「${tex('x')}」</span>の値`);
  assert.equal(richInline('$a$,$b$'), `<span class="nobr">${tex('a')},</span>${tex('b')}`);
});

test('math with a space before or after, display math and text without math are unchanged', () => {
  assert.equal(richInline('so $k$ is'), `so ${k} is`);
  assert.equal(richInline('( $k$ )'), `( ${k} )`);
  assert.equal(richInline('no math (here).'), 'no math (here).');
  assert.equal(richBlock('($$x$$)'), `<p>(${tex('x', true)})</p>`);
  assert.equal(richInline('a **bold** ($k$) `c`'), `a <strong>bold</strong> <span class="nobr">(${k})</span> <code>c</code>`);
  assert.equal(richInline('(<b>$k$'), `(&lt;b&gt;${k}`);
});
