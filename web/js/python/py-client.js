// The page's side of the Python sandbox (web/js/python/py-worker.js): loads
// the runtime only when a code question is shown (a <script> of our own
// origin, so it works from file:// too), runs each request in a fresh
// dedicated Worker made from a blob: URL, and terminates it after the time
// limit: an infinite loop never blocks the page.
let runtime = null;
let editor = null;

function loadScript(src) {
  return new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.src = src;
    s.onload = () => resolve();
    s.onerror = () => reject(new Error(`could not load ${src}`));
    document.head.append(s);
  });
}

export function loadRuntime() {
  runtime ??= loadScript('py-runtime.js').then(() => {
    const source = globalThis.__poslabPyWorkerSource;
    if (typeof source !== 'string') throw new Error('py-runtime.js did not define the Python runtime');
    return URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  });
  runtime.catch(() => (runtime = null));
  return runtime;
}

export function loadEditor() {
  editor ??= loadScript('code-editor.js').then(() => globalThis.__poslabCodeEditor);
  editor.catch(() => (editor = null));
  return editor;
}

// Resolves {status, results?, message?, output, dropped, loadMs, runMs}.
// status: ok, timeout, syntax_error, load_error, no_function, memory, crashed.
export async function runPython({ code, fn, cases, timeLimitMs = 2000 }) {
  const url = await loadRuntime();
  return new Promise((resolve) => {
    const worker = new Worker(url);
    let timer = null;
    let done = false;
    const finish = (r) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(loadTimer);
      worker.terminate();
      resolve(r);
    };
    const loadTimer = setTimeout(() => finish({ status: 'crashed', message: 'the Python runtime did not start in 30 s', output: '' }), 30000);
    worker.onmessage = (e) => {
      const m = e.data || {};
      if (m.type === 'started') {
        clearTimeout(loadTimer);
        timer = setTimeout(() => finish({ status: 'timeout', message: String(timeLimitMs), output: '' }), timeLimitMs);
      } else if (m.type === 'result') {
        const { type, ...rest } = m;
        finish(rest);
      }
    };
    worker.onerror = (e) => {
      e.preventDefault?.();
      finish({ status: 'crashed', message: String(e.message || 'worker error'), output: '' });
    };
    worker.postMessage({ type: 'run', code, fn, cases });
  });
}
