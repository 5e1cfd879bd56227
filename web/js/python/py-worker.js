// The Python runtime for student code: MicroPython compiled to WebAssembly
// (@micropython/micropython-webassembly-pyscript, its wasm inlined here),
// run in a dedicated blob: Worker in the page and the results page, and in
// its own bubblewrap-sandboxed Node process for the re-grade
// (scripts/py-sandbox.mjs + scripts/py-runner.cjs). One fresh interpreter
// per run in every host.
//
// What the student's code cannot reach, and how that is made sure:
// - JavaScript at all: after the harness is set up and before any student
//   code runs, the table through which MicroPython's `js` / `jsffi` modules
//   and every JsProxy reach JavaScript objects is replaced for good by one
//   where every entry is inert (./ffi-cut.js). No Python-level trick (code
//   objects, closure cells, __import__, sys.modules, builtins) brings `js`
//   back: it is gone below Python. Python's `import` is also replaced by a
//   guard that serves only `math` (a copy of the module with the functions
//   MicroPython lacks added) and keeps no reference to the real __import__.
// - the harness: its helpers, the hidden cases and the reporting function
//   live in closures the JavaScript side holds; the student's code runs in a
//   namespace of its own, compiled as solution.py (tracebacks keep only its
//   frames).
// - the network and the page: before MicroPython is even loaded, every
//   network or messaging API of the scope (fetch, XMLHttpRequest,
//   WebSocket, EventSource, importScripts, Worker, BroadcastChannel,
//   indexedDB, caches, postMessage itself, …) is deleted from the scope and
//   its prototypes, or shadowed by undefined; the one postMessage the
//   sandbox answers with is kept in a closure. A Worker has no DOM. The
//   page's CSP (connect-src 'self' data:, no unsafe-eval) applies to blob:
//   Workers too; in Node the process is sandboxed by the operating system.
// - time and memory: the host stops the run after the time limit;
//   MicroPython's heap is fixed (HEAP_BYTES), so a huge allocation raises
//   MemoryError; printed text is kept up to MAX_OUTPUT characters.
import { loadMicroPython } from '@micropython/micropython-webassembly-pyscript/micropython.mjs';
import wasmBinary from '@micropython/micropython-webassembly-pyscript/micropython.wasm';
import { cutForeignFunctions } from './ffi-cut.js';

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

// The file name the student's code is compiled under: tracebacks keep only
// the frames of this file (never the harness's).
const STUDENT_FILE = 'solution.py';

// What MicroPython lacks that ordinary Python for this exercise uses, and
// what can be supplied from Python: `math` functions (a `math` object with
// the real module's names plus these) and the builtin `format`. Methods of
// the builtin types (float.is_integer, …) cannot be added in MicroPython:
// such a gap is recognised instead (GAPS) and the run is reported as
// `unsupported`, naming the method (web/i18n: code.gap.*).
const POLYFILLS = String.raw`
class _MathModule:
    pass
math = _MathModule()
for _k in dir(_m):
    if not _k.startswith('__'):
        setattr(math, _k, getattr(_m, _k))
math.__name__ = 'math'
def _prod(iterable, start=1):
    r = start
    for x in iterable:
        r = r * x
    return r
def _isqrt(n):
    n = int(n)
    if n < 0:
        raise ValueError('isqrt() argument must be nonnegative')
    if n == 0:
        return 0
    x = int(_m.sqrt(n))
    while x * x > n:
        x -= 1
    while (x + 1) * (x + 1) <= n:
        x += 1
    return x
def _gcd(*ns):
    g = 0
    for n in ns:
        a, b = abs(int(n)), g
        while b:
            a, b = b, a % b
        g = a
    return g
def _lcm(*ns):
    l = 1
    for n in ns:
        n = abs(int(n))
        if n == 0:
            return 0
        l = l * n // _gcd(l, n)
    return l
def _comb(n, k):
    if k < 0 or k > n:
        return 0
    k = min(k, n - k)
    r = 1
    for i in range(1, k + 1):
        r = r * (n - k + i) // i
    return r
def _perm(n, k=None):
    if k is None:
        k = n
    if k < 0 or k > n:
        return 0
    r = 1
    for i in range(n - k + 1, n + 1):
        r = r * i
    return r
def _hypot(*xs):
    return _m.sqrt(sum(float(x) * float(x) for x in xs))
def _dist(p, q):
    if len(p) != len(q):
        raise ValueError('both points must have the same number of dimensions')
    return _hypot(*[a - b for a, b in zip(p, q)])
def _fsum(xs):
    s = 0.0
    c = 0.0
    for x in xs:
        y = float(x) - c
        t = s + y
        c = (t - s) - y
        s = t
    return s
def _log1p(x):
    return _m.log(1.0 + x) if abs(x) > 1e-5 else x - x * x / 2 + x * x * x / 3
def _cbrt(x):
    return -((-x) ** (1.0 / 3.0)) if x < 0 else x ** (1.0 / 3.0)
def _exp2(x):
    return 2.0 ** x
for _k, _f in (('prod', _prod), ('isqrt', _isqrt), ('gcd', _gcd), ('lcm', _lcm), ('comb', _comb), ('perm', _perm),
               ('hypot', _hypot), ('dist', _dist), ('fsum', _fsum), ('log1p', _log1p), ('cbrt', _cbrt), ('exp2', _exp2)):
    if not hasattr(math, _k):
        setattr(math, _k, _f)
def format(value, spec=''):
    return ('{:' + spec + '}').format(value)
del _k, _f
`;

