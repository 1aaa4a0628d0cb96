import type { Db } from './db';

export interface WorkspaceRow {
  id: number;
  name: string;
  created_at: number;
}

export interface ApiKeyRow {
  id: number;
  workspace_id: number;
  name: string;
  prefix: string;
  key_hash: string;
  created_at: number;
  revoked_at: number | null;
}

export function createWorkspaceStore(db: Db) {
  const statements = {
    workspace: db.prepare<[number], WorkspaceRow>('SELECT * FROM workspaces WHERE id = ?'),
    insertWorkspace: db.prepare<[string, number]>('INSERT INTO workspaces (name, created_at) VALUES (?, ?)'),
    keyByHash: db.prepare<[string], ApiKeyRow>('SELECT * FROM api_keys WHERE key_hash = ?'),
    keyById: db.prepare<[number, number], ApiKeyRow>('SELECT * FROM api_keys WHERE id = ? AND workspace_id = ?'),
    activeKeyCount: db.prepare<[number], { n: number }>(
      'SELECT count(*) AS n FROM api_keys WHERE workspace_id = ? AND revoked_at IS NULL',
    ),
    keys: db.prepare<[number], ApiKeyRow>(
      'SELECT * FROM api_keys WHERE workspace_id = ? AND revoked_at IS NULL ORDER BY id DESC',
    ),
    insertKey: db.prepare<[number, string, string, string, number]>(
      'INSERT INTO api_keys (workspace_id, name, prefix, key_hash, created_at) VALUES (?, ?, ?, ?, ?)',
    ),
    revokeKey: db.prepare<[number, number, number]>(
      'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND workspace_id = ? AND revoked_at IS NULL',
    ),
  };

  return {
    workspace: (id: number) => statements.workspace.get(id),
    insertWorkspace: (name: string, now: number) =>
      Number(statements.insertWorkspace.run(name, now).lastInsertRowid),
    keyByHash: (hash: string) => statements.keyByHash.get(hash),
    keyById: (workspaceId: number, id: number) => statements.keyById.get(id, workspaceId),
    activeKeyCount: (workspaceId: number) => statements.activeKeyCount.get(workspaceId)!.n,
    keys: (workspaceId: number) => statements.keys.all(workspaceId),
    insertKey: (key: Omit<ApiKeyRow, 'id' | 'revoked_at'>) =>
      Number(
        statements.insertKey.run(key.workspace_id, key.name, key.prefix, key.key_hash, key.created_at)
          .lastInsertRowid,
      ),
    revokeKey: (workspaceId: number, id: number, now: number) =>
      statements.revokeKey.run(now, id, workspaceId).changes > 0,
  };
}

export type WorkspaceStore = ReturnType<typeof createWorkspaceStore>;
