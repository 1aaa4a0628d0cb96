// The lean path: routes marked `lean` (`POST /log-request`) are served straight from node:http,
// before Koa builds its context, runs its middleware and routes. Koa's no-op route cost ~180 µs of
// the HTTP thread per request against ~60 µs for a bare node:http server that parses the same
// JSON (docs/performance.md, "Ingest, wave 2: ingest2"); at thousands of requests a second that
// is a core's worth of work. Only the dispatch is lean: auth, content type (415), the body's size
// limit (413), JSON and the route's zod schema (422), the handler and the error bodies are the same
// code Koa's router runs (route.ts answerRoute, errors.ts errorAnswer).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { Logger } from '../logger';
import type { HttpExchange } from './body';
import { errorAnswer } from './errors';
import { JsonText } from './json-text';
import { answerRoute, type MountOptions, type Route } from './route';

export interface LeanOptions extends MountOptions {
  log: Logger;
  dataDir: string;
}

/**
 * A node:http listener for the lean routes among `routes`: true when it took the request, false to
 * hand it on (to Koa). Matches the method and the exact path, query string aside.
 */
export function leanRoutes(routes: Route[], options: LeanOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  const byKey = new Map(routes.filter((r) => r.lean).map((r) => [`${r.method.toUpperCase()} ${r.path}`, r]));
  if (byKey.size === 0) return () => false;
  return (req, res) => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const spec = byKey.get(`${req.method} ${path}`);
    if (!spec) return false;
    void serveLean(spec, req, res, path, q === -1 ? '' : url.slice(q + 1), options);
    return true;
  };
}

async function serveLean(spec: Route, req: IncomingMessage, res: ServerResponse, path: string, search: string, options: LeanOptions) {
  const http = new LeanExchange(req, res);
  let status: number;
  let body: unknown;
  try {
    body = await answerRoute(spec, http, { params: {}, query: search ? parseQuery(search) : {}, ctx: undefined }, options);
    status = spec.status ?? 200;
  } catch (caught) {
    ({ status, body } = errorAnswer(caught, `${req.method} ${path}`, options.log, options.dataDir));
  }
  if (res.destroyed) return;
  // As Koa answers an object body: compact JSON, utf-8, with its length. The status and headers
  // go in one writeHead, as a bare node:http server answers: no header map to build first.
  if (status === 204) {
    res.writeHead(status);
    res.end();
    return;
  }
  const text = body instanceof JsonText ? body.text : JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** A bare node:http request as answerRoute reads it; a class, so a request makes no closures. */
class LeanExchange implements HttpExchange {
  constructor(
    readonly req: IncomingMessage,
    private readonly res: ServerResponse,
  ) {}

  get(name: string): string {
    const value = this.req.headers[name.toLowerCase()];
    return value === undefined ? '' : Array.isArray(value) ? value.join(', ') : value;
  }

  set(name: string, value: string): void {
    this.res.setHeader(name, value);
  }
}
