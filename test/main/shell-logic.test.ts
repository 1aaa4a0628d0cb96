import { createServer as createNetServer, type Server } from 'node:net';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDataDir } from '../../src-server/data-dir';
import { loadConfig } from '../../src-server/config';
import { knownApiKey } from '../../src-main/data-location';
import { superviseElectron } from '../../src-main/electron-process';
import { chooseLaunchMode, findElectronBinary } from '../../src-main/launch-mode';
import { listenOnFreePort } from '../../src-main/ports';
import { createShutdown } from '../../src-main/shutdown';
import { tempDir } from '../support/server';

/** Holds a port the way another program would. */
function occupy(port = 0): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}
const portOf = (s: Server) => (s.address() as { port: number }).port;
const close = (s: Server) => new Promise<void>((resolve) => s.close(() => resolve()));

describe('port choice', () => {
  it('takes the preferred port when it is free', async () => {
    const probe = await occupy();
    const free = portOf(probe);
    await close(probe);
    const server = await listenOnFreePort((port) => occupy(port), free);
    expect(portOf(server)).toBe(free);
    await close(server);
  });

  it('moves to the next port when the preferred one is taken', async () => {
    const taken = await occupy();
    const tried: number[] = [];
    const server = await listenOnFreePort((port) => {
      tried.push(port);
      return occupy(port);
    }, portOf(taken));
    expect(tried[0]).toBe(portOf(taken));
    expect(portOf(server)).toBeGreaterThan(portOf(taken));
    await Promise.all([close(server), close(taken)]);
  });

  it('gives up after the allowed attempts with a message naming the range', async () => {
    const taken = await occupy();
    await expect(listenOnFreePort((port) => (port === portOf(taken) ? occupy(port) : occupy(portOf(taken))), portOf(taken), 3)).rejects.toThrow(
      new RegExp(`Ports ${portOf(taken)}–${portOf(taken) + 2} are all in use`),
    );
    await close(taken);
  });

  it('does not retry errors other than "in use"', async () => {
    let calls = 0;
    const failure = Object.assign(new Error('permission denied'), { code: 'EACCES' });
    await expect(
      listenOnFreePort(async () => {
        calls++;
        throw failure;
      }, 8420),
    ).rejects.toBe(failure);
    expect(calls).toBe(1);
  });

  it('passes port 0 straight through (the OS picks)', async () => {
    const server = await listenOnFreePort((port) => occupy(port), 0);
    expect(portOf(server)).toBeGreaterThan(0);
    await close(server);
  });
});

