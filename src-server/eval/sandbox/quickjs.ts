import { availableParallelism } from 'node:os';
import { CLOSED, createWorkerPool } from './worker-pool';

export interface SandboxLimits {
  timeoutMs: number;
  memoryBytes: number;
}

export interface Sandbox {
  /** Runs a function body that sees `data` and `return`s a JSON value. Throws on user errors and limits. */
  runJavaScript(code: string, data: unknown, limits?: Partial<SandboxLimits>): Promise<unknown>;
  /** The same contract in Python: the body of `def cell(data)`, its value turned into JSON. */
  runPython(code: string, data: unknown, limits?: Partial<SandboxLimits>): Promise<unknown>;
}

/** The sandbox with its threads; `close()` ends them (queued and running cells are answered with an error). */
export interface SandboxPool extends Sandbox {
  close(): Promise<void>;
}

export interface SandboxPoolOptions {
  /** JavaScript threads running cells at once (default: 2, or 1 on a single core). */
  threads?: number;
  /** How long past its time limit a JavaScript cell's thread may stay silent before it is replaced. */
  graceMs?: number;
  /** The same for a Python cell: past the cooperative interrupt at its deadline. */
  pythonGraceMs?: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { timeoutMs: 2_000, memoryBytes: 64 * 1024 * 1024 };

/**
 * JavaScript cells run in QuickJS (quickjs-run.ts) on a small pool of threads (sandbox-worker.ts);
 * Python cells in pyodide on one warm thread of their own (python-worker.ts), started on the first
 * Python cell (about 2 s) and reused. See worker-pool.ts for how runaway threads are replaced.
 */
export function createSandbox(defaults: SandboxLimits = DEFAULT_SANDBOX_LIMITS, options: SandboxPoolOptions = {}): SandboxPool {
  const javascript = createWorkerPool({
    worker: 'sandbox-worker',
    size: Math.max(1, options.threads ?? Math.min(2, availableParallelism())),
    graceMs: options.graceMs ?? 5_000,
  });
  // One thread: pyodide's heap is tens of MB and its start-up seconds, so cells share a warm one.
  const python = createWorkerPool({ worker: 'python-worker', size: 1, graceMs: options.pythonGraceMs ?? 1_000, interrupt: true });
  let closed = false;
  return {
    runJavaScript: (code, data, limits = {}) => (closed ? Promise.reject(new Error(CLOSED)) : javascript.run(code, data, { ...defaults, ...limits })),
    runPython: (code, data, limits = {}) => (closed ? Promise.reject(new Error(CLOSED)) : python.run(code, data, { ...defaults, ...limits })),
    async close() {
      closed = true;
      await Promise.all([javascript.close(), python.close()]);
    },
  };
}
