import type { Context } from 'koa';
import type Router from '@koa/router';
import { z } from 'zod';
import { AppError, fromZodError } from '../errors';
import { ErrorBody } from '../schemas/common';
import type { Principal } from '../services/auth';
import { discardBody, readJsonBody, requireJsonContentType, type HttpExchange } from './body';
import { JsonText } from './json-text';

type Schema = z.ZodType | undefined;
type Out<T extends Schema> = T extends z.ZodType ? z.output<T> : undefined;

/**
 * - `none`: public (health, OpenAPI).
 * - `key`: `X-API-KEY`, or `Authorization: Bearer` with a session token (or an API key).
 * - `key-or-body`: as `key`, and also `api_key` in the JSON body — the legacy tracking endpoints,
 *   where the SDK sends it.
 */
export type AuthMode = 'none' | 'key' | 'key-or-body';

export interface Route<B extends Schema = Schema, Q extends Schema = Schema, P extends Schema = Schema> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Koa-style path: `/requests/:id`. */
  path: string;
  summary: string;
  tag: string;
  auth: AuthMode;
  body?: B;
  /** For uploads: the handler reads `ctx.req` itself (nothing buffers the body) and validates it;
   * this schema documents the body in OpenAPI. */
  streamBody?: z.ZodType;
  query?: Q;
  params?: P;
  /**
   * Served by the lean path (http/lean.ts) before Koa sees the request: for the hottest routes
   * (`POST /log-request`), whose handler then gets no `ctx`. No path params.
   */
  lean?: true;
  /**
   * A hand-written check of the body's common valid shape, tried before `body`: it returns what
   * `body.safeParse` would, or undefined when not sure (then zod runs and writes any 422).
   */
  fastBody?: (raw: unknown) => Out<B> | undefined;
  /** Success status; 204 sends no body. */
  status?: number;
  /**
   * The success body, for `/openapi.json` and the UI's types (`z.infer`). Not checked against the
   * handler's type — services type stored JSON and enum columns loosely — but test/openapi.test.ts
   * parses real answers with it. Streamed answers (CSV, Server-Sent Events) give their media type.
   */
  response: z.ZodType | { mediaType: string; description: string };
  handler: (input: {
    body: Out<B>;
    query: Out<Q>;
    params: Out<P>;
    principal: Principal;
    ctx: Context;
  }) => unknown;
}

/** Type-checks one route's handler against its own schemas. */
export const route = <B extends Schema = undefined, Q extends Schema = undefined, P extends Schema = undefined>(
  spec: Route<B, Q, P>,
) => spec as unknown as Route;

export interface Authenticator {
  principalForKey(key: string): Principal | null;
  principalForSession(token: string): Promise<Principal | null>;
}

export interface MountOptions {
  auth: Authenticator;
  bodyLimitBytes: number;
}

export function mount(router: Router, routes: Route[], options: MountOptions): void {
  for (const spec of routes) {
    router[spec.method](spec.path, async (ctx: Context) => {
      const result = await answerRoute(spec, ctx, { params: ctx.params, query: ctx.query, ctx }, options);
      ctx.status = spec.status ?? 200;
      if (ctx.status === 204) return;
      if (result instanceof JsonText) {
        ctx.type = 'application/json';
        ctx.body = result.text;
      } else ctx.body = result;
    });
  }
}

/**
 * One request to `spec`, from its headers to the handler's result: auth, content type, the body
 * within the size limit, schemas. Shared by Koa's router (mount) and the lean path for hot routes
 * (http/lean.ts), so both apply the same rules in the same order. Throws AppError for the client.
 */
export async function answerRoute(
  spec: Route,
  http: HttpExchange,
  from: { params: Record<string, string>; query: Record<string, string | string[] | undefined>; ctx: Context | undefined },
  options: MountOptions,
): Promise<unknown> {
  const takesBody = ['post', 'put', 'patch'].includes(spec.method);
  // The key in a header is checked before a byte of the body is read: without it a stranger's
  // 50 MB body cost 1.8 GB of memory before the 401 (issue 10, item 9). Only the legacy
  // tracking routes, whose SDK sends the key in the body, read a body (within the size limit)
  // before knowing who sent it.
  let principal: Principal | undefined;
  let rawBody: unknown;
  try {
    if (spec.auth === 'key' || (spec.auth === 'key-or-body' && hasKeyHeader(http))) {
      principal = await authenticate(http, spec.auth, undefined, options.auth);
    }
    if (takesBody && !spec.streamBody) requireJsonContentType(http);
  } catch (error) {
    discardBody(http.req);
    throw error;
  }
  if (takesBody && !spec.streamBody) rawBody = await readJsonBody(http, options.bodyLimitBytes);
  if (spec.auth === 'key-or-body' && !principal) principal = await authenticate(http, spec.auth, rawBody, options.auth);
  const params = parse(spec.params, from.params, 'path');
  const query = parse(spec.query, nestBrackets(from.query), 'query');
  const body = spec.fastBody?.(rawBody) ?? parse(spec.body, rawBody, 'body');
  // Lean routes (no Koa) have no context; their handlers do not use it (http/lean.ts).
  return spec.handler({ body, query, params, principal: principal as Principal, ctx: from.ctx as Context });
}

