import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { openApp, type OpenApp, type OpenAppOptions } from './compose';
import type { Db } from './store/db';
import { requestListener } from './http/app';

export { DEFAULT_BODY_LIMIT, VERSION } from './compose';

export interface ListenOptions {
  host?: string;
  port?: number;
}

export interface ServerOptions extends OpenAppOptions, ListenOptions {}

export interface RunningServer {
  url: string;
  host: string;
  port: number;
  db: Db;
  /** Set on the start that generated the default workspace's key (it is also in `<dataDir>/api-key`). */
  generatedKey?: string;
  close(): Promise<void>;
}

/** Opens the data dir and listens; a failed listen closes what it opened. */
export async function createServer(options: ServerOptions): Promise<RunningServer> {
  const opened = openApp(options);
  try {
    return await listenApp(opened, options);
  } catch (error) {
    await opened.close();
    throw error;
  }
}

/**
 * Listens with an open app, then resumes interrupted runs. A failed listen leaves `opened` as it
 * was, so a caller may try another port with the same data; closing the result closes `opened`.
 */
export async function listenApp(opened: OpenApp, options: ListenOptions = {}): Promise<RunningServer> {
  // It listens once the ingest thread can write, so the first request logged after the ready line
  // waits for nothing but its own commit.
  await opened.services.ingest.ready;
  const http = serve(opened.app);
  const host = options.host ?? '127.0.0.1';
  await listen(http, host, options.port ?? 8420);
  const port = (http.address() as AddressInfo).port;
  opened.startRuns();
  const urlHost = host.includes(':') ? `[${host}]` : host;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}`,
    host,
    port,
    db: opened.db,
    generatedKey: opened.generatedKey,
    close() {
      closing ??= (async () => {
        await opened.stopRuns();
        await closeHttp(http);
        await opened.close();
      })();
      return closing;
    },
  };
}

/** A node HTTP server for a Koa app, tuned for local SDKs. */
export function serve(app: Koa): Server {
  const http = createHttpServer(requestListener(app));
  // Local SDKs keep connections open between calls; outlive their idle timers (5 s in undici).
  http.keepAliveTimeout = 65_000;
  return http;
}

export function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Stops accepting, closes idle keep-alive sockets now and busy ones after 2 s. */
export async function closeHttp(http: Server): Promise<void> {
  const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
  http.closeIdleConnections();
  const force = setTimeout(() => http.closeAllConnections(), 2000);
  await stopped;
  clearTimeout(force);
}
