// The code editor (CodeMirror 6 with its Python mode), built into its own
// script (dist/code-editor.js) and loaded only on a page with a code question.
// Tab indents (indentWithTab); Esc, then Tab, moves the focus out of the
// editor (CodeMirror's own escape from tab trapping).
//
// The page's CSP allows no inline <style> (style-src-elem 'self'), and
// CodeMirror writes its styles into a <style> element when it lives in the
// document. So the editor lives in a shadow root: there CodeMirror puts its
// styles into a constructed style sheet (adoptedStyleSheets), which the CSP
// does not govern, and nothing is loosened (no nonce, no 'unsafe-inline').
import { EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection, highlightSpecialChars } from '@codemirror/view';
import { EditorState } from '@codemirror/state';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { indentUnit, indentOnInput, bracketMatching, syntaxHighlighting, defaultHighlightStyle } from '@codemirror/language';
import { python } from '@codemirror/lang-python';

// CodeMirror's basicSetup less what gets in a learner's way: no completion
// pop-up (Esc would close it instead of letting Tab leave the editor), no
// automatic closing brackets (typed text stays what was typed), no search panel.
const setup = [
  lineNumbers(),
  highlightActiveLineGutter(),
  highlightSpecialChars(),
  history(),
  drawSelection(),
  indentOnInput(),
  syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
  bracketMatching(),
  highlightActiveLine(),
  keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
];

const theme = EditorView.theme({
  '&': { maxHeight: '28rem', fontSize: '0.92rem', backgroundColor: '#fff' },
  '&.cm-focused': { outline: '3px solid #e69f00', outlineOffset: '2px' },
  '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' },
  '.cm-gutters': { backgroundColor: '#f4f6f9', color: '#4a5566' },
});

globalThis.__poslabCodeEditor = {
  // host: an element of the page; label: the editor's accessible name;
  // description: read after it (how to leave the editor).
  create({ host, doc, label, description, onChange }) {
    const root = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
    const note = document.createElement('span');
    note.id = 'keys';
    note.hidden = true;
    note.textContent = description ?? '';
    root.append(note);
    const view = new EditorView({
      root,
      parent: root,
      state: EditorState.create({
        doc,
        extensions: [
          setup,
          python(),
          indentUnit.of('    '),
          EditorState.tabSize.of(4),
          EditorView.lineWrapping,
          theme,
          EditorView.contentAttributes.of({ 'aria-label': label, 'aria-describedby': 'keys' }),
          EditorView.updateListener.of((u) => {
            if (u.docChanged && onChange) onChange(u.state.doc.toString());
          }),
        ],
      }),
    });
    return {
      view,
      get: () => view.state.doc.toString(),
      set: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }),
    };
  },
};
