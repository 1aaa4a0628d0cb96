import { AppError, notFound } from '../errors';
import type { CreateProviderBody } from '../schemas/providers';
import type { ProviderRow, ProviderStore } from '../store/providers';
import type { Writer } from '../store/writer';
import type { ProviderClient } from './llm-kwargs';

/** A provider with its key in full: for calling it (SDK `run()`, the evaluation engine). */
export interface ProviderConfig {
  id: number;
  name: string;
  client: ProviderClient;
  base_url: string | null;
  api_key: string | null;
  workspace_id: number;
}

/** Enough of a key to recognise it, never enough to use it. */
export function maskKey(key: string | null): string | null {
  if (key === null) return null;
  return key.length > 12 ? `${key.slice(0, 3)}…${key.slice(-4)}` : '…';
}

const config = (row: ProviderRow): ProviderConfig => ({
  id: row.id,
  name: row.name,
  client: row.client === 'anthropic' ? 'anthropic' : 'openai',
  base_url: row.base_url,
  api_key: row.api_key,
  workspace_id: row.workspace_id,
});

export function createProviderService({ store, writer, now }: { store: ProviderStore; writer: Writer; now: () => number }) {
  const view = (row: ProviderRow) => ({
    id: row.id,
    name: row.name,
    client: row.client,
    base_url: row.base_url,
    api_key: maskKey(row.api_key),
    has_api_key: row.api_key !== null,
    created_at: new Date(row.created_at).toISOString(),
  });

  return {
    async create(workspaceId: number, body: CreateProviderBody) {
      const row = await writer.write(() => {
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

    async remove(workspaceId: number, id: number) {
      const removed = await writer.write(() => store.remove(workspaceId, id));
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
