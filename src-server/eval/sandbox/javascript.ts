import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createProcessPool, type ProcessPool } from './pool';
import { packageDir } from './package-dir';

export interface JavaScriptPoolOptions {
  maxProcesses: number;
  /** Processes one run may hold at once. */
  perRun: number;
  graceMs: number;
  idleMs: number;
}

/**
 * JavaScript cells: QuickJS in javascript-child.mjs, processes per run (a fresh QuickJS instance
 * per cell inside them). Reads: the QuickJS core and its one release build, nothing else of
 * quickjs-emscripten (whose index would load every build variant).
 */
export function createJavaScriptPool(options: JavaScriptPoolOptions): ProcessPool {
  const core = packageDir('quickjs-emscripten-core');
  const ffiTypes = packageDir('@jitl/quickjs-ffi-types');
  const variant = packageDir('@jitl/quickjs-wasmfile-release-sync');
  return createProcessPool({
    child: {
      name: 'javascript-child',
      readPaths: [core, ffiTypes, variant],
      args: { coreUrl: pathToFileURL(join(core, 'dist/index.mjs')).href, variantUrl: pathToFileURL(join(variant, 'dist/index.mjs')).href },
    },
    maxProcesses: options.maxProcesses,
    perKey: options.perRun,
    graceMs: options.graceMs,
    idleMs: options.idleMs,
    quantumMs: 2_000,
  });
}
