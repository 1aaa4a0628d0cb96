import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ChildServer {
  url: string;
  key: string;
  process: ChildProcess;
  output: () => string;
  /** SIGKILL: no shutdown code runs, as in a crash or power cut of the process. */
  kill(): Promise<void>;
  stop(): Promise<number | null>;
}

const root = join(import.meta.dirname, '..', '..');

/**
 * `promptledger serve` (the compiled server) as a separate process, exactly as a user or app would
 * start it; API only unless `args` say otherwise.
 */
export async function startChildServer(dataDir: string, env: Record<string, string> = {}, args = ['--no-ui']): Promise<ChildServer> {
  const child = spawn(process.execPath, [join(root, 'bin', 'promptledger.js'), 'serve', '--port', '0', '--data-dir', dataDir, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 30_000);
    const check = () => {
      const match = /promptledger listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${out}`));
    });
  });
  return {
    url,
    key: env.PROMPTLEDGER_API_KEY ?? readFileSync(join(dataDir, 'api-key'), 'utf8').trim(),
    process: child,
    output: () => out,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
