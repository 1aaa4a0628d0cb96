import { Worker } from 'node:worker_threads';

/**
 * Starts the worker `name` that sits beside the caller's module: from source (tsx, tests)
 * `<name>.ts` is loaded through worker-boot.mjs; in the Electron bundle `<name>.js` is its own
 * entry beside the main bundle (electron.vite.config.ts). Pass the caller's `import.meta.url`.
 * URLs are built from variables so Vite does not take them for assets to copy.
 */
export function startWorker(from: string, name: string, workerData?: unknown): Worker {
  if (from.endsWith('.ts')) {
    const source = `./${name}.ts`;
    const boot = './worker-boot.mjs';
    return new Worker(new URL(boot, import.meta.url), { workerData, argv: [new URL(source, from).href] });
  }
  const bundled = `./${name}.js`;
  return new Worker(new URL(bundled, from), { workerData });
}
