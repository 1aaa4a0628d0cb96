import { Worker } from 'node:worker_threads';

/** How to start the entry `name` that sits beside a module, compiled or from source. */
export interface EntryPoint {
  /** The module to start: `<name>.js`, or worker-boot.mjs when running from source. */
  url: URL;
  /** Extra argv: from source, the TypeScript entry worker-boot.mjs loads through tsx. */
  argv: string[];
}

/**
 * Where the entry `name` beside the caller's module is: compiled (out/main/, the production
 * runtime, build/build.mjs lists every entry) it is `<name>.js` next to the calling bundle;
 * from source (tests under vitest, benches under tsx) `<name>.ts` is loaded through
 * worker-boot.mjs, which registers tsx first. Pass the caller's `import.meta.url`. URLs are built
 * from variables so bundlers do not take them for assets to copy.
 */
export function entryPoint(from: string, name: string): EntryPoint {
  if (from.endsWith('.ts')) {
    const source = `./${name}.ts`;
    const boot = './worker-boot.mjs';
    return { url: new URL(boot, import.meta.url), argv: [new URL(source, from).href] };
  }
  const compiled = `./${name}.js`;
  return { url: new URL(compiled, from), argv: [] };
}

/** Starts the worker thread `name` beside the caller's module (see entryPoint). */
export function startWorker(from: string, name: string, workerData?: unknown): Worker {
  const { url, argv } = entryPoint(from, name);
  return new Worker(url, { workerData, argv });
}
