import { existsSync, writeFileSync } from 'node:fs';
import { dataFiles } from '../src-server/data-dir';
import { generateKey } from '../src-server/services/auth';
import { openApp } from '../src-server/compose';
import { listenApp, type RunningServer } from '../src-server/server';
import type { Logger } from '../src-server/logger';
import type { Config } from '../src-server/config';
import { knownApiKey } from './data-location';
import { listenOnFreePort } from './ports';

export interface AppServerOptions {
  /** From src-server/config.ts; `staticDir` undefined (`--no-ui`) serves the API only. */
  config: Config;
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
  const { config } = options;
  const files = dataFiles(config.dataDir);
  let apiKey = knownApiKey(config.dataDir, config.apiKey);
  // A data file whose key file was deleted would otherwise leave the UI with no way in: register
  // a fresh key for the default workspace and save it where the first one lived.
  const recoverKey = !apiKey && existsSync(files.database);
  if (recoverKey) apiKey = generateKey();
  const opened = openApp({
    dataDir: config.dataDir,
    apiKey,
    bodyLimitBytes: config.maxBodyBytes,
    evalConcurrency: config.evalConcurrency,
    retention: { keep_days: config.keepDays, max_bytes: config.maxBytes },
    staticDir: config.staticDir,
    log: options.log,
  });
  let server: RunningServer;
  try {
    // The data opens once; a taken port retries only the listen.
    server = await listenOnFreePort((port) => listenApp(opened, { host: config.host, port }), config.port);
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
