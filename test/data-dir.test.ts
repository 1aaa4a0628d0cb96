import { loadConfig } from '../src-server/config';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAppServer } from '../src-main/app-server';
import { createServer, type RunningServer } from '../src-server/server';
import { startChildServer, type ChildServer } from './support/child-server';
import { logBody } from './support/factories';
import { call, tempDir as makeTempDir } from './support/server';

const modeOf = (path: string) => statSync(path).mode & 0o777;
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Servers, children and dirs a test started; closed and removed even when it fails. */
const running: RunningServer[] = [];
const children: ChildServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
  await Promise.all(children.splice(0).map((c) => c.kill()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = makeTempDir();
  dirs.push(dir);
  return dir;
}

async function start(dataDir: string): Promise<RunningServer> {
  const server = await createServer({ dataDir, port: 0 });
  running.push(server);
  return server;
}

async function stop(server: RunningServer): Promise<void> {
  running.splice(running.indexOf(server), 1);
  await server.close();
}

async function logSome(server: RunningServer, key: string, count: number, text = ''): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await call(server.url, '/log-request', { key, body: logBody({ tags: [`n${i}`], metadata: { pad: text } }) });
    expect(res.status).toBe(201);
  }
}

describe('file modes', () => {
  it('creates the data dir 0700 and the database, its WAL and SHM, and the key files 0600', async () => {
    const dataDir = join(tempDir(), 'fresh', 'data');
    const server = await start(dataDir);
    await logSome(server, server.generatedKey!, 1);
    const db = 'promptledger.db';
    expect(modeOf(dataDir).toString(8)).toBe('700');
    for (const file of [db, `${db}-wal`, `${db}-shm`, 'api-key', 'session-secret', 'server.lock', 'server.pid']) {
      expect({ file, mode: modeOf(join(dataDir, file)).toString(8) }).toEqual({ file, mode: '600' });
    }
  });

  it('tightens a data dir and files an earlier start left readable by others', async () => {
    const dataDir = tempDir();
    const first = await start(dataDir);
    await logSome(first, first.generatedKey!, 1);
    await stop(first);
    const db = join(dataDir, 'promptledger.db');
    // What an older version under umask 022 left: everything world-readable, a WAL from a crash.
    writeFileSync(`${db}-wal`, '');
    for (const file of [db, `${db}-wal`, join(dataDir, 'api-key'), join(dataDir, 'session-secret')]) chmodSync(file, 0o644);
    chmodSync(dataDir, 0o755);

    const second = await start(dataDir);
    await logSome(second, readFileSync(join(dataDir, 'api-key'), 'utf8').trim(), 1);
    expect(modeOf(dataDir).toString(8)).toBe('700');
    for (const file of [db, `${db}-wal`, `${db}-shm`, join(dataDir, 'api-key'), join(dataDir, 'session-secret')]) {
      expect({ file, mode: modeOf(file).toString(8) }).toEqual({ file, mode: '600' });
    }
  });
});

describe('one server per data dir', () => {
  it('refuses a second createServer on the same dir, naming the dir and the holder, until the first closes', async () => {
    const dataDir = tempDir();
    const first = await start(dataDir);
    const refused = createServer({ dataDir, port: 0 });
    await expect(refused).rejects.toThrow(new RegExp(`data dir ${escape(dataDir)} is in use .*pid ${process.pid}`));
    // The refused start left the holder's files and service alone.
    expect(readFileSync(join(dataDir, 'server.pid'), 'utf8').trim()).toBe(String(process.pid));
    expect((await call(first.url, '/health')).status).toBe(200);
    await stop(first);
    expect(existsSync(join(dataDir, 'server.pid'))).toBe(false);
    const next = await start(dataDir);
    expect((await call(next.url, '/health')).status).toBe(200);
  });

  it('makes a second `serve` process exit non-zero with the dir and the first one\'s pid', async () => {
    const dataDir = tempDir();
    const first = await startChildServer(dataDir);
    children.push(first);
    const second = await runCli(['serve', '--port', '0', '--data-dir', dataDir]);
    expect(second.code).not.toBe(0);
    expect(second.output).toContain(`The data dir ${dataDir} is in use by another promptledger server (pid ${first.process.pid})`);
    // The first server was not disturbed: it still answers with its key.
    expect((await call(first.url, '/api/public/v2/requests', { key: first.key })).status).toBe(200);
  });

  it('refuses the desktop app\'s server (startAppServer) the same way, without trying other ports', async () => {
    const dataDir = tempDir();
    await start(dataDir);
    await expect(startAppServer({ config: loadConfig('start', [], { PROMPTLEDGER_PORT: '0', PROMPTLEDGER_DATA_DIR: dataDir }) })).rejects.toThrow(
      new RegExp(`data dir ${escape(dataDir)} is in use .*pid ${process.pid}`),
    );
  });

  it('takes over the lock of a holder that died (SIGKILL) without a clean shutdown', async () => {
    const dataDir = tempDir();
    const crashed = await startChildServer(dataDir);
    const deadPid = crashed.process.pid!;
    await crashed.kill();
    // The dead holder's pid file is still there: it names a process that no longer exists.
    expect(readFileSync(join(dataDir, 'server.pid'), 'utf8').trim()).toBe(String(deadPid));
    expect(() => process.kill(deadPid, 0)).toThrow();
    const next = await start(dataDir);
    expect((await call(next.url, '/health')).status).toBe(200);
    expect(readFileSync(join(dataDir, 'server.pid'), 'utf8').trim()).toBe(String(process.pid));
  });
});

