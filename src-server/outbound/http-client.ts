import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/** What an outbound call sends: JSON or text bodies only (every caller sends one or none). */
export interface OutboundInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/** An outbound call's answer: the few parts of fetch's Response the callers read. */
export interface OutboundResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null };
  /** The whole body as text (decompressed). */
  text(): Promise<string>;
  /** The body as a web stream, for streamed answers (Server-Sent Events); made on first use. */
  readonly body: ReadableStream<Uint8Array>;
  /** Drops the body unread (a redirect's), so the connection can serve the next call. */
  discard(): void;
}

export type OutboundNetwork = (url: URL, init: OutboundInit) => Promise<OutboundResponse>;

const DEFAULT_HEADERS = [['accept', '*/*'], ['accept-encoding', 'gzip, deflate, br'], ['user-agent', 'promptledger']] as const;

/**
 * One HTTP call through node:http(s) and its default keep-alive agents. fetch (undici) cost about
 * 1 ms of CPU per provider call here, most of it web streams made and teed for every request and
 * answer; this costs about a third of that (measured in docs/performance.md). Like fetch it asks
 * for gzip/deflate/br and decompresses what comes back; redirects are the caller's (the outbound
 * gate follows them itself, checking each hop).
 */
export const sendHttp: OutboundNetwork = (url, init) =>
  new Promise((resolve, reject) => {
    const { signal } = init;
    if (signal?.aborted) return reject(signal.reason);
    const body = init.body === undefined ? undefined : Buffer.from(init.body);
    // Headers as a flat list are written as given (each still checked for a bad name or value);
    // as an object, each goes through setHeader (~2 % of the main thread per call at 1,000 calls a
    // second). The list path adds no Host header of its own, so it is the first one here.
    const given = new Map<string, [string, string]>();
    // Of two names that differ in case only, the last counts, as with setHeader.
    for (const [name, value] of Object.entries(init.headers ?? {})) given.set(name.toLowerCase(), [name, value]);
    given.delete('content-length');
    const headers: string[] = given.has('host') ? [] : ['host', url.host];
    for (const [name, value] of given.values()) headers.push(name, value);
    // Credentials in the URL go as basic auth, as node:http sends them, unless the caller's header says otherwise.
    if ((url.username || url.password) && !given.has('authorization')) {
      const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
      headers.push('authorization', `Basic ${Buffer.from(credentials).toString('base64')}`);
    }
    // The caller's own header wins over a default of another case ('Accept' over 'accept').
    for (const [name, value] of DEFAULT_HEADERS) if (!given.has(name)) headers.push(name, value);
    if (body) headers.push('content-length', String(body.length));
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    // The URL's parts as options, as node:http would derive them from a URL (an IPv6 host without its brackets).
    const req = send(
      {
        protocol: url.protocol,
        hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: init.method ?? 'GET',
        headers,
      },
      (res) => resolve(answer(res, signal)),
    );
    if (signal) {
      // What the `signal` option does, without the stream end-of-life watchers it attaches to every request.
      const onAbort = () => req.destroy(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
      signal.addEventListener('abort', onAbort, { once: true });
      req.once('close', () => signal.removeEventListener('abort', onAbort));
    }
    // `on`, not `once`: a socket error after the answer arrived must not go unhandled (the body's reader sees it).
    req.on('error', reject);
    req.end(body);
  });

function answer(res: IncomingMessage, signal: AbortSignal | undefined): OutboundResponse {
  const status = res.statusCode ?? 0;
  let stream: ReadableStream<Uint8Array> | undefined;
  return {
    status,
    ok: status >= 200 && status <= 299,
    headers: {
      get(name) {
        const value = res.headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
    },
    text: () => readAll(decoded(res)),
    get body() {
      stream ??= Readable.toWeb(decoded(res)) as ReadableStream<Uint8Array>;
      return stream;
    },
    discard: () => void res.resume(),
  };

  /** Reads to the end; fails if the connection breaks (or the caller aborts) before it. */
  function readAll(source: Readable): Promise<string> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const chunks: Buffer[] = [];
      source.on('data', (chunk: Buffer) => chunks.push(chunk));
      source.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      source.once('error', reject);
      res.once('close', () => {
        if (!res.complete) reject(signal?.aborted ? signal.reason : new Error('The connection closed before the answer was complete'));
      });
    });
  }
}

/** The body as sent, or decompressed when the server compressed it (the call asked it may). */
function decoded(res: IncomingMessage): Readable {
  const encoding = String(res.headers['content-encoding'] ?? '').trim().toLowerCase();
  const unzip = encoding === 'gzip' || encoding === 'x-gzip' ? createGunzip() : encoding === 'deflate' ? createInflate() : encoding === 'br' ? createBrotliDecompress() : null;
  if (!unzip) return res;
  res.once('error', (error) => unzip.destroy(error));
  return res.pipe(unzip);
}

/** A call's own signal: aborted by its caller's signal or by its time limit, whichever comes first. */
export interface CallSignal {
  signal: AbortSignal;
  /** True once the time limit, not the caller, aborted it. */
  readonly timedOut: boolean;
  readonly timeoutMs: number;
  /** Stops the timer and unhooks from the caller's signal; call once the answer is read. */
  dispose(): void;
}

/**
 * `AbortSignal.any([signal, AbortSignal.timeout(ms)])` without either: both keep their signals in
 * WeakRefs, which V8's minor collections treat as strong, so every call's signals, and the request
 * and socket their listeners hold, outlived the call in the old space until the next full
 * collection (measured: most of an evaluation run's old-space growth). Plain listeners and a timer
 * that `dispose` clears leave nothing behind.
 */
export function callSignal(caller: AbortSignal, timeoutMs: number): CallSignal {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(caller.reason);
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`No answer within ${timeoutMs} ms`, 'TimeoutError'));
  }, timeoutMs);
  timer.unref();
  if (caller.aborted) onAbort();
  else caller.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timeoutMs,
    get timedOut() {
      return timedOut;
    },
    dispose() {
      clearTimeout(timer);
      caller.removeEventListener('abort', onAbort);
    },
  };
}
