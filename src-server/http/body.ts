import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors';
import { jsonTooDeep, tooDeepMessage } from '../json-depth';

/**
 * What reading a body needs of a request: Koa's context satisfies it, and so does the lean path's
 * bare node:http request (http/lean.ts), so both read, limit and refuse bodies by the same code.
 */
export interface HttpExchange {
  req: IncomingMessage;
  /** A request header, '' when absent (as Koa's `ctx.get`). */
  get(name: string): string;
  /** Sets a response header. */
  set(name: string, value: string): void;
}

/** Past this many bytes of an oversized body we stop draining it and drop the connection. */
const MAX_DRAIN_BYTES = 256 * 1024 * 1024;

/**
 * Reads a JSON body with a size cap. Over the cap is 413 — decided from Content-Length before
 * reading, or while streaming a chunked body — and the rest of the body is drained so a client
 * still sending reads our answer instead of a reset connection. Malformed JSON is 422 like any
 * other invalid input, and so is JSON nested past MAX_JSON_DEPTH. An empty body is `undefined`,
 * since some endpoints take none.
 */
export async function readJsonBody(ctx: HttpExchange, limitBytes: number): Promise<unknown> {
  const text = (await readRawBody(ctx, limitBytes)).toString('utf8');
  if (text.trim() === '') return undefined;
  if (jsonTooDeep(text)) {
    throw new AppError('invalid_input', `Invalid request body: ${tooDeepMessage}.`, [{ loc: ['body'], msg: tooDeepMessage, type: 'json_too_deep' }]);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const msg = `Malformed JSON: ${(error as Error).message}`;
    throw new AppError('invalid_input', `Invalid request body: ${msg}`, [{ loc: ['body'], msg, type: 'json_invalid' }]);
  }
}

/** The body's bytes, under the same size cap (413) as JSON bodies. */
export async function readRawBody(ctx: HttpExchange, limitBytes: number): Promise<Buffer> {
  const req = ctx.req;
  const declared = Number(ctx.get('content-length') || 0);
  const raw = await new Promise<Buffer | null>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = declared > limitBytes;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (!over && size > limitBytes) over = true;
      if (over) {
        chunks.length = 0;
        if (size > limitBytes + MAX_DRAIN_BYTES) {
          req.destroy();
          resolve(null);
        }
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? null : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
    req.on('error', reject);
  });
  if (raw === null) {
    ctx.set('Connection', 'close');
    throw new AppError('payload_too_large', `Request body is larger than the limit of ${limitBytes} bytes.`);
  }
  return raw;
}

/** Whether the request carries a body at all (a declared length above 0, or chunked). */
export function hasBody(ctx: HttpExchange): boolean {
  return Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
}

/**
 * JSON routes take `application/json` (any parameters, e.g. `; charset=utf-8`), `…+json`, or no
 * content type at all: the PromptLayer SDKs always send `application/json`, and scripts that omit
 * the header have always worked (docs/decisions.md). Anything else is 415, and in particular
 * `text/plain`, the type a web page can post cross-origin without a CORS preflight.
 */
export function requireJsonContentType(ctx: HttpExchange): void {
  if (!hasBody(ctx)) return;
  const type = ctx.get('content-type').split(';')[0].trim().toLowerCase();
  if (type === '' || type === 'application/json' || /^application\/[\w.-]+\+json$/.test(type)) return;
  throw new AppError('unsupported_media_type', `Unsupported content type '${type}': send the body as JSON with 'Content-Type: application/json'.`);
}

/**
 * Reads and throws away a body we refused before reading it (no key, wrong content type), so a
 * keep-alive client reads our answer; past MAX_DRAIN_BYTES the connection is dropped instead.
 */
export function discardBody(req: IncomingMessage): void {
  if (req.readableEnded || req.destroyed) return;
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_DRAIN_BYTES) req.destroy();
  });
  req.on('error', () => undefined);
  req.resume();
}
