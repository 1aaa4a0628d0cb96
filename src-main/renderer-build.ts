import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface RendererBuild {
  /** The repository root (holds src-renderer/ and node_modules/). */
  root: string;
  /** Where the built UI goes; `out/renderer` is where electron-vite puts it too. */
  outDir?: string;
  log?: (message: string) => void;
}

const STAMP = '.built-at';
const LOCK_STALE_MS = 5 * 60_000;

/** Newest modification time under a folder (the renderer's sources). */
function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

export function rendererIsStale(root: string, outDir: string): boolean {
  const stamp = join(outDir, STAMP);
  if (!existsSync(stamp) || !existsSync(join(outDir, 'index.html'))) return true;
  return newestMtime(join(root, 'src-renderer')) > statSync(stamp).mtimeMs;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Builds the UI when it is missing or older than its sources, so `npm start` and `npm test` work
 * on a clean clone. Test files run in parallel processes, so one builds under a lock directory
 * (mkdir is atomic) while the others wait, and the result appears by rename, never half-written.
 */
export async function ensureRendererBuilt({ root, outDir = join(root, 'out', 'renderer'), log }: RendererBuild): Promise<string> {
  if (!rendererIsStale(root, outDir)) return outDir;
  const lock = `${outDir}.lock`;
  mkdirSync(dirname(outDir), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > LOCK_STALE_MS) rmSync(lock, { recursive: true, force: true });
      await sleep(250);
    }
  }
  try {
    if (!rendererIsStale(root, outDir)) return outDir;
    log?.('Building the UI…');
    const started = Date.now();
    const tmp = `${outDir}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
    const result = spawnSync(
      process.execPath,
      [vite, 'build', '--config', join(root, 'src-renderer', 'vite.config.ts'), '--outDir', tmp, '--emptyOutDir', '--logLevel', 'warn'],
      // Test runners set NODE_ENV=test, which would make Vite bundle React's development build
      // (measured: ~4× slower renders); the UI is always built for production.
      { cwd: root, encoding: 'utf8', env: { ...process.env, NODE_ENV: 'production' } },
    );
    if (result.status !== 0) {
      rmSync(tmp, { recursive: true, force: true });
      throw new Error(`Building the UI failed: ${(result.stderr || result.stdout || String(result.error)).trim()}`);
    }
    writeFileSync(join(tmp, STAMP), new Date().toISOString());
    rmSync(outDir, { recursive: true, force: true });
    renameSync(tmp, outDir);
    log?.(`UI built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return outDir;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
