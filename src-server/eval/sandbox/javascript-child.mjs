// The JavaScript sandbox process (see javascript.ts, which starts it): QuickJS compiled to
// WebAssembly, started by pool.ts under Node's permission model (reads only QuickJS's own package
// files, no writes, no child processes, no workers) with an empty environment. Plain JavaScript,
// so no loader needs read access; the host passes the packages' entry files in argv. One cell at
// a time; the protocol (SandboxJob in, SandboxAnswer out) is declared in pool.ts.
const { coreUrl, variantUrl } = JSON.parse(process.argv.at(-1));
const send = process.send.bind(process);
const on = process.on.bind(process);
// Signals are not confined by the permission model: should a cell ever reach this object, it
// must not be able to signal the server (its parent) or anything else.
process.kill = () => {
  throw new Error('Not available in the sandbox.');
};

const { newQuickJSWASMModuleFromVariant, newVariant, shouldInterruptAfterDeadline } = await import(coreUrl);
const releaseSync = (await import(variantUrl)).default;
// Compiled once, before any cell: each cell instantiates it afresh (below) without reading a file.
const { readFileSync } = await import('node:fs');
const wasmModule = new WebAssembly.Module(readFileSync(new URL('emscripten-module.wasm', variantUrl)));
const PAGE = 65_536;

// Nothing in this realm is reachable from a cell (QuickJS has its own heap and globals); these go
// as well so that a bug in the bridge would still find no process or network.
for (const name of ['process', 'fetch', 'WebSocket', 'EventSource', 'BroadcastChannel', 'require', 'module']) {
  Reflect.deleteProperty(globalThis, name);
}

/**
 * Runs one cell in QuickJS: its own heap and its own globals, and an interrupt handler enforces
 * the time limit. QuickJS's own allocation limit misses some allocations (a loop of
 * `new Array(1e5).fill(1)` reached 160 MB under a 16 MB limit), so each cell also gets a fresh
 * WebAssembly instance over a memory with a hard maximum: a runaway allocation aborts that
 * instance, which is then dropped.
 */
async function runCell(job) {
  const { timeoutMs, memoryBytes } = job.limits;
  // Headroom over the interpreter's limit for its own tables and stack; 16 MiB is the minimum the
  // build starts with.
  const pages = Math.ceil((memoryBytes + 16 * 1024 * 1024) / PAGE);
  try {
    const quickjs = await newQuickJSWASMModuleFromVariant(
      newVariant(releaseSync, { wasmModule, wasmMemory: new WebAssembly.Memory({ initial: 256, maximum: Math.max(256, pages) }) }),
    );
    const runtime = quickjs.newRuntime();
    runtime.setMemoryLimit(memoryBytes);
    runtime.setMaxStackSize(512 * 1024);
    runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + timeoutMs));
    const vm = runtime.newContext();
    const handle = vm.newString(job.input);
    vm.setProp(vm.global, '__input', handle);
    handle.dispose();
    // The code is a function body; the result crosses back as JSON text, so no handle to a
    // sandbox object ever reaches the host.
    const source = `(function () { const __r = (function (data) {\n${job.code}\n})(JSON.parse(__input));
      return __r === undefined ? ['null'] : [JSON.stringify(__r), typeof __r === 'string' ? __r : null]; })()`;
    const result = vm.evalCode(source, 'cell.js');
    let answer;
    if (result.error) {
      answer = describe(job.id, vm.dump(result.error));
      result.error.dispose();
    } else {
      const [text, string] = vm.dump(result.value);
      result.value.dispose();
      answer = typeof text === 'string' ? cut(job, text, string) : { id: job.id, failure: 'not-json' };
    }
    // Freeing a runtime that hit a limit can trip QuickJS's own leak assertion; the instance is
    // discarded either way, so that is not the user's error.
    try {
      vm.dispose();
      runtime.dispose();
    } catch {
      /* the whole instance is dropped */
    }
    return answer;
  } catch (error) {
    return hostFailure(job.id, String(error?.message ?? error));
  }
}

/** What a failure of the WebAssembly instance itself means to the user. */
function hostFailure(id, message) {
  if (/Maximum call stack/i.test(message)) return { id, failure: 'stack' };
  if (/Aborted|memory access out of bounds|Cannot enlarge memory|out of memory/i.test(message)) return { id, failure: 'memory' };
  return { id, error: message };
}

function describe(id, error) {
  const name = typeof error === 'string' ? 'Error' : error?.name ?? 'Error';
  const message = typeof error === 'string' ? error : error?.message ?? String(error);
  if (name === 'InternalError' && /interrupted/i.test(message)) return { id, failure: 'timeout' };
  if (/out of memory/i.test(message)) return { id, failure: 'memory' };
  if (name === 'InternalError' && /stack overflow/i.test(message)) return { id, failure: 'stack' };
  return { id, error: `${name}: ${message}` };
}

/** The value as JSON text, or only the start of it when it is past the output bound (pool.ts cuts it exactly). */
function cut(job, text, string) {
  const limit = job.limits.outputBytes;
  if (text.length <= limit / 3 || Buffer.byteLength(text) <= limit) return { id: job.id, json: text };
  return { id: job.id, cut: (string ?? text).slice(0, limit), bytes: Buffer.byteLength(text) };
}

// Cells run one after another: the next message waits for this one's answer.
let chain = Promise.resolve();
on('message', (job) => {
  chain = chain.then(async () => {
    send({ id: job.id, started: true });
    send(await runCell(job));
  });
});

// One cell before the first real one: WebAssembly compiles lazily, and a first cell in a cold
// process would spend its time limit on that.
await runCell({ id: 0, code: 'return [data, JSON.stringify({ a: [1, "x"] })]', input: '{}', limits: { timeoutMs: 10_000, memoryBytes: 1 << 20, outputBytes: 1 << 20 } });
send({ ready: true });
