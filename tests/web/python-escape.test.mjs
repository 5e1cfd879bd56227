// A hostile submission that tries to leave MicroPython, as a student could
// write it (our own re-creation of the attack in issue #21): it rebuilds
// functions from code objects to change what the import guard's closure and
// globals hold, tries `import js`, `import jsffi`, `__import__('js')`,
// `sys.modules`, `builtins`, and, if it ever got `js`, uses `js.eval` to load
// node:child_process and node:fs, write a marker file and run a command that
// writes another. Checked through the re-grade's sandboxed process, through
// the same runner without bubblewrap (so the JavaScript-level removal of `js`
// is shown to hold on its own), and against MicroPython directly with and
// without the cut of its foreign-function table.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runPython, sandboxStatus } from '../../scripts/py-sandbox.mjs';

let dir;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'poslab-escape-'));
  fs.chmodSync(dir, 0o777);
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

// Returns 0 (a wrong answer: the exercise's function returns a table), and
// prints what it tried, one line each.
export const ATTACK = String.raw`
def escape(marker, command_marker, stage):
    def note(*parts):
        print(' '.join([str(p) for p in parts]))
    FunctionType = type(escape)
    js = None

    if stage == 'a':
        js = stage_a(note, FunctionType)
    else:
        js = stage_b(note)
    use_js(js, marker, command_marker, note)
    return 0

def stage_a(note, FunctionType):
    js = None
    # (a) a function rebuilt from the guard's code object, with globals of
    # our own where every name is allowed, and a setter rebuilt from its
    # code object to overwrite cells the guard might close over.
    guard = __import__
    class Anything(dict):
        def get(self, key, default=None):
            return key
    for label, attempt in (('code', lambda: guard.__code__), ('globals', lambda: guard.__globals__),
                           ('closure', lambda: guard.__closure__), ('defaults', lambda: guard.__defaults__)):
        try:
            note(label, 'reachable', type(attempt()).__name__)
        except Exception as e:
            note(label, 'refused', type(e).__name__)
    try:
        rebuilt = FunctionType(guard.__code__, {'_allowed': Anything(), 'ImportError': ImportError})
        got = rebuilt('js')
        note('rebuilt guard gave', type(got).__name__)
    except Exception as e:
        note('rebuilt guard', type(e).__name__, e)
    def outer():
        cell = None
        def setter(value):
            nonlocal cell
            cell = value
            return cell
        return setter
    setter_code = outer().__code__
    candidates = []
    try:
        candidates += list(guard.__globals__.values())
    except Exception:
        pass
    for c in candidates:
        try:
            bare = FunctionType(setter_code, {})
            bare(c, Anything())
            note('overwrote a cell through', type(c).__name__)
        except Exception as e:
            note('cell overwrite', type(e).__name__)
    try:
        guard.__globals__['_allowed'] = Anything()
        note('guard globals replaced')
    except Exception as e:
        note('guard globals', type(e).__name__)

    try:
        js = __import__('js')
        note('import js after (a) gave', type(js).__name__)
        if not hasattr(js, 'eval'):
            js = None
    except Exception as e:
        note('import js after (a)', type(e).__name__)
    return js

def stage_b(note):
    js = None
    # (b) every way to the foreign-function modules.
    for name in ('js', 'jsffi', 'sys', 'builtins', '__main__', 'micropython'):
        try:
            m = __import__(name)
            note('import', name, 'gave', type(m).__name__)
            if name == 'js' and hasattr(m, 'eval'):
                js = m
            if name == 'sys':
                for k in ('js', 'jsffi', 'builtins'):
                    mod = m.modules.get(k)
                    note('sys.modules', k, type(mod).__name__)
                    if k == 'js' and mod is not None and hasattr(mod, 'eval'):
                        js = mod
            if name == 'builtins':
                try:
                    del m.__import__
                    js = __import__('js')
                    note('builtins restored, js:', hasattr(js, 'eval'))
                except Exception as e:
                    note('builtins', type(e).__name__)
            if name == 'jsffi':
                proxy = m.to_js([1, 2])
                note('jsffi proxy constructor', hasattr(proxy, 'constructor'))
                try:
                    f = proxy.constructor.constructor('return globalThis')
                    note('Function constructor gave', f)
                except Exception as e:
                    note('Function constructor', type(e).__name__)
        except Exception as e:
            note('import', name, 'refused', type(e).__name__)
    try:
        import js as js2
        if hasattr(js2, 'eval'):
            js = js2
        note('import js statement gave', type(js2).__name__, 'eval' if hasattr(js2, 'eval') else 'no eval')
    except Exception as e:
        note('import js statement', type(e).__name__)

    return js

def use_js(js, marker, command_marker, note):
    # (c) with js: load node:child_process and node:fs, write, run a command.
    if js is not None:
        try:
            js.eval("import('node:fs').then(fs => fs.writeFileSync(" + repr(marker) + ", 'escaped'))")
            js.eval("import('node:child_process').then(cp => cp.execSync('id > " + command_marker + "'))")
            note('js.eval ran')
        except Exception as e:
            note('js.eval', type(e).__name__, e)
    else:
        note('no js')
`;

