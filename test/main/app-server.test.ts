import { createServer as createNetServer, type Server } from 'node:net';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startAppServer, type AppServer } from '../../src-main/app-server';
import { openApp } from '../../src-server/compose';
import { listenApp } from '../../src-server/server';
import { loadConfig } from '../../src-server/config';
import { openSession } from '../../src-main/session';
import { call, tempDir } from '../support/server';
import { logBody } from '../support/factories';

const running: AppServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.server.close()));
});

async function start(dataDir: string, env: NodeJS.ProcessEnv = {}) {
  const app = await startAppServer({ config: loadConfig('start', [], { PROMPTLEDGER_PORT: '0', PROMPTLEDGER_DATA_DIR: dataDir, ...env }) });
  running.push(app);
  return app;
}

function occupy(): Promise<Server> {
  return new Promise((resolve) => {
    const s = createNetServer();
    s.listen(0, '127.0.0.1', () => resolve(s));
  });
}

describe('the desktop server', () => {
  it('listens on 127.0.0.1 and hands out a login URL whose key opens a session', async () => {
    const app = await start(tempDir());
    expect(app.server.host).toBe('127.0.0.1');
    expect(app.loginUrl).toBe(`${app.server.url}/#key=${app.apiKey}`);
    const session = await openSession(app.server.url, app.apiKey);
    const res = await call(app.server.url, '/api/public/v2/requests', { headers: { authorization: `Bearer ${session.token}` } });
    expect(res.status).toBe(200);
  });

  it('rejects a wrong key when opening a session', async () => {
    const app = await start(tempDir());
    await expect(openSession(app.server.url, 'pl_wrong')).rejects.toThrow(/401/);
  });

  it('moves to the next port on a fresh data folder and still knows the key generated on the failed try', async () => {
    const taken = await occupy();
    const port = (taken.address() as { port: number }).port;
    const dir = tempDir();
    const app = await start(dir, { PROMPTLEDGER_PORT: String(port) });
    expect(app.server.port).toBeGreaterThan(port);
    expect(app.apiKey).toBe(readFileSync(join(dir, 'api-key'), 'utf8').trim());
    expect((await call(app.server.url, '/api/public/v2/api-keys', { key: app.apiKey })).status).toBe(200);
    taken.close();
  });

  it('retries only the listen on a taken port: the data opened once serves the next port', async () => {
    const taken = await occupy();
    const port = (taken.address() as { port: number }).port;
    const dir = tempDir();
    const opened = openApp({ dataDir: dir });
    try {
      await expect(listenApp(opened, { port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
      const server = await listenApp(opened, { port: 0 });
      const key = opened.generatedKey!;
      expect((await call(server.url, '/log-request', { key, body: logBody() })).status).toBe(201);
      await server.close();
    } finally {
      await opened.close();
      taken.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reopens the same data with the saved key, and recovers a deleted key file with a fresh key', async () => {
    const dir = tempDir();
    const first = await start(dir);
    const logged = await call(first.server.url, '/log-request', { key: first.apiKey, body: logBody() });
    expect(logged.status).toBe(201);
    await first.server.close();

    const second = await start(dir);
    expect(second.apiKey).toBe(first.apiKey);
    await second.server.close();

    rmSync(join(dir, 'api-key'));
    const third = await start(dir);
    expect(third.apiKey).not.toBe(first.apiKey);
    expect(readFileSync(join(dir, 'api-key'), 'utf8').trim()).toBe(third.apiKey);
    const list = await call(third.server.url, '/api/public/v2/requests', { key: third.apiKey });
    expect(list.body.items.map((r: { id: number }) => r.id)).toEqual([logged.body.id]);
  });

  it('rejects an invalid PROMPTLEDGER_PORT before touching the data', async () => {
    const dir = join(tempDir(), 'never');
    expect(() => loadConfig('start', [], { PROMPTLEDGER_PORT: '70000', PROMPTLEDGER_DATA_DIR: dir })).toThrow(/Invalid PROMPTLEDGER_PORT/);
    expect(existsSync(dir)).toBe(false);
  });

  it('closing checkpoints the WAL into the database file', async () => {
    const dir = tempDir();
    const app = await start(dir);
    for (let i = 0; i < 20; i++) expect((await call(app.server.url, '/log-request', { key: app.apiKey, body: logBody() })).status).toBe(201);
    await app.server.close();
    const wal = join(dir, 'promptledger.db-wal');
    expect(!existsSync(wal) || statSync(wal).size === 0).toBe(true);
    const db = new Database(join(dir, 'promptledger.db'), { readonly: true });
    expect(db.prepare('SELECT count(*) AS n FROM requests').get()).toEqual({ n: 20 });
    db.close();
  });
});
