import { newQuickJSWASMModule, newVariant, RELEASE_SYNC, shouldInterruptAfterDeadline } from 'quickjs-emscripten';
import type { SandboxLimits } from './quickjs';

const PAGE = 65_536;

/**
 * Runs one cell in QuickJS compiled to WebAssembly (on the sandbox thread, sandbox-worker.ts):
 * its own heap and its own globals, so there is no `process`, `require`, filesystem or network to
 * reach, and an interrupt handler enforces the time limit. QuickJS's own allocation limit misses
 * some allocations (a loop of `new Array(1e5).fill(1)` reached 160 MB under a 16 MB limit), so
 * each cell also gets a fresh WebAssembly instance over a memory with a hard maximum: a runaway
 * allocation aborts that instance, which is then dropped, and the thread's heap never grows past
 * the bound. A fresh instance costs about 9 ms, small next to the calls a pipeline makes.
 * `input` is the row as JSON text; throws with the message the cell shows.
 */
export async function runQuickJs(code: string, input: string, { timeoutMs, memoryBytes }: SandboxLimits): Promise<unknown> {
  // Headroom over the interpreter's limit for its own tables and stack; 16 MiB is the minimum
  // the build starts with.
  const pages = Math.ceil((memoryBytes + 16 * 1024 * 1024) / PAGE);
  const variant = newVariant(RELEASE_SYNC, { wasmMemory: new WebAssembly.Memory({ initial: 256, maximum: Math.max(256, pages) }) });
  const quickjs = await newQuickJSWASMModule(variant);
  try {
    const runtime = quickjs.newRuntime();
    runtime.setMemoryLimit(memoryBytes);
    runtime.setMaxStackSize(512 * 1024);
    runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + timeoutMs));
    const vm = runtime.newContext();
    const handle = vm.newString(input);
    vm.setProp(vm.global, '__input', handle);
    handle.dispose();
    // The code is a function body; the result crosses back as JSON text, so no handle to a
    // sandbox object ever reaches the host.
    const source = `(function () { const __r = (function (data) {\n${code}\n})(JSON.parse(__input));
      return __r === undefined ? 'null' : JSON.stringify(__r); })()`;
    const result = vm.evalCode(source, 'cell.js');
    let outcome: { ok: true; text: unknown } | { ok: false; error: unknown };
    if (result.error) {
      outcome = { ok: false, error: vm.dump(result.error) };
      result.error.dispose();
    } else {
      outcome = { ok: true, text: vm.dump(result.value) };
      result.value.dispose();
    }
    // Freeing a runtime that hit a limit can trip QuickJS's own leak assertion; the instance
    // is discarded either way, so that is not the user's error.
    try {
      vm.dispose();
      runtime.dispose();
    } catch {
      /* the whole instance is dropped below */
    }
    if (!outcome.ok) throw new Error(describe(outcome.error as never, timeoutMs, memoryBytes));
    if (typeof outcome.text !== 'string') throw new Error('The code returned a value that cannot be turned into JSON.');
    return JSON.parse(outcome.text);
  } catch (error) {
    throw new Error(hostFailure((error as Error).message ?? String(error), memoryBytes));
  }
}

/** Names what a failure of the WebAssembly instance itself means to the user. */
export function hostFailure(message: string, memoryBytes: number): string {
  if (/Maximum call stack/i.test(message)) return 'Stack overflow: the code recursed too deeply.';
  if (/Aborted|memory access out of bounds|Cannot enlarge memory|out of memory/i.test(message) && !/^(Time|Memory) limit|^\w*Error: /.test(message)) {
    return memoryLimitMessage(memoryBytes);
  }
  return message;
}

export function timeLimitMessage(timeoutMs: number): string {
  return `Time limit exceeded: the code ran longer than ${timeoutMs} ms.`;
}

function memoryLimitMessage(memoryBytes: number): string {
  return `Memory limit exceeded: the code used more than ${Math.round(memoryBytes / 1048576)} MB.`;
}

function describe(error: { name?: string; message?: string } | string, timeoutMs: number, memoryBytes: number): string {
  const name = typeof error === 'string' ? 'Error' : error?.name ?? 'Error';
  const message = typeof error === 'string' ? error : error?.message ?? String(error);
  if (name === 'InternalError' && /interrupted/i.test(message)) return timeLimitMessage(timeoutMs);
  if (/out of memory/i.test(message)) return memoryLimitMessage(memoryBytes);
  if (name === 'InternalError' && /stack overflow/i.test(message)) return 'Stack overflow: the code recursed too deeply.';
  return `${name}: ${message}`;
}
