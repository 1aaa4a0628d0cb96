import type { Db } from './db';

export interface ProviderRow {
  id: number;
  workspace_id: number;
  name: string;
  client: string;
  base_url: string | null;
  api_key: string | null;
  created_at: number;
}

export function createProviderStore(db: Db) {
  const s = {
    byId: db.prepare<[number, number], ProviderRow>('SELECT * FROM providers WHERE workspace_id = ? AND id = ?'),
    byName: db.prepare<[number, string], ProviderRow>('SELECT * FROM providers WHERE workspace_id = ? AND name = ?'),
    all: db.prepare<[number], ProviderRow>('SELECT * FROM providers WHERE workspace_id = ? ORDER BY name'),
    insert: db.prepare<[number, string, string, string | null, string | null, number]>(
      'INSERT INTO providers (workspace_id, name, client, base_url, api_key, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    remove: db.prepare<[number, number]>('DELETE FROM providers WHERE workspace_id = ? AND id = ?'),
    update: db.prepare<[string, string, string | null, string | null, number, number]>(
      'UPDATE providers SET name = ?, client = ?, base_url = ?, api_key = ? WHERE workspace_id = ? AND id = ?',
    ),
  };
  return {
    byId: (workspaceId: number, id: number) => s.byId.get(workspaceId, id),
    byName: (workspaceId: number, name: string) => s.byName.get(workspaceId, name),
    all: (workspaceId: number) => s.all.all(workspaceId),
    insert: (p: Omit<ProviderRow, 'id'>) =>
      Number(s.insert.run(p.workspace_id, p.name, p.client, p.base_url, p.api_key, p.created_at).lastInsertRowid),
    remove: (workspaceId: number, id: number) => s.remove.run(workspaceId, id).changes > 0,
    update: (p: Pick<ProviderRow, 'workspace_id' | 'id' | 'name' | 'client' | 'base_url' | 'api_key'>) =>
      s.update.run(p.name, p.client, p.base_url, p.api_key, p.workspace_id, p.id).changes > 0,
  };
}

export type ProviderStore = ReturnType<typeof createProviderStore>;
