// The harness shared by tests/web/questions*.test.mjs: the stand-in DOM
// installed, questions.js loaded in English, the Python sandbox and the code
// editor answered by the test (setPython, setEditorLoads), a ctx whose core
// answers what each test says, and small DOM helpers.
import assert from 'node:assert/strict';
import { installDom, scripts } from './questions-dom.mjs';

export const { window, body } = installDom();
const { setLang } = await import('../../web/js/i18n.js');
const { format } = await import('../../web/js/catalog.js');
export const Q = await import('../../web/js/questions.js');
setLang('en');
export const T = (key, params = {}) => format('en', key, params);

// ---- the Python sandbox and the code editor, answered by the test ----------
let python = () => ({ status: 'ok', results: [], output: '' });
export const pyRequests = [];
export const setPython = (f) => (python = f);
scripts.set('py-runtime.js', () => {
  globalThis.__poslabPyWorkerSource = '// worker';
});
class FakeWorker {
  constructor(url) {
    this.url = url;
    this.terminated = false;
  }
  postMessage(req) {
    pyRequests.push(req);
    setImmediate(() => {
      this.onmessage({ data: { type: 'started' } });
      const r = python(req);
      setImmediate(() => this.onmessage({ data: { type: 'result', ...r } }));
    });
  }
  terminate() {
    this.terminated = true;
  }
}
globalThis.Worker = FakeWorker;
export const editors = [];
let editorLoads = true;
export const setEditorLoads = (v) => (editorLoads = v);
scripts.set('code-editor.js', () => {
  if (!editorLoads) return false;
  globalThis.__poslabCodeEditor = {
    create(args) {
      const ed = { text: args.doc, get: () => ed.text, set: (v) => { ed.text = v; args.onChange(v); } };
      editors.push({ ed, args });
      return ed;
    },
  };
});

// ---- helpers ---------------------------------------------------------------
export const settle = async (n = 6) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};
export const answered = [];
window.addEventListener('poslab:answered', (e) => answered.push(e.detail));

let exerciseCount = 0;
// A ctx as the page gives it; `check` answers ctx.check, `core` the other core calls.
export function makeCtx(o = {}) {
  const calls = { check: [], core: [], draft: [], progress: 0 };
  const ctx = {
    exercise: { id: o.exerciseId ?? `ex${++exerciseCount}` },
    data: { tag: 'the exercise file' },
    variant: o.variant ?? {},
    graded: o.graded ?? false,
    notSaved: o.notSaved,
    questionNumber: () => 7,
    check: async (id, answer) => {
      calls.check.push([id, structuredClone(answer)]);
      const v = typeof o.check === 'function' ? await o.check(id, answer) : o.check;
      if (v instanceof Error) throw v;
      return v;
    },
    core: {
      call: async (fn, args) => {
        calls.core.push([fn, args]);
        const f = o.core?.[fn];
        const v = typeof f === 'function' ? await f(args) : f;
        if (v instanceof Error) throw v;
        return v;
      },
    },
    lab: () => o.lab ?? { seed: 3 },
    onProgress: () => calls.progress++,
    draft: (id, v) => calls.draft.push([id, v]),
    widgets: o.widgets ?? new Map(),
    widgetTouched: o.widgetTouched ?? (() => false),
    track: (p) => (calls.tracked = p),
  };
  for (const k of ['solved', 'attemptsMade', 'restored', 'optionOrder', 'questionNote', 'firstAnswer', 'attempts', 'learnerId']) if (o[k]) ctx[k] = o[k];
  return { ctx, calls };
}
export function mount(kind, block, o = {}) {
  const { ctx, calls } = makeCtx(o);
  const q = Q[kind](block, ctx);
  body.append(q.el);
  return { q, el: q.el, ctx, calls };
}
export const one = (el, selector) => {
  const found = el.querySelectorAll(selector);
  assert.equal(found.length, 1, `exactly one ${selector}`);
  return found[0];
};
export const feedbackOf = (el) => el.querySelectorAll('.feedback').at(-1);
export const texts = (el) => el.children.map((c) => c.textContent);
export const submit = (el) => one(el, 'form').fire('submit');
export const lastAnswered = () => answered.at(-1);

export const numericBlock = (o = {}) => ({ id: 'n1', type: 'numeric', prompt: { ja: 'ja {{a}}', en: 'Value {{a}} and {{v.1}} and {{zz}}' }, fields: [{ label: 'x_1' }, { label: 'y' }], ...o });