function parse(schema: Schema, value: unknown, where: 'body' | 'query' | 'path'): any {
  if (!schema) return undefined;
  const result = schema.safeParse(value);
  if (!result.success) throw fromZodError(result.error, where);
  return result.data;
}

/** `metadata[env]=prod` → `{ metadata: { env: 'prod' } }`, as the explorer's filters are written. */
function nestBrackets(query: Record<string, string | string[] | undefined>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    const match = /^([^[\]]+)\[([^\]]*)\]$/.exec(key);
    if (!match) {
      out[key] = value;
      continue;
    }
    const [, outer, inner] = match;
    const nested = (out[outer] ??= {}) as Record<string, unknown>;
    if (typeof nested === 'object' && !Array.isArray(nested)) nested[inner] = Array.isArray(value) ? value[value.length - 1] : value;
  }
  return out;
}

const hasKeyHeader = (ctx: HttpExchange) => ctx.get('x-api-key') !== '' || /^Bearer\s+\S/i.test(ctx.get('authorization'));

async function authenticate(ctx: HttpExchange, mode: AuthMode, body: unknown, auth: Authenticator): Promise<Principal> {
  const headerKey = ctx.get('x-api-key');
  const bearer = /^Bearer\s+(.+)$/i.exec(ctx.get('authorization'))?.[1]?.trim();
  const bodyKey =
    mode === 'key-or-body' && body && typeof body === 'object' && typeof (body as { api_key?: unknown }).api_key === 'string'
      ? (body as { api_key: string }).api_key
      : undefined;
  let principal: Principal | null = null;
  if (headerKey) principal = auth.principalForKey(headerKey);
  else if (bearer) principal = bearer.startsWith('pl_') ? auth.principalForKey(bearer) : await auth.principalForSession(bearer);
  else if (bodyKey) principal = auth.principalForKey(bodyKey);
  else {
    const where = mode === 'key-or-body' ? 'the X-API-KEY header or the body\'s api_key' : 'the X-API-KEY header';
    throw new AppError('unauthenticated', `Missing API key: send it in ${where}.`);
  }
  if (!principal) throw new AppError('unauthenticated', 'Invalid or revoked API key or session.');
  return principal;
}

/** OpenAPI 3.1, generated from the same route list and zod schemas that validate requests and describe answers. */
export function openApiDocument(routes: Route[], info: { title: string; version: string }) {
  const toJson = (schema: z.ZodType, io: 'input' | 'output' = 'input') => {
    const { $schema: _, ...json } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
    return json;
  };
  const error = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = r.path.replace(/:(\w+)/g, '{$1}');
    const parameters: unknown[] = [];
    for (const [where, schema] of [['path', r.params], ['query', r.query]] as const) {
      if (!schema) continue;
      const json = toJson(schema);
      const props = (json.properties ?? {}) as Record<string, unknown>;
      const required = new Set((json.required as string[] | undefined) ?? []);
      for (const [name, s] of Object.entries(props)) {
        parameters.push({ name, in: where, required: where === 'path' || required.has(name), schema: s });
      }
    }
    const status = String(r.status ?? 200);
    const success = status === '204'
      ? { description: 'No content' }
      : 'mediaType' in r.response
        ? { description: r.response.description, content: { [r.response.mediaType]: { schema: { type: 'string' } } } }
        : { description: 'Success', content: { 'application/json': { schema: toJson(r.response, 'output') } } };
    (paths[path] ??= {})[r.method] = {
      summary: r.summary,
      tags: [r.tag],
      ...(r.auth === 'none' ? { security: [] } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(r.body ?? r.streamBody ? { requestBody: { required: true, content: { 'application/json': { schema: toJson((r.body ?? r.streamBody)!) } } } } : {}),
      responses: {
        [status]: success,
        '422': { description: 'Invalid input: `detail` names each bad field', ...error },
        ...(r.body ?? r.streamBody ? { '415': { description: 'The body is not JSON', ...error } } : {}),
        '4XX': { description: 'Refused: 400 bad request, 401 no or bad key, 403 forbidden, 404 not found, 409 conflict, 413 too large', ...error },
        '500': { description: 'Our fault, logged on the server; no internals are sent', ...error },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info,
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY' },
        session: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      },
      schemas: { Error: toJson(ErrorBody, 'output') },
    },
    security: [{ apiKey: [] }, { session: [] }],
  };
}
