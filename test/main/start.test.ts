import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { call, tempDir } from '../support/server';
import { logBody } from '../support/factories';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** `npm start` as a user runs it, in a child process; resolves once it prints the sign-in link. */
function start(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ['bin/promptledger.js', 'start', ...args], { cwd: process.cwd(), env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const ready = new Promise<{ url: string; login: string }>((resolve, reject) => {
    const check = () => {
      const url = /promptledger listening on (\S+)/.exec(stdout)?.[1];
      const login = /Open the UI \(signs you in\): (\S+)/.exec(stdout)?.[1];
      if (url && login) resolve({ url, login });
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => reject(new Error(`start exited ${code}: ${stderr}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, ready, exited, output: () => ({ stdout, stderr }) };
}

const withoutDisplay = () => {
  const env: NodeJS.ProcessEnv = { ...process.env, PROMPTLEDGER_API_KEY: '' };
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  delete env.PROMPTLEDGER_DATA_DIR;
  return env;
};

describe('npm start without a display', () => {
  it('says why in one line, serves the UI headless with a sign-in link, and shuts down cleanly on SIGTERM', async () => {
    const dir = tempDir();
    const app = start(['--port', '0', '--data-dir', dir], withoutDisplay());
    const { url, login } = await app.ready;
    const { stderr } = app.output();
    const reasonLines = stderr.split('\n').filter((l) => l.includes('serving the UI headless'));
    expect(reasonLines).toEqual([expect.stringMatching(/^promptledger: no display .* — serving the UI headless\.$/)]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const key = decodeURIComponent(new URL(login).hash.replace(/^#key=/, ''));
    expect(login.startsWith(`${url}/#key=`)).toBe(true);
    const page = await fetch(`${url}/requests`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    const session = await call(url, '/api/public/v2/session', { method: 'POST', key });
    expect(session.status).toBe(200);
    expect((await call(url, '/log-request', { key, body: logBody() })).status).toBe(201);

    app.child.kill('SIGTERM');
    expect(await app.exited).toBe(0);
    const wal = join(dir, 'promptledger.db-wal');
    expect(!existsSync(wal) || statSync(wal).size === 0).toBe(true);
    const db = new Database(join(dir, 'promptledger.db'), { readonly: true });
    expect(db.prepare('SELECT count(*) AS n FROM requests').get()).toEqual({ n: 1 });
    db.close();
  });

  it('goes headless when asked, even with a display, and keeps the key across starts', async () => {
    const dir = tempDir();
    const first = start(['--headless', '--port', '0', '--data-dir', dir], { ...withoutDisplay(), DISPLAY: ':99' });
    const a = await first.ready;
    expect(first.output().stderr).toContain('promptledger: headless mode requested — serving the UI headless.');
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);

    const second = start(['--headless', '--port', '0', '--data-dir', dir], { ...withoutDisplay(), DISPLAY: ':99' });
    const b = await second.ready;
    expect(new URL(b.login).hash).toBe(new URL(a.login).hash);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});
