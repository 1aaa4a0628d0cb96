import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type Koa from 'koa';
import pkg from '../package.json';
import { dataFiles } from './data-dir';
import { createApp } from './http/app';
import type { Route } from './http/route';
import { columnTypeRoutes } from './http/routes/column-types';
import { datasetRoutes } from './http/routes/datasets';
import { egressRoutes } from './http/routes/egress';
import { evaluationRoutes } from './http/routes/evaluations';
import { folderRoutes } from './http/routes/folders';
import { loggingRoutes } from './http/routes/logging';
import { playgroundRoutes } from './http/routes/playground';
import { priceRoutes } from './http/routes/prices';
import { promptRoutes } from './http/routes/prompts';
import { providerRoutes } from './http/routes/providers';
import { reportPreviewRoutes } from './http/routes/report-preview';
import { reportRoutes } from './http/routes/reports';
import { requestRoutes } from './http/routes/requests';
import { systemRoutes } from './http/routes/system';
import { traceRoutes } from './http/routes/traces';
import { workspaceRoutes } from './http/routes/workspaces';
import { staticFiles } from './http/static';
import type { Logger } from './logger';
import { createOutboundGate } from './outbound/gate';
import { createAuthService } from './services/auth';
import { createDatasetService } from './services/datasets';
import { createEgressService } from './services/egress';
import { createEvaluationEngine } from './services/evaluation-engine';
import { createFolderService } from './services/folders';
import { createPlaygroundService } from './services/playground';
import { createPricingService } from './services/pricing';
import { createPromptService } from './services/prompts';
import { createProviderService } from './services/providers';
import { createRequestService } from './services/requests';
import { createRetentionService } from './services/retention';
import { createTraceService } from './services/traces';
import { createDatasetStore } from './store/datasets';
import type { Db } from './store/db';
import { createEgressStore } from './store/egress';
import { createFolderStore } from './store/folders';
import { createIngest, type IngestThread } from './store/ingest';
import { createPriceStore } from './store/prices';
import { createPromptStore } from './store/prompts';
import { createProviderStore } from './store/providers';
import { createReportCellStore } from './store/report-cells';
import { createReportStore } from './store/reports';
import { createRequestStatsStore } from './store/request-stats';
import { createRequestStore } from './store/requests';
import { createRetentionStore } from './store/retention';
import { createSpanStore } from './store/spans';
import { createWorkspaceStore } from './store/workspaces';
import { openDataDir } from './store/open-data-dir';
import { createWriter } from './store/writer';

export const VERSION: string = pkg.version;

export const DEFAULT_BODY_LIMIT = 50 * 1024 * 1024;

export interface OpenAppOptions {
  dataDir: string;
  /** PROMPTLEDGER_API_KEY: accepted for the default workspace, registered if new. */
  apiKey?: string;
  bodyLimitBytes?: number;
  log?: Logger;
  now?: () => number;
  /** Built-in providers' keys and base URLs (the variables each provider file names, e.g.
   * OPENAI_API_KEY, OPENAI_BASE_URL) and PROMPTLEDGER_EVAL_CONCURRENCY; default: this process's environment. */
  env?: Record<string, string | undefined>;
  /** In-flight LLM calls per provider during evaluations (overrides PROMPTLEDGER_EVAL_CONCURRENCY). */
  evalConcurrency?: number;
  /** The built UI (`out/renderer`), served at `/` after every API route had its chance. */
  staticDir?: string;
  /** `--keep-days` / `--max-gb`: saved as the retention setting at start (the UI may change it later). */
  retention?: { keep_days?: number; max_bytes?: number };
  /** The ingest thread, started ahead for this data dir's database (main.ts); otherwise one is started here. */
  ingestThread?: IngestThread;
}

/** An open data dir with everything wired to it, not yet listening. */
export interface OpenApp {
  db: Db;
  services: ReturnType<typeof composeServices>;
  routes: Route[];
  /** The Koa app over `routes` (and the UI when `staticDir` is set); its callback serves HTTP. */
  app: Koa;
  log: Logger;
  bodyLimitBytes: number;
  /** Set on the open that generated the default workspace's key (it is also in `<dataDir>/api-key`). */
  generatedKey?: string;
  /** Resumes the runs a crash or a shutdown interrupted, where their committed cells end, and
   * starts retention's sweep. */
  startRuns(): void;
  /** Pauses running evaluations; they stay RUNNING and resume at the next start. */
  stopRuns(): Promise<void>;
  /** Stops the runs, flushes pending writes and closes the database. */
  close(): Promise<void>;
}

const silent: Logger = { error: () => {}, info: () => {} };

/**
 * The composition root: opens the data dir and wires store → services → routes. It does not
 * listen, so a caller that retries ports (server.ts's `listenApp`) opens the data only once.
 */
