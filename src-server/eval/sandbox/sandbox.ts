import { availableParallelism } from 'node:os';
import { createJavaScriptPool } from './javascript';
import { CLOSED, type SandboxLimits, type SandboxScope } from './pool';
import { createPythonPool } from './python';

export type { SandboxLimits, SandboxScope } from './pool';

export interface Sandbox {
  /** Runs a function body that sees `data` and `return`s a JSON value. Throws on user errors and limits. */
  runJavaScript(code: string, data: unknown, limits?: Partial<SandboxLimits>, scope?: SandboxScope): Promise<unknown>;
  /** The same contract in Python: the body of `def cell(data)`, its value turned into JSON. */
  runPython(code: string, data: unknown, limits?: Partial<SandboxLimits>, scope?: SandboxScope): Promise<unknown>;
}

/** The sandbox with its processes; `close()` ends them (queued and running cells are answered with an error). */
export interface SandboxPool extends Sandbox {
  close(): Promise<void>;
}

export interface SandboxPoolOptions {
  /** JavaScript processes alive at once (default: 2 per core, at least 4). */
  processes?: number;
  /** Python processes alive at once (default 3: each holds an interpreter of tens of MB). */
  pythonProcesses?: number;
  /** JavaScript processes one run may hold at once (default 2, or 1 on a single core). */
  threads?: number;
  /** How long past its time limit a JavaScript cell's process may stay silent before it is killed. */
  graceMs?: number;
  /** The same for a Python cell: past the interrupt at its deadline. */
  pythonGraceMs?: number;
  /** An idle process ends after this long (default 30 s). */
  idleMs?: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { timeoutMs: 2_000, memoryBytes: 64 * 1024 * 1024 };

/** Cells called without a scope (tests, tools) share this key's processes. */
const UNSCOPED: SandboxScope = { key: 'unscoped' };

/**
 * Code cells run out of process, in processes confined by Node's permission model (pool.ts), one
 * set per run and language: JavaScript in QuickJS (javascript.ts), Python in pyodide (python.ts).
 * See docs/security.md "Code cells".
 */
export function createSandbox(defaults: SandboxLimits = DEFAULT_SANDBOX_LIMITS, options: SandboxPoolOptions = {}): SandboxPool {
  const cores = availableParallelism();
  const idleMs = options.idleMs ?? 30_000;
  const javascript = createJavaScriptPool({
    maxProcesses: options.processes ?? Math.max(4, 2 * cores),
    perRun: Math.max(1, options.threads ?? Math.min(2, cores)),
    graceMs: options.graceMs ?? 5_000,
    idleMs,
  });
  const python = createPythonPool({ maxProcesses: options.pythonProcesses ?? 3, graceMs: options.pythonGraceMs ?? 1_000, idleMs });
  let closed = false;
  return {
    runJavaScript: (code, data, limits = {}, scope = UNSCOPED) =>
      closed ? Promise.reject(new Error(CLOSED)) : javascript.run(code, data, { ...defaults, ...limits }, scope),
    runPython: (code, data, limits = {}, scope = UNSCOPED) =>
      closed ? Promise.reject(new Error(CLOSED)) : python.run(code, data, { ...defaults, ...limits }, scope),
    async close() {
      closed = true;
      await Promise.all([javascript.close(), python.close()]);
    },
  };
}
