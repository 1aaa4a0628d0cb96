import { createProcessPool, type ProcessPool } from './pool';
import { packageDir } from './package-dir';

export interface PythonPoolOptions {
  /** Python processes alive at once (each holds pyodide: about 2 s to start, tens of MB). */
  maxProcesses: number;
  graceMs: number;
  idleMs: number;
}

/**
 * Python cells: pyodide in python-child.mjs, one process per run, loaded once and reused by that
 * run's cells, one cell at a time (its cells run in turn: a second interpreter per run would
 * double the start-up and the memory). Reads: pyodide's package directory only.
 */
export function createPythonPool(options: PythonPoolOptions): ProcessPool {
  const pyodideDir = packageDir('pyodide');
  return createProcessPool({
    child: { name: 'python-child', readPaths: [pyodideDir], args: { pyodideDir } },
    maxProcesses: options.maxProcesses,
    perKey: 1,
    graceMs: options.graceMs,
    idleMs: options.idleMs,
    quantumMs: 10_000,
  });
}
