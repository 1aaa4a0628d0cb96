import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type RunningServer, type ServerOptions } from '../../src-server/server';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface TestServer {
  url: string;
  /** The default workspace's key, generated at first start. */
  key: string;
  dataDir: string;
  server: RunningServer;
  api<T = any>(path: string, init?: ApiInit): Promise<ApiResponse<T>>;
  /** Closes and starts again on the same data dir (a clean restart). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface ApiInit {
  method?: string;
  body?: unknown;
  /** Raw body text, sent as is (for malformed JSON). */
  rawBody?: string;
  /** `null` sends no key. */
  key?: string | null;
  headers?: Record<string, string>;
}

export const tempDir = (prefix = 'promptledger-test-') => mkdtempSync(join(tmpdir(), prefix));

/** A real server on a temp data dir and a free port. */
export async function startServer(options: Partial<ServerOptions> = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? tempDir();
  let server = await createServer({ port: 0, ...options, dataDir });
  const key = server.generatedKey ?? options.apiKey;
  if (!key) throw new Error('test server started without a key');
  const t: TestServer = {
    get url() {
      return server.url;
    },
    key,
    dataDir,
    get server() {
      return server;
    },
    api: (path, init = {}) => call(server.url, path, { ...init, key: init.key === undefined ? key : init.key }),
    async restart() {
      await server.close();
      server = await createServer({ port: 0, ...options, dataDir });
    },
    async close() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return t;
}

export async function call<T = any>(base: string, path: string, init: ApiInit = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  if (init.key) headers['X-API-KEY'] = init.key;
  let body: string | undefined = init.rawBody;
  if (init.body !== undefined) body = JSON.stringify(init.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(base + path, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed as T, headers: response.headers };
}