describe('data folder and key', () => {
  it('uses PROMPTLEDGER_DATA_DIR when set, else the OS user-data folder', () => {
    expect(loadConfig('start', [], { PROMPTLEDGER_DATA_DIR: '/tmp/pl' }).dataDir).toBe('/tmp/pl');
    expect(loadConfig('start', ['--data-dir', '/tmp/flag'], { PROMPTLEDGER_DATA_DIR: '/tmp/pl' }).dataDir).toBe('/tmp/flag');
    expect(defaultDataDir({ XDG_CONFIG_HOME: '/x' }, 'linux')).toBe('/x/promptledger');
    expect(defaultDataDir({ APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32')).toBe('C:\\Users\\u\\AppData\\Roaming/promptledger');
    expect(defaultDataDir({}, 'darwin')).toMatch(/Library\/Application Support\/promptledger$/);
  });

  it('finds the key in the environment first, then in the api-key file', () => {
    const dir = tempDir();
    expect(knownApiKey(dir, undefined)).toBeUndefined();
    writeFileSync(join(dir, 'api-key'), 'pl_from_file\n');
    expect(knownApiKey(dir, undefined)).toBe('pl_from_file');
    expect(knownApiKey(dir, loadConfig('start', [], { PROMPTLEDGER_API_KEY: 'pl_env' }).apiKey)).toBe('pl_env');
  });
});

describe('launch decision', () => {
  const base = { env: { DISPLAY: ':0' }, platform: 'linux' as const, headlessFlag: false, electronPath: '/opt/electron' };

  it('opens the window when there is a display and a binary', () => {
    expect(chooseLaunchMode(base)).toEqual({ mode: 'electron', electronPath: '/opt/electron' });
    expect(chooseLaunchMode({ ...base, env: { WAYLAND_DISPLAY: 'wayland-0' } }).mode).toBe('electron');
    expect(chooseLaunchMode({ ...base, env: {}, platform: 'darwin' }).mode).toBe('electron');
  });

  it('goes headless, with a reason, without a display, without a binary, or when asked', () => {
    expect(chooseLaunchMode({ ...base, env: {} })).toMatchObject({ mode: 'headless', why: 'no-display', reason: expect.stringContaining('no display') });
    expect(chooseLaunchMode({ ...base, electronPath: null })).toMatchObject({ mode: 'headless', why: 'no-electron' });
    expect(chooseLaunchMode({ ...base, headlessFlag: true })).toMatchObject({ mode: 'headless', why: 'requested' });
    expect(chooseLaunchMode({ ...base, env: { DISPLAY: ':0', PROMPTLEDGER_HEADLESS: '1' } })).toMatchObject({ why: 'requested' });
  });

  it('checks the display before the binary, so a server without a screen never downloads Electron', () => {
    expect(chooseLaunchMode({ ...base, env: {}, electronPath: null })).toMatchObject({ why: 'no-display' });
  });

  it('reads the Electron binary location only when the download completed', () => {
    const pkg = tempDir();
    expect(findElectronBinary(pkg, {})).toBeNull();
    writeFileSync(join(pkg, 'path.txt'), 'electron');
    expect(findElectronBinary(pkg, {})).toBeNull();
    mkdirSync(join(pkg, 'dist'));
    writeFileSync(join(pkg, 'dist', 'electron'), '');
    expect(findElectronBinary(pkg, {})).toBe(join(pkg, 'dist', 'electron'));
  });
});

describe('Electron start supervision', () => {
  const node = (script: string) => spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });

  it('reports ready with the URL from the ready line', async () => {
    const child = node("console.log('loading'); console.log('promptledger listening on http://127.0.0.1:8421'); setTimeout(() => {}, 5000)");
    await expect(superviseElectron(child, 10_000, false)).resolves.toEqual({ ready: true, url: 'http://127.0.0.1:8421' });
    child.kill();
  });

  it('turns a start that dies into its last line of output', async () => {
    const child = node("console.error('warming up'); console.error('Error: better_sqlite3.node was compiled against a different Node.js version'); process.exit(3)");
    const outcome = await superviseElectron(child, 10_000, false);
    expect(outcome).toEqual({ ready: false, reason: expect.stringContaining('compiled against a different Node.js version') });
  });

  it('passes on the message of a server that refused its data dir, marked so headless is not tried', async () => {
    const child = node("console.error('promptledger: The data dir /d is in use by another promptledger server (pid 42).'); process.exit(4)");
    const outcome = await superviseElectron(child, 10_000, false);
    expect(outcome).toEqual({ ready: false, reason: 'The data dir /d is in use by another promptledger server (pid 42).', dataDirRefused: true });
  });

  it('gives up on a start that hangs', async () => {
    const child = node('setTimeout(() => {}, 60000)');
    const outcome = await superviseElectron(child, 300, false);
    expect(outcome).toEqual({ ready: false, reason: expect.stringContaining('did not become ready') });
  });
});

describe('shutdown order', () => {
  it('closes windows, then the server, then exits — once, however many callers', async () => {
    const steps: string[] = [];
    let releaseServer!: () => void;
    const shutdown = createShutdown({
      closeWindows: () => void steps.push('windows'),
      closeServer: () =>
        new Promise<void>((resolve) => {
          steps.push('server:start');
          releaseServer = () => {
            steps.push('server:done');
            resolve();
          };
        }),
      exit: (code) => void steps.push(`exit:${code}`),
    });
    const first = shutdown('SIGTERM');
    const second = shutdown('quit');
    await new Promise((r) => setTimeout(r, 10));
    expect(steps).toEqual(['windows', 'server:start']);
    releaseServer();
    await Promise.all([first, second]);
    expect(steps).toEqual(['windows', 'server:start', 'server:done', 'exit:0']);
  });

  it('still closes the server when closing windows fails, and exits 1 when the server fails to close', async () => {
    const steps: string[] = [];
    const shutdown = createShutdown({
      closeWindows: () => {
        throw new Error('window gone');
      },
      closeServer: async () => {
        steps.push('server');
        throw new Error('disk full');
      },
      exit: (code) => void steps.push(`exit:${code}`),
      log: (m) => void steps.push(`log:${m}`),
    });
    await shutdown();
    expect(steps).toEqual(['log:Closing windows failed: Error: window gone', 'server', 'log:Closing the server failed: Error: disk full', 'exit:1']);
  });
});
