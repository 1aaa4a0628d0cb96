// The Python sandbox thread (see python.ts for the pool): CPython compiled to WebAssembly
// (pyodide), loaded once and reused, one cell at a time, each with a fresh globals dict.
import { parentPort, workerData } from 'node:worker_threads';
import { loadPyodide } from 'pyodide';
import { timeLimitMessage } from './quickjs-run';
import type { SandboxAnswer, SandboxJob } from './sandbox-worker';

const port = parentPort!;
const { interrupt } = workerData as { interrupt: SharedArrayBuffer };

// The heap may only grow through Emscripten's growMemory, which calls Memory.grow from JS: a
// refusal here makes malloc fail, which CPython raises as MemoryError inside the cell. This is a
// hard bound on the thread's Python heap, unlike a check after the fact.
let heapCap = Infinity;
const grow = WebAssembly.Memory.prototype.grow;
WebAssembly.Memory.prototype.grow = function (this: WebAssembly.Memory, pages: number) {
  if (this.buffer.byteLength + pages * 65_536 > heapCap) throw new RangeError('Python heap limit');
  return grow.call(this, pages);
};

const pyodide = await loadPyodide({ stdout: () => {}, stderr: () => {} });
pyodide.setInterruptBuffer(new Int32Array(interrupt));
// Emscripten's module object, not in pyodide's public types.
const emscripten = (pyodide as unknown as { _module: Record<string, unknown> & { HEAP8: Int8Array } })._module;
const baseHeap = emscripten.HEAP8.length;

// Runs the cell's code as the body of `def __cell(data)`, built from its AST so strings and line
// numbers stay as written. The modules that lead to JavaScript (and through it to the host) are
// taken out of sys.modules and refused by an import hook while a cell runs; the realm below is
// stripped as well, should a reference leak through some other object.
const runCell = pyodide.runPython(`
import ast, builtins, json, sys

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
        result = scope['__cell'](json.loads(data_json))
        try:
            return ('ok', json.dumps(result, allow_nan=False))
        except (TypeError, ValueError):
            return ('error', 'The code returned a value that cannot be turned into JSON.')
    except KeyboardInterrupt:
        return ('timeout', '')
    except MemoryError:
        return ('memory', '')
    except RecursionError:
        return ('error', 'Stack overflow: the code recursed too deeply.')
    except BaseException as e:
        return ('error', f'{type(e).__name__}: {e}' if str(e) else type(e).__name__)
    finally:
        if hook in sys.meta_path:
            sys.meta_path.remove(hook)
        sys.modules.update(hidden)

_run_cell
`) as (code: string, input: string) => { toJs(): [string, string]; destroy(): void };

// Nothing in this realm may reach the host, whatever Python gets hold of: no process, no network,
// no way to compile JavaScript from a string (which would bring back dynamic import()), and no
// pyodide API that mounts host directories or loads packages from disk.
for (const name of ['process', 'fetch', 'WebSocket', 'EventSource', 'BroadcastChannel', 'eval', 'require', 'module']) {
  Reflect.deleteProperty(globalThis, name);
}
const refuse = (): never => {
  throw new Error('Not available in the sandbox.');
};
// pyodide itself still reads `Function` (instanceof, its prototype), so the constructors stay as
// objects that refuse to be called.
for (const fn of [function () {}, async function () {}, function* () {}, async function* () {}]) {
  const prototype = Object.getPrototypeOf(fn) as { constructor: object };
  const blocked = new Proxy(prototype.constructor, { apply: refuse, construct: refuse });
  Object.defineProperty(prototype, 'constructor', { value: blocked });
  if (prototype === Function.prototype) Object.defineProperty(globalThis, 'Function', { value: blocked });
}
for (const name of ['mountNodeFS', 'mountNativeFS', 'loadPackage', 'loadPackagesFromImports', 'registerJsModule', 'runPythonAsync', 'runPython', 'pyimport']) {
  Object.defineProperty(pyodide, name, { value: refuse });
}
const fs = pyodide.FS as unknown as { filesystems: Record<string, unknown>; mount: (type: unknown, ...rest: unknown[]) => unknown };
for (const name of ['NODEFS', 'NATIVEFS_ASYNC', 'WORKERFS', 'PROXYFS', 'IDBFS']) {
  Reflect.deleteProperty(fs.filesystems, name);
  Reflect.deleteProperty(emscripten, name);
}
// The in-memory filesystem only: NODEFS (the host's files) may still be reachable some other way.
const mount = fs.mount.bind(fs);
const memfs = fs.filesystems.MEMFS;
Object.defineProperty(fs, 'mount', { value: (type: unknown, ...rest: unknown[]) => (type === memfs ? mount(type, ...rest) : refuse()) });

const flag = new Int32Array(interrupt);

port.on('message', (job: SandboxJob) => {
  Atomics.store(flag, 0, 0);
  port.postMessage({ id: job.id, started: true } satisfies SandboxAnswer);
  heapCap = Math.max(emscripten.HEAP8.length, baseHeap + job.limits.memoryBytes);
  let answer: SandboxAnswer;
  try {
    const proxy = runCell(job.code, job.input);
    const [kind, text] = proxy.toJs();
    proxy.destroy();
    if (kind === 'ok') answer = { id: job.id, value: JSON.parse(text) };
    else if (kind === 'timeout') answer = { id: job.id, error: timeLimitMessage(job.limits.timeoutMs) };
    else if (kind === 'memory') answer = { id: job.id, error: `Memory limit exceeded: the code used more than ${Math.round(job.limits.memoryBytes / 1048576)} MB.` };
    else answer = { id: job.id, error: text };
  } catch (error) {
    // A failure of the interpreter itself (a fatal error leaves pyodide unusable): thrown out of
    // the thread, which the pool answers the cell with before it starts a fresh thread.
    throw new Error(`The Python sandbox stopped: ${String((error as Error).message).trim().split('\n').at(-1)}`);
  }
  port.postMessage(answer);
});