// The import guard, defined in a dictionary of its own: its __globals__ hold
// the allowed modules only, and no closure cell or default argument holds the
// real __import__ (which is nowhere left in reach once it is replaced).
const GUARD = String.raw`
class ImportError(ImportError):
    pass
def __import__(name, globals=None, locals=None, fromlist=(), level=0):
    m = _allowed.get(name) if not level else None
    if m is None:
        raise ImportError("only math can be imported here (not " + str(name) + ")")
    return m
`;

// type.method that MicroPython 1.27 lacks and CPython has: an AttributeError
// naming one of these makes the run `unsupported` (not an attempt).
const GAPS = [
  'float.is_integer', 'float.as_integer_ratio', 'float.hex', 'float.conjugate', 'float.real', 'float.imag',
  'int.bit_length', 'int.bit_count', 'int.as_integer_ratio', 'int.conjugate', 'int.numerator', 'int.denominator', 'int.real', 'int.imag',
  'str.casefold', 'str.removeprefix', 'str.removesuffix', 'str.zfill', 'str.ljust', 'str.rjust', 'str.title', 'str.capitalize',
  'str.isnumeric', 'str.isdecimal', 'str.isalnum', 'str.format_map', 'str.translate',
];

const HARNESS = String.raw`
def _poslab_make(max_values, poly_src, guard_src, gaps, student_file):
    import json, io, sys, math, builtins
    poly = {'_m': math}
    exec(poly_src, poly)
    guard = {'_allowed': {'math': poly['math']}}
    exec(guard_src, guard)
    Refused = guard['ImportError']
    builtins.__import__ = guard['__import__']
    fmt = poly['format']
    dumps = json.dumps
    loads = json.loads
    print_exception = sys.print_exception
    StringIO = io.StringIO
    _type, _str, _repr, _float, _int, _bool, _list, _tuple, _len = type, str, repr, float, int, bool, list, tuple, len
    _isinstance, _callable, _compile, _exec = isinstance, callable, compile, exec
    BaseExc, AttrErr, SynErr, MemErr = BaseException, AttributeError, SyntaxError, MemoryError
    gap_set = set(gaps.split(','))
    marker = 'File "' + student_file + '"'

    class TooBig(Exception):
        pass

    class Unrepresentable(Exception):
        pass

    def typename(e):
        try:
            n = _type(e).__name__
            return n if _type(n) is _str else '?'
        except BaseExc:
            return '?'

    def text(e, limit):
        try:
            s = _str(e)
            if _type(s) is not _str:
                s = '?'
            return s[:limit]
        except BaseExc as e2:
            return '(the text of this ' + typename(e) + ' could not be made: ' + typename(e2) + ')'

    # The traceback with the student's frames only (never the harness's).
    def trace(e, limit):
        try:
            buf = StringIO()
            print_exception(e, buf)
            lines = buf.getvalue().split('\n')
        except BaseExc:
            lines = []
        keep = []
        frames = 0
        for i in range(_len(lines)):
            ln = lines[i]
            if ln.startswith('Traceback'):
                continue
            if ln.startswith('  File '):
                if marker in ln:
                    keep.append(ln)
                    frames += 1
                continue
            if ln:
                keep.append(ln if _len(ln) <= 300 else ln[:300] + '...')
        if frames:
            keep.insert(0, 'Traceback (most recent call last):')
        if not keep:
            keep.append(typename(e) + ': ' + text(e, 300))
        return '\n'.join(keep)[-limit:]

    def gap_of(e):
        if not _isinstance(e, AttrErr):
            return None
        s = text(e, 200)
        if s.startswith("'") and "' object has no attribute '" in s and s.endswith("'"):
            t, _, a = s[1:-1].partition("' object has no attribute '")
            if t + '.' + a in gap_set:
                return t + '.' + a
        return None

    def conv(v, budget, depth):
        budget[0] -= 1
        if budget[0] < 0 or depth > 4:
            raise TooBig()
        t = _type(v)
        if t is _bool or v is None:
            return {'type': 'bool' if t is _bool else 'None', 'repr': _repr(v)}
        if t is _int:
            if -9007199254740991 <= v <= 9007199254740991:
                return v
            if -1.7976931348623157e308 <= v <= 1.7976931348623157e308:
                return _float(v)
            raise Unrepresentable('the result holds an int too large for a float (beyond 1.8e308)')
        if t is _float:
            if v != v or v == _float('inf') or v == _float('-inf'):
                return {'type': 'float', 'repr': _repr(v)}
            return v
        if t is _list or t is _tuple:
            return [conv(e, budget, depth + 1) for e in v]
        return {'type': typename(v) if t is not _str else 'str'}

    def refusal(e):
        return {'status': 'import_refused', 'module': text(e, 200).split('(not ')[-1].rstrip(')'), 'message': trace(e, 1500)}

    def run(src, fn_name, cases_text):
        ns = {'__name__': '__main__', 'format': fmt}
        try:
            _exec(_compile(src, student_file, 'exec'), ns)
        except SynErr as e:
            return {'status': 'syntax_error', 'message': trace(e, 1500)}
        except MemErr as e:
            return {'status': 'memory', 'message': trace(e, 1500)}
        except BaseExc as e:
            if _isinstance(e, Refused):
                return refusal(e)
            g = gap_of(e)
            if g:
                return {'status': 'unsupported', 'feature': g, 'message': trace(e, 1500)}
            return {'status': 'load_error', 'message': trace(e, 1500)}
        f = ns.get(fn_name)
        if not _callable(f):
            return {'status': 'no_function', 'message': fn_name}
        results = []
        refused = None
        gap = None
        memory = None
        for args in loads(cases_text):
            try:
                v = f(*args)
                results.append({'ok': True, 'value': conv(v, [max_values], 0)})
            except Unrepresentable as e:
                results.append({'ok': False, 'error': 'OverflowError', 'message': text(e, 300)})
            except TooBig:
                results.append({'ok': False, 'error': 'ResultTooLarge', 'message': 'more than ' + _str(max_values) + ' values, or lists nested more than 4 deep'})
            except BaseExc as e:
                if refused is None and _isinstance(e, Refused):
                    refused = e
                gap = gap or gap_of(e)
                if memory is None and _isinstance(e, MemErr):
                    memory = e
                results.append({'ok': False, 'error': typename(e), 'message': text(e, 300), 'trace': trace(e, 600)})
        if refused is not None:
            return refusal(refused)
        if memory is not None:
            return {'status': 'memory', 'results': results, 'message': trace(memory, 1500)}
        if gap:
            return {'status': 'unsupported', 'feature': gap, 'results': results, 'message': ''}
        return {'status': 'ok', 'results': results}

    # MicroPython's WebAssembly port frees nothing during a call (its
    # gc_collect only marks a collection pending; the heap grows instead), so
    # once a run has filled the heap, even the report of its MemoryError
    # cannot be allocated. This answer is a constant: it needs no memory.
    memory_answer = '{"status": "memory", "message": "MemoryError: the run filled the memory a run may use"}'

    def answer(src, fn_name, cases_text):
        try:
            return dumps(run(src, fn_name, cases_text))
        except MemErr:
            return memory_answer
        except BaseExc as e:
            try:
                return dumps({'status': 'crashed', 'message': 'the harness failed: ' + typename(e) + ': ' + text(e, 300)})
            except MemErr:
                return memory_answer
            except BaseExc:
                return '{"status": "crashed", "message": "the harness failed"}'
    return answer
`;

