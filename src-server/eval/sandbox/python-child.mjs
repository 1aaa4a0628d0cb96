// The Python sandbox process (see python.ts, which starts it): CPython compiled to WebAssembly
// (pyodide), started by pool.ts under Node's permission model (reads only pyodide's own files, no
// writes, no child processes, no workers) with an empty environment, so nothing a cell reaches,
// through the interpreter's internals or not, can read a host file or a secret. Plain JavaScript,
// so no loader needs read access; the host passes pyodide's location in argv. One cell at a
// time; the protocol (SandboxJob in, SandboxAnswer out) is declared in pool.ts.
const { pyodideDir } = JSON.parse(process.argv.at(-1));
const send = process.send.bind(process);
const on = process.on.bind(process);
const exit = process.exit.bind(process);
// Signals are not confined by the permission model: should a cell ever reach this object, it
// must not be able to signal the server (its parent) or anything else.
process.kill = () => {
  throw new Error('Not available in the sandbox.');
};

// pyodide's NODEFS asks for process.binding('constants'), which the permission model refuses.
const osConstants = (await import('node:os')).constants;
const fsConstants = (await import('node:fs')).constants;
process.binding = (name) => {
  if (name === 'constants') return { os: osConstants, fs: fsConstants };
  throw new Error('Not available in the sandbox.');
};

// The heap may only grow through Emscripten's growMemory, which calls Memory.grow from JS: a
// refusal here makes malloc fail, which CPython raises as MemoryError inside the cell.
let heapCap = Infinity;
const grow = WebAssembly.Memory.prototype.grow;
WebAssembly.Memory.prototype.grow = function (pages) {
  if (this.buffer.byteLength + pages * 65_536 > heapCap) throw new RangeError('Python heap limit');
  return grow.call(this, pages);
};

const { loadPyodide } = await import(new URL('pyodide.mjs', `file://${pyodideDir}/`).href);
const pyodide = await loadPyodide({ indexURL: `${pyodideDir}/`, stdout: () => {}, stderr: () => {} });
const emscripten = pyodide._module;
const baseHeap = emscripten.HEAP8.length;

// CPython polls this "buffer" between bytecodes (reading [0], then writing 0): 2 is SIGINT. The
// event loop is busy while a cell runs, so the deadline is read from the clock here rather than
// set by a timer. One interrupt, then another every 100 ms for a cell that catches
// KeyboardInterrupt (not at every poll: the cell's own clean-up must be able to run).
let deadline = Infinity;
pyodide.setInterruptBuffer({
  get 0() {
    if (Date.now() < deadline) return 0;
    deadline = Date.now() + 100;
    return 2;
  },
  set 0(_) {},
});

// Runs the cell's code as the body of `def __cell(data)`, built from its AST so strings and line
// numbers stay as written. The modules that lead to JavaScript are taken out of sys.modules and
// refused by an import hook while a cell runs (what they would reach is confined anyway).
const runCell = pyodide.runPython(`
import ast, builtins, sys
# Bound here, so a cell that patches the json module breaks only its own values.
from json import dumps as _dumps, loads as _loads

_BLOCKED = {'js', 'pyodide', 'pyodide_js', '_pyodide', '_pyodide_core', 'micropip', 'ctypes', '_ctypes'}

class _Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in _BLOCKED:
            raise ImportError(f"No module named '{name}' (not available in the sandbox)")
        return None

def _run_cell(code, data_json):
    hidden = {k: sys.modules.pop(k) for k in list(sys.modules) if k.split('.')[0] in _BLOCKED}
    hook = _Refuse()
    sys.meta_path.insert(0, hook)
    try:
        tree = ast.parse(code, '<cell>')
        fn = ast.FunctionDef(name='__cell', args=ast.arguments(posonlyargs=[], args=[ast.arg('data')], kwonlyargs=[], kw_defaults=[], defaults=[]),
                             body=tree.body or [ast.Pass()], decorator_list=[], returns=None, type_params=[])
        module = ast.fix_missing_locations(ast.Module(body=[fn], type_ignores=[]))
        scope = {'__name__': '__cell__', '__builtins__': builtins}
        exec(compile(module, '<cell>', 'exec'), scope)
        result = scope['__cell'](_loads(data_json))
        try:
            text = _dumps(result, allow_nan=False)
        except (TypeError, ValueError):
            return ('failure', 'not-json', None)
        return ('ok', text, result if isinstance(result, str) else None)
    except KeyboardInterrupt:
        return ('failure', 'timeout', None)
    except MemoryError:
        return ('failure', 'memory', None)
    except RecursionError:
        return ('failure', 'stack', None)
    except BaseException as e:
        return ('error', f'{type(e).__name__}: {e}' if str(e) else type(e).__name__, None)
    finally:
        if hook in sys.meta_path:
            sys.meta_path.remove(hook)
        sys.modules.update(hidden)

_run_cell
`);

