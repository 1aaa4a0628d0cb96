import { isoDate } from '../iso-date';
import type { Db } from './db';

interface ProviderRow {
  id: number;
  workspace_id: number;
  name: string;
  client: string;
  base_url: string | null;
  api_key: string | null;
  created_at: number;
}

/** A stored provider as services see it: the key in full (masking is the view's job), dates ISO. */
export interface Provider extends Omit<ProviderRow, 'created_at'> {
  created_at: string;
}

const decode = (row: ProviderRow): Provider => ({ ...row, created_at: isoDate(row.created_at) });

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
    byId: (workspaceId: number, id: number): Provider | undefined => {
      const row = s.byId.get(workspaceId, id);
      return row && decode(row);
    },
    byName: (workspaceId: number, name: string): Provider | undefined => {
      const row = s.byName.get(workspaceId, name);
      return row && decode(row);
    },
    all: (workspaceId: number) => s.all.all(workspaceId).map(decode),
    insert: (p: Omit<ProviderRow, 'id'>) =>
      Number(s.insert.run(p.workspace_id, p.name, p.client, p.base_url, p.api_key, p.created_at).lastInsertRowid),
    remove: (workspaceId: number, id: number) => s.remove.run(workspaceId, id).changes > 0,
    update: (p: Pick<Provider, 'workspace_id' | 'id' | 'name' | 'client' | 'base_url' | 'api_key'>) =>
      s.update.run(p.name, p.client, p.base_url, p.api_key, p.workspace_id, p.id).changes > 0,
  };
}

export type ProviderStore = ReturnType<typeof createProviderStore>;
