import { existsSync, writeFileSync } from 'node:fs';
import { dataFiles } from '../src-server/data-dir';
import { generateKey } from '../src-server/services/auth';
import { createServer, type RunningServer, type ServerOptions } from '../src-server/server';
import type { Logger } from '../src-server/http/errors';
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
  const base: ServerOptions = {
    dataDir: options.dataDir,
    host: env.PROMPTLEDGER_HOST || '127.0.0.1',
    apiKey,
    staticDir: options.staticDir,
    log: options.log,
  };
  const server = await listenOnFreePort((port) => createServer({ ...base, port }), preferred);
  if (recoverKey) writeFileSync(files.apiKey, `${apiKey}\n`, { mode: 0o600 });
  // A failed listen on a taken port may already have generated and saved the key: read it back.
  apiKey ??= server.generatedKey ?? knownApiKey(options.dataDir, env);
  if (!apiKey) {
    await server.close();
    throw new Error('The server started without an API key for the default workspace.');
  }
  return { server, apiKey, loginUrl: `${server.url}/#key=${encodeURIComponent(apiKey)}` };
}
