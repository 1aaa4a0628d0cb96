import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import pkg from '../package.json';
import { createApp } from './http/app';
import type { Logger } from './http/errors';
import type { Route } from './http/route';
import { loggingRoutes } from './http/routes/logging';
import { promptRoutes } from './http/routes/prompts';
import { providerRoutes } from './http/routes/providers';
import { requestRoutes } from './http/routes/requests';
import { workspaceRoutes } from './http/routes/workspaces';
import { datasetRoutes } from './http/routes/datasets';
import { folderRoutes } from './http/routes/folders';
import { staticFiles } from './http/static';
import { systemRoutes } from './http/routes/system';
import { columnTypeRoutes } from './http/routes/column-types';
import { dataFiles } from './data-dir';
import { createAuthService } from './services/auth';
import { createDatasetService } from './services/datasets';
import { createEvaluationEngine } from './services/evaluation-engine';
import { createFolderService } from './services/folders';
import { createPromptService } from './services/prompts';
import { createProviderService } from './services/providers';
import { createRequestService } from './services/requests';
import { closeDatabase, openDatabase, type Db } from './store/db';
import { createIngest } from './store/ingest';
import { createDatasetStore } from './store/datasets';
import { createFolderStore } from './store/folders';
import { createPromptStore } from './store/prompts';
import { createProviderStore } from './store/providers';
import { createRequestStore } from './store/requests';
import { createRequestStatsStore } from './store/request-stats';
import { createWorkspaceStore } from './store/workspaces';
import { createWriter } from './store/writer';

export const VERSION: string = pkg.version;

export interface ServerOptions {
  dataDir: string;
  host?: string;
  port?: number;
  /** PROMPTLEDGER_API_KEY: accepted for the default workspace, registered if new. */
  apiKey?: string;
  bodyLimitBytes?: number;
  log?: Logger;
  now?: () => number;
  /** Extra routes on the same stack (the ingest benchmark's no-op baseline uses this). */
  extraRoutes?: Route[];
  /** Provider keys and base URLs for evaluations (OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY) and
   * PROMPTLEDGER_EVAL_CONCURRENCY; default: this process's environment. */
  env?: Record<string, string | undefined>;
  /** In-flight LLM calls per provider during evaluations (overrides PROMPTLEDGER_EVAL_CONCURRENCY). */
  evalConcurrency?: number;
  /** The built UI (`out/renderer`), served at `/` after every API route had its chance. */
  staticDir?: string;
}

export interface RunningServer {
  url: string;
  host: string;
  port: number;
  db: Db;
  /** Set on the start that generated the default workspace's key (it is also in `<dataDir>/api-key`). */
  generatedKey?: string;
  close(): Promise<void>;
}

export const DEFAULT_BODY_LIMIT = 50 * 1024 * 1024;

const silent: Logger = { error: () => {}, info: () => {} };

/** Opens the data dir, wires store → services → routes, and listens. */
export async function createServer(options: ServerOptions): Promise<RunningServer> {
  const log = options.log ?? silent;
  const now = options.now ?? Date.now;
  const files = dataFiles(options.dataDir);
  mkdirSync(options.dataDir, { recursive: true });

  const db = openDatabase(files.database);
  const writer = createWriter(db);
  const ingest = createIngest(files.database);
  const auth = createAuthService({
    store: createWorkspaceStore(db),
    sessionSecret: loadOrCreateSecret(files.sessionSecret),
    now,
  });
  const { generatedKey } = auth.bootstrap(options.apiKey);
  if (generatedKey) writeFileSync(files.apiKey, `${generatedKey}\n`, { mode: 0o600 });

  const providers = createProviderService({ store: createProviderStore(db), writer, now });
  const prompts = createPromptService({ store: createPromptStore(db), providers, writer, now });
  const requestStore = createRequestStore(db);
  const requests = createRequestService({
    store: requestStore,
    stats: createRequestStatsStore(db),
    writer,
    ingest,
    promptLinks: prompts.links,
    now,
  });

  const datasetStore = createDatasetStore(db);
  // An import cut short by a crash left an invisible, half-written version behind.
  datasetStore.removeAbandoned();
  const folderStore = createFolderStore(db);
  const folders = createFolderService({ store: folderStore, writer, now });
  const datasets = createDatasetService({ store: datasetStore, folders: folderStore, requests: requestStore, writer, now });
  const evaluations = createEvaluationEngine({
    db, writer, datasets, datasetStore, folderExists: (ws, id) => folderStore.get(ws, id) !== undefined,
    prompts, providers, requests, env: options.env ?? process.env, concurrency: options.evalConcurrency, now, log,
  });
  const datasetRouteOptions = { bodyLimitBytes: options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT };

  const app = createApp({
    routes: [...loggingRoutes(requests), ...requestRoutes(requests), ...workspaceRoutes(auth), ...datasetRoutes(datasets, datasetRouteOptions), ...folderRoutes(folders), ...evaluations.routes(), ...promptRoutes(prompts), ...providerRoutes(providers), ...systemRoutes(options.dataDir, VERSION), ...columnTypeRoutes(), ...(options.extraRoutes ?? [])],
    auth,
    bodyLimitBytes: options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT,
    log,
    version: VERSION,
  });

  if (options.staticDir) app.use(staticFiles(options.staticDir));

  const handle = app.callback();
  // Koa's handler settles its own errors (errorMiddleware); the promise carries nothing more.
  const http = createHttpServer((req, res) => void handle(req, res));
  // Local SDKs keep connections open between calls; outlive their idle timers (5 s in undici).
  http.keepAliveTimeout = 65_000;
  const host = options.host ?? '127.0.0.1';
  try {
    await listen(http, host, options.port ?? 8420);
  } catch (error) {
    await ingest.close();
    closeDatabase(db);
    throw error;
  }
  const port = (http.address() as AddressInfo).port;
  // Runs a crash or a shutdown interrupted pick up where their committed cells end.
  evaluations.start();
  const urlHost = host.includes(':') ? `[${host}]` : host;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}`,
    host,
    port,
    db,
    generatedKey,
    close() {
      closing ??= (async () => {
        // Runs stop before the database closes; they stay RUNNING and resume at the next start.
        await evaluations.stop();
        const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
        http.closeIdleConnections();
        const force = setTimeout(() => http.closeAllConnections(), 2000);
        await stopped;
        clearTimeout(force);
        await writer.flush();
        await ingest.close();
        closeDatabase(db);
      })();
      return closing;
    },
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The HMAC secret for session tokens: per install, kept beside the data (mode 0600). */
function loadOrCreateSecret(file: string): Uint8Array {
  if (existsSync(file)) return new Uint8Array(readFileSync(file));
  const secret = randomBytes(32);
  writeFileSync(file, secret, { mode: 0o600 });
  return new Uint8Array(secret);
}
