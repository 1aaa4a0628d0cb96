import { existsSync, readFileSync } from 'node:fs';
import { dataFiles, defaultDataDir } from '../src-server/data-dir';

/**
 * Where the desktop app keeps its data: PROMPTLEDGER_DATA_DIR wins (tests, a second profile), else
 * the OS user-data folder computed without Electron, so the window, the headless fallback and
 * `npm run serve` all open one file whatever the packaged app's display name is.
 */
export function resolveDataDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  return env.PROMPTLEDGER_DATA_DIR || defaultDataDir(env, platform);
}

/**
 * The key the UI signs in with and the menu offers to copy: PROMPTLEDGER_API_KEY, else the one
 * saved beside the data at first start. Undefined before the first start, when the server
 * generates it.
 */
export function knownApiKey(dataDir: string, env: NodeJS.ProcessEnv): string | undefined {
  if (env.PROMPTLEDGER_API_KEY) return env.PROMPTLEDGER_API_KEY;
  const file = dataFiles(dataDir).apiKey;
  if (!existsSync(file)) return undefined;
  return readFileSync(file, 'utf8').trim() || undefined;
}
