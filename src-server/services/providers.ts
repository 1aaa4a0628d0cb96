import { AppError, notFound } from '../errors';
import type { OutboundFetch, OutboundInit } from '../outbound/gate';
import { FALLBACK_PROVIDER, isProviderId, providerModules, type ProviderId } from '../providers/index';
import type { ProviderConnection, ProviderHttp, ProviderModule } from '../providers/provider';
import type { CreateProviderBody, PatchProviderBody } from '../schemas/providers';
import type { Provider, ProviderStore } from '../store/providers';
import type { Writer } from '../store/writer';

/** A provider with its key in full: for calling it (SDK `run()`, the evaluation engine). */
export interface ProviderConfig {
  id: number;
  name: string;
  client: ProviderId;
  base_url: string | null;
  api_key: string | null;
  workspace_id: number;
}

/** Enough of a key to recognise it, never enough to use it. */
export function maskKey(key: string | null): string | null {
  if (key === null) return null;
  return key.length > 12 ? `${key.slice(0, 3)}…${key.slice(-4)}` : '…';
}

const config = (row: Provider): ProviderConfig => ({
  id: row.id,
  name: row.name,
  // A client no longer in the registry (a downgrade) speaks the API most servers copy.
  client: isProviderId(row.client) ? row.client : FALLBACK_PROVIDER,
  base_url: row.base_url,
  api_key: row.api_key,
  workspace_id: row.workspace_id,
});

export interface ProviderServiceDeps {
  store: ProviderStore;
  writer: Writer;
  now: () => number;
  /** Built-in providers' keys and base URLs (`OPENAI_API_KEY`, `OPENAI_BASE_URL`...). */
  env: Record<string, string | undefined>;
  outbound: OutboundFetch;
}

/** A built-in provider from the environment: its own variables, never another provider's. */
function builtIn(id: ProviderId, env: Record<string, string | undefined>): ProviderConnection {
  const module = providerModules[id];
  return { name: id, client: id, baseUrl: env[module.env.baseUrl] || module.defaultBaseUrl, apiKey: env[module.env.apiKey] || null };
}

/**
 * A stored provider calls with its own key only (issue 10, item 6): an environment key is meant for
 * the built-in provider's own server, and a stored provider's base URL may be anyone's. Without a
 * base URL it goes to the built-in's address, still without the environment's key.
 */
function stored(p: ProviderConfig, env: Record<string, string | undefined>): ProviderConnection {
  return { name: p.name, client: p.client, baseUrl: p.base_url ?? builtIn(p.client, env).baseUrl, apiKey: p.api_key };
}

export function createProviderService({ store, writer, now, env, outbound }: ProviderServiceDeps) {
  const view = (row: Provider) => ({
    id: row.id,
    name: row.name,
    client: row.client,
    base_url: row.base_url,
    api_key: maskKey(row.api_key),
    has_api_key: row.api_key !== null,
    created_at: row.created_at,
  });

  // Every LLM call of a run asks for its connection (a query and a decode, ~3 % of the main
  // thread per call at 1,000 calls a second). Provider rows change only through this service,
  // whose writes forget them all; unknown names are not kept, so the map holds known providers only.
  const connections = new Map<string, Readonly<ProviderConnection>>();

  /** Where and with which key to call `name`: a stored provider of the workspace, else a built-in one. */
  function connect(workspaceId: number, name: string): ProviderConnection | null {
    const key = `${workspaceId} ${name}`;
    const known = connections.get(key);
    if (known) return known;
    const row = store.byName(workspaceId, name);
    const found = row ? stored(config(row), env) : isProviderId(name) ? builtIn(name, env) : null;
    if (found) connections.set(key, Object.freeze(found));
    return found;
  }

  return {
    async create(workspaceId: number, body: CreateProviderBody) {
      const row = await writer.write(() => {
        connections.clear();
        if (store.byName(workspaceId, body.name)) throw new AppError('conflict', `A provider named '${body.name}' already exists.`);
        const id = store.insert({
          workspace_id: workspaceId,
          name: body.name,
          client: body.client,
          base_url: body.base_url ?? null,
          api_key: body.api_key ?? null,
          created_at: now(),
        });
        return store.byId(workspaceId, id)!;
      });
      return { success: true, provider: view(row) };
    },

    list: (workspaceId: number) => ({ items: store.all(workspaceId).map(view) }),

    async update(workspaceId: number, id: number, body: PatchProviderBody) {
      const row = await writer.write(() => {
        connections.clear();
        const current = store.byId(workspaceId, id);
        if (!current) throw notFound('Provider');
        const name = body.name ?? current.name;
        const other = store.byName(workspaceId, name);
        if (other && other.id !== id) throw new AppError('conflict', `A provider named '${name}' already exists.`);
        store.update({
          workspace_id: workspaceId,
          id,
          name,
          client: body.client ?? current.client,
          base_url: body.base_url === undefined ? current.base_url : body.base_url,
          api_key: body.api_key === undefined ? current.api_key : body.api_key,
        });
        return store.byId(workspaceId, id)!;
      });
      return { success: true, provider: view(row) };
    },

    /** Lists the provider's models: 200 either way, `ok: false` with the provider's error when it fails. */
    async test(workspaceId: number, id: number, signal: AbortSignal) {
      const row = store.byId(workspaceId, id);
      if (!row) throw notFound('Provider');
      const p = config(row);
      const http = (url: string, init: OutboundInit) => outbound({ workspaceId }, url, init);
      const started = performance.now();
      const latency = () => Math.round(performance.now() - started);
      try {
        const models = await providerModules[p.client].listModels(http, stored(p, env), signal);
        return { ok: true, latency_ms: latency(), models };
      } catch (error) {
        if (signal.aborted) throw error;
        return { ok: false, latency_ms: latency(), error: (error as Error).message };
      }
    },

    /**
     * Everything needed to call `name` outside a run (the playground): its provider file, the
     * connection with the right key, and an HTTP client that goes through the egress gate.
     */
    open(workspaceId: number, name: string): { module: ProviderModule; connection: ProviderConnection; http: ProviderHttp } | null {
      const connection = connect(workspaceId, name);
      if (!connection || !isProviderId(connection.client)) return null;
      return { module: providerModules[connection.client], connection, http: (url, init) => outbound({ workspaceId }, url, init) };
    },

    connect,

    async remove(workspaceId: number, id: number) {
      const removed = await writer.write(() => {
        connections.clear();
        return store.remove(workspaceId, id);
      });
      if (!removed) throw notFound('Provider');
    },

    byId(workspaceId: number, id: number): ProviderConfig | null {
      const row = store.byId(workspaceId, id);
      return row ? config(row) : null;
    },

    /** A stored provider by name (what `engine.provider` or `metadata.model.provider` may name). */
    byName(workspaceId: number, name: string): ProviderConfig | null {
      const row = store.byName(workspaceId, name);
      return row ? config(row) : null;
    },
  };
}

export type ProviderService = ReturnType<typeof createProviderService>;
