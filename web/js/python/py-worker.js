// The Python sandbox: a dedicated Worker (a blob: Worker in the page, a
// worker_threads Worker in scripts/grade-code.mjs) that runs a student's
// function with MicroPython compiled to WebAssembly
// (@micropython/micropython-webassembly-pyscript, its wasm inlined here).
//
// What the student's code cannot reach, and how that is made sure:
// - the network and the page: before MicroPython is even loaded, every
//   network or messaging API of the Worker's scope (fetch, XMLHttpRequest,
//   WebSocket, EventSource, importScripts, Worker, BroadcastChannel,
//   indexedDB, caches, postMessage itself, …) is deleted from the scope and
//   its prototypes, or shadowed by undefined; the one postMessage the
//   sandbox answers with is kept in a closure. A Worker has no DOM. The
//   page's CSP (connect-src 'self' data:) applies to blob: Workers too.
// - JavaScript at all: Python's `import` is replaced by a guard that allows
//   only `math`, so `js`, `jsffi`, `os`, `sys`, `builtins`, … raise
//   ImportError; the student's code runs in a fresh namespace each time.
// - the file system (in Node): `process`, `require`, `module` are removed
//   before MicroPython loads, so its Emscripten glue takes its plain-JS
//   path and never asks for node:fs (it gets its wasm bytes from here).
// - time and memory: the host terminates the Worker after the time limit;
//   MicroPython's heap is fixed (HEAP_BYTES), so a huge allocation raises
//   MemoryError; printed text is kept up to MAX_OUTPUT characters.
import { loadMicroPython } from '@micropython/micropython-webassembly-pyscript/micropython.mjs';
import wasmBinary from '@micropython/micropython-webassembly-pyscript/micropython.wasm';

const HEAP_BYTES = 16 << 20;
const MAX_OUTPUT = 4000;

const send = globalThis.postMessage.bind(globalThis);
const BLOCKED = [
  'fetch', 'XMLHttpRequest', 'WebSocket', 'WebSocketStream', 'EventSource', 'importScripts', 'Worker', 'SharedWorker',
  'BroadcastChannel', 'MessageChannel', 'indexedDB', 'caches', 'WebTransport', 'RTCPeerConnection', 'Request',
  'navigator', 'postMessage', 'close', 'process', 'require', 'module', 'exports', 'Buffer', 'global', 'setInterval',
];
function scrub() {
  for (const name of BLOCKED) {
    for (let o = globalThis; o; o = Object.getPrototypeOf(o)) {
      try {
        if (Object.prototype.hasOwnProperty.call(o, name)) delete o[name];
      } catch { /* not configurable: shadowed below */ }
    }
    if (name in globalThis) {
      try {
        Object.defineProperty(globalThis, name, { value: undefined, configurable: false, writable: false });
      } catch { /* reported by probe() */ }
    }
  }
}
scrub();

function probe() {
  const out = {};
  for (const name of BLOCKED) out[name] = typeof globalThis[name];
  return out;
}

// Per case: at most MAX_VALUES values (numbers and lists) and 4 levels of
// lists, so that an attempt always fits the attempt store's limits
// (web/js/grading/attempt-store.js: 10000 nodes, depth 8).
const MAX_VALUES = 1500;
const HARNESS = String.raw`
import json as _poslab_json
def _poslab_setup():
    import builtins, io, sys
    orig = builtins.__import__
    def guard(name, *rest):
        if name == 'math':
            return orig(name, *rest)
        raise ImportError("only math can be imported here (not " + name + ")")
    builtins.__import__ = guard
    def trace(e):
        buf = io.StringIO()
        sys.print_exception(e, buf)
        return buf.getvalue()[-1500:]
    return trace
_poslab_trace = _poslab_setup()
del _poslab_setup

class _PoslabTooBig(Exception):
    pass

def _poslab_conv(v, budget, depth=0):
    budget[0] -= 1
    if budget[0] < 0 or depth > 4:
        raise _PoslabTooBig()
    t = type(v)
    if t is bool or v is None:
        return {'type': 'bool' if t is bool else 'None', 'repr': repr(v)}
    if t is int:
        return v if -9007199254740991 <= v <= 9007199254740991 else float(v)
    if t is float:
        if v != v or v == float('inf') or v == float('-inf'):
            return {'type': 'float', 'repr': repr(v)}
        return v
    if t is list or t is tuple:
        return [_poslab_conv(e, budget, depth + 1) for e in v]
    return {'type': t.__name__}

def _poslab_run(src, fn_name, cases_text):
    ns = {'__name__': '__main__'}
    try:
        exec(src, ns)
    except SyntaxError as e:
        return _poslab_json.dumps({'status': 'syntax_error', 'message': _poslab_trace(e)})
    except MemoryError as e:
        return _poslab_json.dumps({'status': 'memory', 'message': _poslab_trace(e)})
    except BaseException as e:
        return _poslab_json.dumps({'status': 'load_error', 'message': _poslab_trace(e)})
    f = ns.get(fn_name)
    if not callable(f):
        return _poslab_json.dumps({'status': 'no_function', 'message': fn_name})
    results = []
    for args in _poslab_json.loads(cases_text):
        try:
            v = f(*args)
            results.append({'ok': True, 'value': _poslab_conv(v, [MAX_VALUES])})
        except _PoslabTooBig:
            results.append({'ok': False, 'error': 'ResultTooLarge', 'message': 'more than MAX_VALUES values, or lists nested more than 4 deep'})
        except BaseException as e:
            results.append({'ok': False, 'error': type(e).__name__, 'message': str(e)[:300], 'trace': _poslab_trace(e)[-600:]})
    return _poslab_json.dumps({'status': 'ok', 'results': results})
`;

let mp = null;
let output = '';
let dropped = 0;
function write(line) {
  if (output.length + line.length + 1 > MAX_OUTPUT) dropped += line.length + 1;
  else output += line + '\n';
}

async function start() {
  const t0 = performance.now();
  mp = await loadMicroPython({ wasmBinary, heapsize: HEAP_BYTES, stdout: write, stderr: write });
  mp.runPython(HARNESS.replaceAll('MAX_VALUES', String(MAX_VALUES)));
  return performance.now() - t0;
}

globalThis.onmessage = async (event) => {
  const msg = event.data || {};
  try {
    if (msg.type === 'probe') {
      send({ type: 'probe', scope: probe() });
      return;
    }
    const loadMs = mp ? 0 : await start();
    send({ type: 'started', loadMs });
    output = '';
    dropped = 0;
    const t0 = performance.now();
    mp.globals.set('_poslab_src', String(msg.code));
    mp.globals.set('_poslab_fn', String(msg.fn));
    mp.globals.set('_poslab_cases', JSON.stringify(msg.cases || []));
    mp.runPython('_poslab_out = _poslab_run(_poslab_src, _poslab_fn, _poslab_cases)');
    const text = mp.globals.get('_poslab_out');
    const result = JSON.parse(text);
    send({ type: 'result', ...result, output, dropped, loadMs, runMs: performance.now() - t0 });
  } catch (e) {
    // A MicroPython fatal error, or the harness itself failing: never the page's problem.
    send({ type: 'result', status: 'crashed', message: String((e && e.message) || e).slice(-1500), output, dropped });
  }
};
