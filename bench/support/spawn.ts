import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { BENCH_KEY } from './seed';

export const root = join(import.meta.dirname, '..', '..');

/**
 * Starts the shipped server (`bin/promptledger.js serve`: the compiled code in out/, rebuilt first if
 * the sources changed) on `dataDir` with the bench's API key; resolves once it prints its ready line.
 * For figures that should be the product's: under tsx every function keeps its name at a cost
 * (~25 µs of the HTTP thread per logged request, docs/performance.md). `env` is added to this
 * process's environment (say, a provider's base URL); BENCH_NODE_ARGS go to its node, and
 * BENCH_ECHO=1 shows its stdout.
 */
export async function startShippedServer(dataDir: string, env: Record<string, string> = {}): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), join(root, 'bin', 'promptledger.js'), 'serve', '--no-ui', '--port', '0', '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
    cwd: root,
    env: { ...process.env, PROMPTLEDGER_API_KEY: BENCH_KEY, ...env },
  });
  if (process.env.BENCH_ECHO === '1') child.stdout!.pipe(process.stderr);
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  return {
    url,
    child,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Starts bench-server.ts on `dataDir`; resolves once it prints the ready line with the server's URL
 * and the URL of the no-op app beside it (POST /bench/noop, the same Koa stack with no work).
 */
export async function startBenchServer(dataDir: string): Promise<{ url: string; noopUrl: string; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), '--import', 'tsx', join(root, 'bench', 'support', 'bench-server.ts'), dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
    cwd: root,
  });
  const [url, noopUrl] = await new Promise<[string, string]>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\S+)/.exec(out);
      const noop = /no-op app on (\S+)/.exec(out);
      if (m && noop) resolve([m[1], noop[1]]);
    });
    child.once('exit', (code) => reject(new Error(`bench server exited ${code}`)));
  });
  return {
    url,
    noopUrl,
    child,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Times `fn` `n` times sequentially after a warm-up; returns p50/p95 in ms. */
export async function timeIt(n: number, fn: (i: number) => Promise<unknown>) {
  for (let i = 0; i < Math.min(5, n); i++) await fn(i);
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p95: percentile(samples, 95), max: samples[samples.length - 1] };
}

export const fmt = (ms: number) => `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
