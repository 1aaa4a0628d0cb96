import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The OS user-data folder, the same one Electron's `app.getPath('userData')` gives an app named
 * "promptledger", so the desktop app and `npm run serve` share one data file by default.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform, home = homedir()): string {
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'promptledger');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'promptledger');
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'promptledger');
}

export const dataFiles = (dataDir: string) => ({
  database: join(dataDir, 'promptledger.db'),
  apiKey: join(dataDir, 'api-key'),
  sessionSecret: join(dataDir, 'session-secret'),
});