// Defence in depth behind the permission model: nothing in this realm offers a process, the
// network (Node 20's permission model does not confine sockets), or a way to compile JavaScript
// from a string (which would bring back dynamic import()), and pyodide's APIs that mount host
// directories or load packages refuse.
for (const name of ['process', 'fetch', 'WebSocket', 'EventSource', 'BroadcastChannel', 'eval', 'require', 'module']) {
  Reflect.deleteProperty(globalThis, name);
}
const refuse = () => {
  throw new Error('Not available in the sandbox.');
};
// pyodide itself still reads `Function` (instanceof, its prototype), so the constructors stay as
// objects that refuse to be called.
for (const fn of [function () {}, async function () {}, function* () {}, async function* () {}]) {
  const prototype = Object.getPrototypeOf(fn);
  const blocked = new Proxy(prototype.constructor, { apply: refuse, construct: refuse });
  Object.defineProperty(prototype, 'constructor', { value: blocked });
  if (prototype === Function.prototype) Object.defineProperty(globalThis, 'Function', { value: blocked });
}
for (const name of ['mountNodeFS', 'mountNativeFS', 'loadPackage', 'loadPackagesFromImports', 'registerJsModule', 'runPythonAsync', 'runPython', 'pyimport']) {
  Object.defineProperty(pyodide, name, { value: refuse });
}
const fs = pyodide.FS;
for (const name of ['NODEFS', 'NATIVEFS_ASYNC', 'WORKERFS', 'PROXYFS', 'IDBFS']) {
  Reflect.deleteProperty(fs.filesystems, name);
  Reflect.deleteProperty(emscripten, name);
}
const mount = fs.mount.bind(fs);
const memfs = fs.filesystems.MEMFS;
Object.defineProperty(fs, 'mount', { value: (type, ...rest) => (type === memfs ? mount(type, ...rest) : refuse()) });

on('message', (job) => {
  send({ id: job.id, started: true });
  heapCap = Math.max(emscripten.HEAP8.length, baseHeap + job.limits.memoryBytes);
  deadline = Date.now() + job.limits.timeoutMs;
  let answer;
  try {
    const proxy = runCell(job.code, job.input);
    const [kind, text, string] = proxy.toJs();
    proxy.destroy();
    if (kind === 'ok') answer = cut(job, text, string);
    else if (kind === 'failure') answer = { id: job.id, failure: text };
    else answer = { id: job.id, error: text };
  } catch (error) {
    // A failure of the interpreter itself leaves pyodide unusable: the process ends and the pool
    // answers the cell and starts a fresh one.
    send({ id: job.id, crashed: `The Python sandbox stopped: ${String(error?.message).trim().split('\n').at(-1)}` }, () => exit(1));
    return;
  } finally {
    deadline = Infinity;
  }
  send(answer);
});

/** The value as JSON text, or only the start of it when it is past the output bound (pool.ts cuts it exactly). */
function cut(job, text, string) {
  const limit = job.limits.outputBytes;
  if (text.length <= limit / 3 || Buffer.byteLength(text) <= limit) return { id: job.id, json: text };
  return { id: job.id, cut: (string ?? text).slice(0, limit), bytes: Buffer.byteLength(text) };
}

// One cell before the first real one, so its time limit is not spent on first-use costs.
runCell('import json\nreturn json.loads(json.dumps({"a": [1, "x"]}))', '{}').destroy();
send({ ready: true });
