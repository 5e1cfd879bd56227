// The code editor (CodeMirror 6 with its Python mode), built into its own
// script (dist/code-editor.js) and loaded only on a page with a code question.
// Tab indents (indentWithTab); Esc, then Tab, moves the focus out of the
// editor (CodeMirror's own escape from tab trapping). CodeMirror keeps its
// styles in constructed style sheets (adoptedStyleSheets), which the page's
// CSP (style-src-elem 'self') does not block; EditorView.cspNonce is not needed.
import { basicSetup } from 'codemirror';
import { EditorView, keymap } from '@codemirror/view';
import { EditorState } from '@codemirror/state';
import { indentWithTab } from '@codemirror/commands';
import { indentUnit } from '@codemirror/language';
import { python } from '@codemirror/lang-python';

globalThis.__poslabCodeEditor = {
  create({ parent, doc, label, describedBy, onChange }) {
    const view = new EditorView({
      parent,
      state: EditorState.create({
        doc,
        extensions: [
          basicSetup,
          keymap.of([indentWithTab]),
          python(),
          indentUnit.of('    '),
          EditorState.tabSize.of(4),
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ 'aria-label': label, ...(describedBy ? { 'aria-describedby': describedBy } : {}) }),
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
