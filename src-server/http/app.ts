import type { RequestListener } from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import type { Logger } from '../logger';
import { Health, OpenApiDocument } from '../schemas/system';
import { errorMiddleware } from './errors';
import { leanRoutes } from './lean';
import { mount, openApiDocument, route, type Authenticator, type Route } from './route';

export interface AppOptions {
  routes: Route[];
  auth: Authenticator;
  bodyLimitBytes: number;
  log: Logger;
  version: string;
  /** Named in the 507 a full disk answers. */
  dataDir: string;
}

/** The Koa app, without a socket: tests and benchmarks can build it, main.ts listens. */
export function createApp({ routes, auth, bodyLimitBytes, log, version, dataDir }: AppOptions): Koa {
  const system: Route[] = [
    route({
      method: 'get', path: '/health', summary: 'Liveness and version', tag: 'System', auth: 'none', response: Health,
      handler: () => ({ status: 'ok', version }),
    }),
  ];
  const all = [...system, ...routes];
  // Built at its first request: turning every route's zod schemas into JSON Schema took ~70 ms, a
  // sixth of the time to the ready line, for a document most sessions never ask for.
  const described = [...all];
  let document: ReturnType<typeof openApiDocument> | undefined;
  all.push(
    route({
      method: 'get', path: '/openapi.json', summary: 'This document', tag: 'System', auth: 'none', response: OpenApiDocument,
      handler: () => (document ??= openApiDocument(described, { title: 'promptledger', version })),
    }),
  );

  const app = new Koa();
  // Errors Koa sees after a reply started: a client that hangs up mid-stream (an SSE watcher
  // closing its tab, an aborted export) is normal, not a fault; anything else goes to our log.
  app.on('error', (error: NodeJS.ErrnoException) => {
    if (['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE', 'ECONNABORTED'].includes(error.code ?? '')) return;
    log.error('response failed', error);
  });
  const router = new Router();
  mount(router, all, { auth, bodyLimitBytes });
  app.use(errorMiddleware(log, dataDir));
  app.use(router.routes());
  app.use(router.allowedMethods());
  lean.set(app, leanRoutes(all, { auth, bodyLimitBytes, log, dataDir }));
  return app;
}

const lean = new WeakMap<Koa, ReturnType<typeof leanRoutes>>();

/** What node:http calls per request: the app's lean routes (http/lean.ts) first, then Koa. */
export function requestListener(app: Koa): RequestListener {
  const handle = app.callback();
  const fast = lean.get(app) ?? (() => false);
  // Koa's handler settles its own errors (errorMiddleware); the promise carries nothing more.
  return (req, res) => {
    if (!fast(req, res)) void handle(req, res);
  };
}
