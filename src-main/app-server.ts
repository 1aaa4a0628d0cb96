import { existsSync, writeFileSync } from 'node:fs';
import { dataFiles } from '../src-server/data-dir';
import { generateKey } from '../src-server/services/auth';
import { openApp } from '../src-server/compose';
import { listenApp, type RunningServer } from '../src-server/server';
import type { Logger } from '../src-server/logger';
import { knownApiKey } from './data-location';
import { DEFAULT_PORT, listenOnFreePort } from './ports';

export interface AppServerOptions {
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** The built UI; when absent the server answers the API only. */
  staticDir?: string;
  log?: Logger;
}

export interface AppServer {
  server: RunningServer;
  apiKey: string;
  /** Opens the UI signed in: the key rides in the fragment, which browsers never send to a server. */
  loginUrl: string;
}

/**
 * The server as the desktop app and `npm start` run it: 127.0.0.1 (a local tool, not a LAN
 * service), the fixed port or the next free one, the user's data folder, and the UI.
 */
export async function startAppServer(options: AppServerOptions): Promise<AppServer> {
  const { env } = options;
  const preferred = env.PROMPTLEDGER_PORT === undefined ? DEFAULT_PORT : Number(env.PROMPTLEDGER_PORT);
  if (!Number.isInteger(preferred) || preferred < 0 || preferred > 65535) {
    throw new Error(`Invalid PROMPTLEDGER_PORT "${env.PROMPTLEDGER_PORT}": use a number from 0 to 65535.`);
  }
  const files = dataFiles(options.dataDir);
  let apiKey = knownApiKey(options.dataDir, env);
  // A data file whose key file was deleted would otherwise leave the UI with no way in: register
  // a fresh key for the default workspace and save it where the first one lived.
  const recoverKey = !apiKey && existsSync(files.database);
  if (recoverKey) apiKey = generateKey();
  const opened = openApp({ dataDir: options.dataDir, apiKey, staticDir: options.staticDir, log: options.log });
  const host = env.PROMPTLEDGER_HOST || '127.0.0.1';
  let server: RunningServer;
  try {
    // The data opens once; a taken port retries only the listen.
    server = await listenOnFreePort((port) => listenApp(opened, { host, port }), preferred);
  } catch (error) {
    await opened.close();
    throw error;
  }
  if (recoverKey) writeFileSync(files.apiKey, `${apiKey}\n`, { mode: 0o600 });
  apiKey ??= server.generatedKey;
  if (!apiKey) {
    await server.close();
    throw new Error('The server started without an API key for the default workspace.');
  }
  return { server, apiKey, loginUrl: `${server.url}/#key=${encodeURIComponent(apiKey)}` };
}
