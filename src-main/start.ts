import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { boundHeapGrowth } from '../src-server/bound-heap-growth';
import { loadConfig, packageRoot, type Config } from '../src-server/config';
import { dataFiles } from '../src-server/data-dir';
import { startAppServer } from './app-server';
import { superviseElectron } from './electron-process';
import { chooseLaunchMode, findElectronBinary, lastLine, type LaunchMode } from './launch-mode';
import { createShutdown } from './shutdown';

const ROOT = packageRoot(import.meta.url);
const ELECTRON_DIR = join(ROOT, 'node_modules', 'electron');
/** Electron's own installer downloads ~100 MB; offline it fails fast, a slow link gets this long. */
const INSTALL_TIMEOUT_MS = 180_000;

/**
 * `promptledger start` (`npm start`): the desktop window when Electron can run here, else the
 * same UI served headless with the URL to open, after one line saying why. bin/promptledger.js
 * has built the UI and this compiled code (out/) before it gets here.
 */
export async function runStart(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = loadConfig('start', argv, env);
  // The window's process reads its settings from the environment: the flags travel there, as
  // the values already checked above.
  const electronEnv: NodeJS.ProcessEnv = {
    ...env,
    PROMPTLEDGER_HOST: config.host,
    PROMPTLEDGER_PORT: String(config.port),
    PROMPTLEDGER_DATA_DIR: config.dataDir,
    PROMPTLEDGER_MAX_BODY_BYTES: String(config.maxBodyBytes),
    ...(config.evalConcurrency !== undefined ? { PROMPTLEDGER_EVAL_CONCURRENCY: String(config.evalConcurrency) } : {}),
    ...(config.keepDays !== undefined ? { PROMPTLEDGER_KEEP_DAYS: String(config.keepDays) } : {}),
    ...(config.maxBytes !== undefined ? { PROMPTLEDGER_MAX_GB: String(config.maxBytes / 1e9) } : {}),
  };
  const facts = { env, platform: process.platform, headlessFlag: config.headless };
  let mode = chooseLaunchMode({ ...facts, electronPath: findElectronBinary(ELECTRON_DIR, env) });
  if (mode.mode === 'headless' && mode.why === 'no-electron') {
    mode = chooseLaunchMode({ ...facts, electronPath: installElectron() });
  }

  if (mode.mode === 'electron') {
    const failure = await runElectron(mode, electronEnv);
    if (!failure) return;
    console.error(`promptledger: ${failure} — serving the UI headless instead.`);
  } else {
    console.error(`promptledger: ${mode.reason} — serving the UI headless.`);
  }
  await runHeadless(config);
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
  // Electron loads package.json's `main`, out/main/index.js, which the build beside this file made.
  const child = spawn(mode.electronPath, [ROOT], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const outcome = await superviseElectron(child);
  // Another server holds the data dir, or its database is damaged: the message is the answer.
  if (!outcome.ready && outcome.dataDirRefused) throw new Error(outcome.reason);
  if (!outcome.ready) return outcome.reason;
  // Ctrl-C in the terminal reaches Electron too; it shuts its server down and exits.
  await new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return null;
}

async function runHeadless(config: Config): Promise<void> {
  const { dataDir } = config;
  const { server, loginUrl } = await startAppServer({
    config,
    log: { info: (m) => console.error(m), error: (m, e) => console.error(m, e) },
  });
  // Once listening, as `serve` does (src-server/main.ts).
  boundHeapGrowth();
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
