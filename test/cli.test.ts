import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../build/build.mjs';
import { ensureRendererBuilt } from '../src-main/renderer-build';
import { DEFAULT_MAX_BODY_BYTES, loadConfig } from '../src-server/config';
import { startChildServer } from './support/child-server';
import { call, tempDir } from './support/server';
import { logBody } from './support/factories';

const ROOT = join(import.meta.dirname, '..');

/** Runs the real CLI to its exit; a bad setting must stop it before it listens. */
function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'promptledger.js'), ...args], {
    env: { ...process.env, PROMPTLEDGER_HEADLESS: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe.concurrent('bad settings stop the CLI with one line naming the flag or variable', () => {
  const cases: Array<{ args?: string[]; env?: Record<string, string>; message: RegExp; start?: true }> = [
    { args: ['--max-body-bytes', 'abc'], message: /^promptledger: Invalid --max-body-bytes "abc": use a whole number of bytes greater than 0\.$/, start: true },
    { args: ['--max-body-bytes', '0'], message: /Invalid --max-body-bytes "0"/ },
    { args: ['--max-body-bytes=-5'], message: /Invalid --max-body-bytes "-5"/ },
    { env: { PROMPTLEDGER_MAX_BODY_BYTES: '1.5' }, message: /Invalid PROMPTLEDGER_MAX_BODY_BYTES "1\.5"/ },
    { env: { PROMPTLEDGER_DATA_DIR: '' }, message: /^promptledger: Invalid PROMPTLEDGER_DATA_DIR "": use a folder path/, start: true },
    { args: ['--data-dir', ''], message: /Invalid --data-dir ""/ },
    { args: ['--port', '65536'], message: /^promptledger: Invalid --port "65536": use a whole number from 0 to 65535/, start: true },
    { env: { PROMPTLEDGER_PORT: 'http' }, message: /Invalid PROMPTLEDGER_PORT "http"/ },
    { env: { PROMPTLEDGER_EVAL_CONCURRENCY: '0' }, message: /Invalid PROMPTLEDGER_EVAL_CONCURRENCY "0"/ },
    { args: ['--colour'], message: /^promptledger: Unknown option '--colour'/ },
  ];
  // Built once here, so no start below prints a build line of its own.
  beforeAll(() => ensureBuilt({ root: ROOT }), 300_000);

  // Every case through `serve`; `start` reads the same module, so a few through it too.
  for (const { args = [], env = {}, message, start } of cases) {
    for (const command of start ? ['serve', 'start'] : ['serve']) {
      // Concurrent tests must assert through their own `expect`.
      it(`${command} ${args.join(' ')} ${JSON.stringify(env)}`, async ({ expect }) => {
        const dir = join(tempDir(), 'never');
        const result = await runCli([command, ...args], { PROMPTLEDGER_DATA_DIR: dir, ...env });
        expect(result.code).toBe(1);
        expect(result.stdout).toBe('');
        const lines = result.stderr.trim().split('\n');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(message);
        expect(existsSync(dir)).toBe(false);
      });
    }
  }

  it('accepts each limit at its bound', ({ expect }) => {
    const env = { PROMPTLEDGER_DATA_DIR: '/tmp/x' };
    expect(loadConfig('serve', ['--max-body-bytes', '1', '--port', '65535', '--eval-concurrency', '1000'], env)).toMatchObject({
      maxBodyBytes: 1,
      port: 65535,
      evalConcurrency: 1000,
    });
    expect(loadConfig('serve', ['--port', '0'], env).port).toBe(0);
    expect(() => loadConfig('serve', ['--eval-concurrency', '1001'], env)).toThrow(/Invalid --eval-concurrency "1001"/);
    expect(loadConfig('serve', [], env).maxBodyBytes).toBe(DEFAULT_MAX_BODY_BYTES);
    // The flag wins over the variable, which wins over the default.
    expect(loadConfig('serve', ['--port', '9000'], { ...env, PROMPTLEDGER_PORT: '9001' }).port).toBe(9000);
    expect(loadConfig('serve', [], { ...env, PROMPTLEDGER_PORT: '9001' }).port).toBe(9001);
  });
});

describe('promptledger serve', () => {
  it('applies --max-body-bytes: a body one byte past it is refused', async () => {
    const body = JSON.stringify(logBody());
    const server = await startChildServer(tempDir(), {}, ['--no-ui', '--max-body-bytes', String(Buffer.byteLength(body))]);
    try {
      const headers = { 'content-type': 'application/json', 'x-api-key': server.key };
      expect((await fetch(`${server.url}/log-request`, { method: 'POST', headers, body })).status).toBe(201);
      expect((await fetch(`${server.url}/log-request`, { method: 'POST', headers, body: `${body} ` })).status).toBe(413);
    } finally {
      await server.stop();
    }
  });

  it('serves the UI at the URL it prints, and only the API with --no-ui', async () => {
    await ensureRendererBuilt({ root: ROOT });
    const html = { accept: 'text/html' };
    const withUi = await startChildServer(tempDir(), {}, []);
    try {
      const page = await fetch(`${withUi.url}/`, { headers: html });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="root">');
      expect(withUi.output()).toContain(`Open the UI: ${withUi.url}/`);
    } finally {
      await withUi.stop();
    }
    const apiOnly = await startChildServer(tempDir(), {}, ['--no-ui']);
    try {
      const page = await fetch(`${apiOnly.url}/`, { headers: html });
      expect(page.status).toBe(404);
      expect(await page.json()).toMatchObject({ success: false });
      expect((await call(apiOnly.url, '/health', { key: null })).status).toBe(200);
    } finally {
      await apiOnly.stop();
    }
  });
});