export function openApp(options: OpenAppOptions): OpenApp {
  const log = options.log ?? silent;
  const bodyLimitBytes = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const files = dataFiles(options.dataDir);
  // Private modes, the one-server lock, crash leftovers removed, the database checked: see open-data-dir.ts.
  const dataDir = openDataDir(options.dataDir, (message) => log.info(message));
  const { db } = dataDir;
  const wired = composeServices(db, options, log, loadOrCreateSecret(files.sessionSecret));
  const { auth, requests, datasets, folders, prompts, providers, egress, evaluations, traces, playground, retention, pricing } = wired;
  const fromFlags = options.retention ?? {};
  if (fromFlags.keep_days !== undefined || fromFlags.max_bytes !== undefined) {
    const current = retention.setting();
    retention.put({ keep_days: fromFlags.keep_days ?? current.keep_days, max_bytes: fromFlags.max_bytes ?? current.max_bytes });
  }
  const { generatedKey } = auth.bootstrap(options.apiKey);
  if (generatedKey) writeFileSync(files.apiKey, `${generatedKey}\n`, { mode: 0o600 });

  const routes = [
    ...loggingRoutes(requests, pricing.quote),
    ...requestRoutes(requests),
    ...workspaceRoutes(auth),
    ...datasetRoutes(datasets, { bodyLimitBytes, uploadsDir: dataDir.uploadsDir }),
    ...folderRoutes(folders),
    ...reportRoutes(evaluations.reports, evaluations.runs),
    ...evaluationRoutes(evaluations.reports, evaluations.runs),
    ...reportPreviewRoutes(evaluations.preview),
    ...promptRoutes(prompts),
    ...providerRoutes(providers),
    ...playgroundRoutes(playground, log),
    ...egressRoutes(egress),
    ...systemRoutes(options.dataDir, VERSION, retention),
    ...columnTypeRoutes(),
    ...traceRoutes(traces, { bodyLimitBytes }),
    ...priceRoutes(pricing),
  ];
  const app = createApp({ routes, auth, bodyLimitBytes, log, version: VERSION, dataDir: options.dataDir });
  if (options.staticDir) app.use(staticFiles(options.staticDir));

  let stopping: Promise<void> | undefined;
  const stopRuns = () => (stopping ??= evaluations.stop());
  let closing: Promise<void> | undefined;
  return {
    db,
    services: wired,
    routes,
    app,
    log,
    bodyLimitBytes,
    generatedKey,
    startRuns: () => {
      evaluations.start();
      retention.start();
    },
    stopRuns,
    close() {
      closing ??= (async () => {
        // Runs stop before the database closes; they stay RUNNING and resume at the next start.
        await stopRuns();
        await retention.stop();
        await wired.writer.flush();
        await wired.ingest.close();
        dataDir.close();
      })();
      return closing;
    },
  };
}

function composeServices(db: Db, options: OpenAppOptions, log: Logger, sessionSecret: Uint8Array) {
  const now = options.now ?? Date.now;
  const writer = createWriter(db);
  const ingest = createIngest(dataFiles(options.dataDir).database, options.ingestThread);
  // The ingest thread copies the WAL into the database file for every connection (ingest-worker.ts,
  // `checkpoint`): SQLite's automatic checkpoint would run inside whichever of this connection's
  // commits crossed 1,000 frames, 16 MB copied and synced on the event loop (an evaluation's cells,
  // a dataset import's publish: 50–300 ms in which no request is answered).
  db.pragma('wal_autocheckpoint = 0');
  const auth = createAuthService({ store: createWorkspaceStore(db), sessionSecret, now });

  const env = options.env ?? process.env;
  const egress = createEgressService({ store: createEgressStore(db), writer, now });
  // Every outbound HTTP call (providers, ENDPOINT cells, provider tests) goes through this one gate.
  const outbound = createOutboundGate({ egressOf: egress.get, recordHost: egress.recordHost });
  const providers = createProviderService({ store: createProviderStore(db), writer, now, env, outbound });
  const prompts = createPromptService({ store: createPromptStore(db), providers, writer, now });
  // Prices LLM calls the server logs (track-request, GenAI spans, evaluations, playground): `pricing.quote`.
  const pricing = createPricingService({ store: createPriceStore(db), writer, now });
  const requestStore = createRequestStore(db);
  const requests = createRequestService({
    store: requestStore,
    stats: createRequestStatsStore(db),
    writer,
    ingest,
    promptLinks: prompts.links,
    now,
  });

  const traces = createTraceService({
    store: createSpanStore(db, requestStore),
    ingest,
    quote: pricing.quote,
    now,
  });

  const playground = createPlaygroundService({
    providers, prompts, requests, now, quote: pricing.quote,
  });

  const datasetStore = createDatasetStore(db);
  // An import cut short by a crash left an invisible, half-written version behind.
  datasetStore.removeAbandoned();
  const folderStore = createFolderStore(db);
  const folders = createFolderService({ store: folderStore, writer, now });
  const datasets = createDatasetService({
    store: datasetStore, folders: folderStore, requests: requestStore, textIndexed: ingest.indexText, writer, now,
  });
  const evaluations = createEvaluationEngine({
    reports: createReportStore(db), cells: createReportCellStore(db), writer, datasets, datasetStore,
    folderExists: (ws, id) => folderStore.get(ws, id) !== undefined,
    prompts, providers, requests, quote: pricing.quote, env, outbound, concurrency: options.evalConcurrency, now, log,
  });
  const retention = createRetentionService({
    db, store: createRetentionStore(db, dataFiles(options.dataDir).database), requests: requestStore,
    spans: createSpanStore(db, requestStore), now, log,
  });
  return { writer, ingest, auth, providers, egress, prompts, requests, folders, datasets, evaluations, traces, playground, retention, pricing };
}

/** The HMAC secret for session tokens: per install, kept beside the data (mode 0600). */
function loadOrCreateSecret(file: string): Uint8Array {
  if (existsSync(file)) return new Uint8Array(readFileSync(file));
  const secret = randomBytes(32);
  writeFileSync(file, secret, { mode: 0o600 });
  return new Uint8Array(secret);
}
