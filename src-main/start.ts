import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { dataFiles } from '../src-server/data-dir';
import { startAppServer } from './app-server';
import { resolveDataDir } from './data-location';
import { superviseElectron } from './electron-process';
import { chooseLaunchMode, findElectronBinary, lastLine, type LaunchMode } from './launch-mode';
import { ensureRendererBuilt } from './renderer-build';
import { createShutdown } from './shutdown';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ELECTRON_DIR = join(ROOT, 'node_modules', 'electron');
/** Electron's own installer downloads ~100 MB; offline it fails fast, a slow link gets this long. */
const INSTALL_TIMEOUT_MS = 180_000;

/**
 * `promptledger start` (`npm start`): the desktop window when Electron can run here, else the
 * same UI served headless with the URL to open, after one line saying why.
 */
export async function runStart(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { headless: { type: 'boolean' }, port: { type: 'string' }, 'data-dir': { type: 'string' } },
    allowPositionals: true,
  });
  const runEnv: NodeJS.ProcessEnv = {
    ...env,
    ...(values.port !== undefined ? { PROMPTLEDGER_PORT: values.port } : {}),
    ...(values['data-dir'] !== undefined ? { PROMPTLEDGER_DATA_DIR: values['data-dir'] } : {}),
  };
  const facts = { env: runEnv, platform: process.platform, headlessFlag: values.headless ?? false };
  let mode = chooseLaunchMode({ ...facts, electronPath: findElectronBinary(ELECTRON_DIR, runEnv) });
  if (mode.mode === 'headless' && mode.why === 'no-electron') {
    mode = chooseLaunchMode({ ...facts, electronPath: installElectron() });
  }

  const staticDir = await ensureRendererBuilt({ root: ROOT, log: (m) => console.error(m) });
  if (mode.mode === 'electron') {
    const failure = await runElectron(mode, runEnv);
    if (!failure) return;
    console.error(`promptledger: ${failure} — serving the UI headless instead.`);
  } else {
    console.error(`promptledger: ${mode.reason} — serving the UI headless.`);
  }
  await runHeadless(runEnv, staticDir);
}

/** One attempt at Electron's binary download; null (and one line) when it fails. */
function installElectron(): string | null {
  console.error('promptledger: the Electron binary is missing; trying to download it once…');
  const result = spawnSync(process.execPath, [join(ELECTRON_DIR, 'install.js')], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: INSTALL_TIMEOUT_MS,
  });
  const binary = result.status === 0 ? findElectronBinary(ELECTRON_DIR) : null;
  if (!binary) {
    const why = lastLine(result.stderr ?? '') || (result.error ? result.error.message : `exit code ${result.status}`);
    console.error(`promptledger: Electron download failed (${why.slice(0, 200)}).`);
  }
  return binary;
}

/** Runs the window until it quits; returns why it could not start, or null when it ran. */
async function runElectron(mode: Extract<LaunchMode, { mode: 'electron' }>, env: NodeJS.ProcessEnv): Promise<string | null> {
  const build = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (build.status !== 0) return `building the desktop shell failed (${lastLine(build.stderr || build.stdout)})`;
  const child = spawn(mode.electronPath, [ROOT], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const outcome = await superviseElectron(child);
  // Another server holds the data dir, or its database is damaged: the message is the answer.
  if (!outcome.ready && outcome.dataDirRefused) throw new Error(outcome.reason);
  if (!outcome.ready) return outcome.reason;
  // Ctrl-C in the terminal reaches Electron too; it shuts its server down and exits.
  await new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return null;
}

async function runHeadless(env: NodeJS.ProcessEnv, staticDir: string): Promise<void> {
  const dataDir = resolveDataDir(env);
  const { server, loginUrl } = await startAppServer({
    dataDir,
    env,
    staticDir,
    log: { info: (m) => console.error(m), error: (m, e) => console.error(m, e) },
  });
  const shutdown = createShutdown({
    closeWindows: () => {},
    closeServer: () => server.close(),
    exit: (code) => process.exit(code),
    log: (m) => console.error(m),
  });
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  // Printed after the signal handlers exist: whoever waits for this line may stop us at once.
  if (server.generatedKey) {
    console.log(`API key for the default workspace (shown once; saved to ${dataFiles(dataDir).apiKey}): ${server.generatedKey}`);
  }
  console.log(`promptledger listening on ${server.url}`);
  console.log(`Open the UI (signs you in): ${loginUrl}`);
}
