import type { Db } from './db';

export interface FolderRow {
  id: number;
  workspace_id: number;
  parent_id: number | null;
  name: string;
  created_at: number;
}

export function createFolderStore(db: Db) {
  const insert = db.prepare('INSERT INTO folders (workspace_id, parent_id, name, created_at) VALUES (?, ?, ?, ?)');
  const byId = db.prepare<[number, number], FolderRow>('SELECT * FROM folders WHERE id = ? AND workspace_id = ?');
  const sibling = db.prepare<[number, number | null, string], FolderRow>(
    'SELECT * FROM folders WHERE workspace_id = ? AND parent_id IS ? AND name = ?',
  );
  const all = db.prepare<[number], FolderRow>('SELECT * FROM folders WHERE workspace_id = ? ORDER BY name COLLATE NOCASE, id');
  const children = db.prepare<[number, number | null], FolderRow>(
    'SELECT * FROM folders WHERE workspace_id = ? AND parent_id IS ? ORDER BY name COLLATE NOCASE, id',
  );

  return {
    insert: (workspaceId: number, name: string, parentId: number | null, now: number) =>
      Number(insert.run(workspaceId, parentId, name, now).lastInsertRowid),
    /** Scoped to the workspace: another workspace's folder is as unknown as a missing one. */
    get: (workspaceId: number, id: number) => byId.get(id, workspaceId),
    sibling: (workspaceId: number, parentId: number | null, name: string) => sibling.get(workspaceId, parentId, name),
    list: (workspaceId: number) => all.all(workspaceId),
    children: (workspaceId: number, parentId: number | null) => children.all(workspaceId, parentId),
  };
}

export type FolderStore = ReturnType<typeof createFolderStore>;