describe('a damaged database', () => {
  const refusal = (file: string) => new RegExp(`database ${escape(file)} is damaged[\\s\\S]*restore[\\s\\S]*\\.recover`);

  async function filledDatabase(): Promise<{ dataDir: string; file: string }> {
    const dataDir = tempDir();
    const server = await start(dataDir);
    await logSome(server, server.generatedKey!, 40, 'x'.repeat(3000));
    await stop(server);
    return { dataDir, file: join(dataDir, 'promptledger.db') };
  }

  it('refuses to start on a file that is not a database, naming it, and leaves it as it was', async () => {
    const dataDir = tempDir();
    const file = join(dataDir, 'promptledger.db');
    const garbage = Buffer.alloc(8192, 'not a database ');
    writeFileSync(file, garbage);
    await expect(createServer({ dataDir, port: 0 })).rejects.toThrow(refusal(file));
    expect(readFileSync(file).equals(garbage)).toBe(true);
    // The refused start released the data dir.
    writeFileSync(file, '');
    await start(dataDir);
  });

  it('refuses a truncated file', async () => {
    const { dataDir, file } = await filledDatabase();
    truncateSync(file, Math.floor(statSync(file).size / 2));
    await expect(createServer({ dataDir, port: 0 })).rejects.toThrow(refusal(file));
  });

  it('refuses a file with one overwritten page, quoting what quick_check found', async () => {
    const { dataDir, file } = await filledDatabase();
    const pageSize = readFileSync(file).readUInt16BE(16);
    const pages = statSync(file).size / pageSize;
    const fd = openSync(file, 'r+');
    // A page in the middle: the requests table's b-tree, overwritten as a bad sector or a torn
    // write would leave it.
    writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, Math.floor(pages / 2) * pageSize);
    closeSync(fd);
    await expect(createServer({ dataDir, port: 0 })).rejects.toThrow(/PRAGMA quick_check found: /);
    await expect(createServer({ dataDir, port: 0 })).rejects.toThrow(refusal(file));
  });

  it('trusts a file unchecked only after a clean close: a running server (which may yet crash) has no stamp', async () => {
    const dataDir = tempDir();
    const stamp = join(dataDir, 'clean-shutdown');
    const first = await start(dataDir);
    expect(existsSync(stamp)).toBe(false);
    await stop(first);
    expect(existsSync(stamp)).toBe(true);
    await start(dataDir);
    expect(existsSync(stamp)).toBe(false);
  });

  it('makes `serve` exit non-zero with the message', async () => {
    const dataDir = tempDir();
    const file = join(dataDir, 'promptledger.db');
    writeFileSync(file, Buffer.alloc(4096, 'garbage '));
    const result = await runCli(['serve', '--port', '0', '--data-dir', dataDir]);
    expect(result.code).toBe(1);
    expect(result.output).toMatch(refusal(file));
  });
});

describe('upload spools', () => {
  it('removes the spool of an upload a crash cut short at the next start, and nothing else', async () => {
    const dataDir = tempDir();
    const child = await startChildServer(dataDir);
    children.push(child);
    const group = await call(child.url, '/api/public/v2/dataset-groups', { key: child.key, body: { name: 'spool' } });
    expect(group.status).toBe(201);
    // An upload still arriving when the server dies: its decoded part is on disk.
    const req = request(`${child.url}/api/public/v2/dataset-versions/from-file`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': child.key, 'content-length': '10000000' },
    });
    req.on('error', () => {});
    req.write(`{"dataset_group_id": ${group.body.dataset_group.id}, "file_name": "a.csv", "file_content_base64": "${Buffer.from('a\n1\n'.repeat(20_000)).toString('base64')}`);
    const uploads = join(dataDir, 'uploads');
    const spooled = () => readdirSync(uploads).flatMap((d) => readdirSync(join(uploads, d)).map((f) => statSync(join(uploads, d, f)).size));
    await expect.poll(() => spooled().reduce((a, b) => a + b, 0), { timeout: 20_000 }).toBeGreaterThan(0);
    await child.kill();
    req.destroy();
    mkdirSync(join(dataDir, 'mine'));
    writeFileSync(join(dataDir, 'mine', 'notes.txt'), 'keep me');

    await start(dataDir);
    expect(readdirSync(uploads)).toEqual([]);
    expect(readFileSync(join(dataDir, 'mine', 'notes.txt'), 'utf8')).toBe('keep me');
  });
});

const root = join(import.meta.dirname, '..');

/** The CLI run to its end: exit code and everything it printed. */
function runCli(args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [join(root, 'bin', 'promptledger.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  // A server that starts when it should have refused would run forever: stop it, and fail.
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}