async function attackThrough(opts, stage) {
  const marker = path.join(dir, `marker-${opts.sandbox ? 'sbx' : 'plain'}-${stage}`);
  const commandMarker = path.join(dir, `command-${opts.sandbox ? 'sbx' : 'plain'}-${stage}`);
  const r = await runPython({ code: ATTACK, fn: 'escape', cases: [[marker, commandMarker, stage]], timeLimitMs: 10000, ...opts });
  // Give a dynamic import or a command, had one started, time to land.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  return { r, marker, commandMarker };
}

function assertContained({ r, marker, commandMarker }, stage) {
  assert.ok(!fs.existsSync(marker), 'the marker file was written');
  assert.ok(!fs.existsSync(commandMarker), 'the command ran');
  assert.deepEqual(fs.readdirSync(dir), [], 'something was written next to the markers');
  assert.doesNotMatch(r.output, /js\.eval ran|builtins restored, js: True|import js after \(a\) gave/);
  assert.doesNotMatch(r.output, /import (js|jsffi|builtins|sys|__main__|micropython) gave/);
  if (stage === 'b') {
    // Every import is refused by the guard and the run goes on to its end: a wrong value.
    assert.equal(r.status, 'ok', JSON.stringify(r).slice(0, 400));
    assert.deepEqual(r.results, [{ ok: true, value: 0 }]);
    assert.match(r.output, /import js refused ImportError\nimport jsffi refused ImportError/);
    assert.match(r.output, /no js/);
  } else {
    // Rebuilding a closure's code with a foreign object as its cell makes
    // MicroPython write to memory it should not: the run either goes on (a
    // wrong value) or MicroPython stops (crashed). Both score 0 in the core
    // (status ok with a wrong value, or crashed).
    assert.ok(r.status === 'ok' || r.status === 'crashed', JSON.stringify(r).slice(0, 400));
    if (r.status === 'ok') assert.deepEqual(r.results, [{ ok: true, value: 0 }]);
    assert.match(r.output, /^code reachable/);
  }
}

test('the escape, through the re-grade\'s sandboxed process: no js, nothing written, nothing run', async () => {
  const st = await sandboxStatus();
  assert.equal(st.ok, true, st.reason);
  for (const stage of ['a', 'b']) assertContained(await attackThrough({ sandbox: true }, stage), stage);
});

test('the escape, through the same runner without bubblewrap: the JavaScript level alone holds', async () => {
  for (const stage of ['a', 'b']) assertContained(await attackThrough({ sandbox: false }, stage), stage);
});

test('MicroPython\'s js module reaches globalThis until its table is cut, and nothing after', async () => {
  const { loadMicroPython } = await import('@micropython/micropython-webassembly-pyscript/micropython.mjs');
  const { cutForeignFunctions } = await import('../../web/js/python/ffi-cut.js');
  let printed = '';
  const mp = await loadMicroPython({ heapsize: 4 << 20, stdout: (l) => (printed += `${l}\n`), stderr: (l) => (printed += `${l}\n`) });
  globalThis.__poslabEscapeProbe = 'reachable';
  // Control: the unguarded runtime (no harness, no import guard) reaches JavaScript.
  mp.runPython('import js\nprint("before", js.__poslabEscapeProbe, hasattr(js, "eval"))');
  assert.match(printed, /before reachable True/);
  cutForeignFunctions();
  printed = '';
  mp.runPython(String.raw`
import js, jsffi
for name in ('eval', 'globalThis', 'process', '__poslabEscapeProbe', 'Function'):
    print(name, hasattr(js, name))
p = jsffi.to_js([1, 2])
print('constructor', hasattr(p, 'constructor'))
try:
    js.eval('1')
except AttributeError as e:
    print('eval refused')
`);
  assert.match(printed, /eval False\nglobalThis False\nprocess False\n__poslabEscapeProbe False\nFunction False\nconstructor False\neval refused\n/);
  delete globalThis.__poslabEscapeProbe;
});

test('the runtime cuts MicroPython\'s foreign-function table before any student code runs', async () => {
  const vm = await import('node:vm');
  const { pythonWorkerSource } = await import('../../scripts/py-sandbox.mjs');
  const source = await pythonWorkerSource();
  const messages = [];
  let atStart = null;
  const scope = {
    console, performance, TextDecoder, TextEncoder, crypto: globalThis.crypto, setTimeout, clearTimeout, URL, WebAssembly,
    WorkerGlobalScope: function WorkerGlobalScope() {},
    postMessage: (m) => {
      messages.push(m);
      if (m.type === 'started') atStart = scope.proxy_js_ref?.[0];
    },
  };
  scope.self = scope;
  const ctx = vm.createContext(scope);
  vm.runInContext(source, ctx);
  await vm.runInContext('onmessage', ctx)({ data: { type: 'run', code: 'def f():\n  return 7\n', fn: 'f', cases: [[]] } });
  const result = messages.find((m) => m.type === 'result');
  assert.equal(result.status, 'ok');
  assert.deepEqual(JSON.parse(JSON.stringify(result.results)), [{ ok: true, value: 7 }]);
  // When the student's code may start, entry 0 (what `import js` wraps) is no longer the scope.
  const globalOfContext = vm.runInContext('globalThis', ctx);
  assert.notEqual(atStart, globalOfContext);
  assert.equal(typeof atStart, 'function');
  assert.equal(Reflect.ownKeys(atStart).length, 0);
  assert.equal(atStart.eval, undefined);
  assert.equal(Object.getOwnPropertyDescriptor(globalOfContext, 'proxy_js_ref').writable, false);
});