let mp = null;
let output = '';
let dropped = 0;
function write(line) {
  if (output.length + line.length + 1 > MAX_OUTPUT) dropped += line.length + 1;
  else output += line + '\n';
}

let answer = null;
async function start() {
  const t0 = performance.now();
  mp = await loadMicroPython({ wasmBinary, heapsize: HEAP_BYTES, stdout: write, stderr: write });
  mp.runPython(HARNESS);
  const make = mp.globals.get('_poslab_make');
  answer = make(MAX_VALUES, POLYFILLS, GUARD, GAPS.join(','), STUDENT_FILE);
  // Nothing of the harness stays in __main__: the student's code runs in a
  // namespace of its own and never sees these names, and answer() is held here only.
  mp.runPython('del _poslab_make');
  cutForeignFunctions();
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
    const text = answer(String(msg.code), String(msg.fn), JSON.stringify(msg.cases || []));
    const parsed = JSON.parse(String(text));
    // The harness's answer, as an object whose own keys cannot replace the message's type.
    const result = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : { status: 'crashed', message: 'the harness answered something that is not an object' };
    send({ ...result, type: 'result', output, dropped, loadMs, runMs: performance.now() - t0 });
  } catch (e) {
    // A MicroPython fatal error, or the harness itself failing: never the page's problem.
    send({ type: 'result', status: 'crashed', message: String((e && e.message) || e).slice(-1500), output, dropped });
  }
};
