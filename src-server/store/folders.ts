import { isoDate } from '../iso-date';
import type { Db } from './db';

interface FolderRow {
  id: number;
  workspace_id: number;
  parent_id: number | null;
  name: string;
  created_at: number;
}

/** A folder as the API shows it. */
export interface Folder {
  id: number;
  name: string;
  parent_id: number | null;
  workspace_id: number;
  created_at: string;
}

const decode = (f: FolderRow): Folder => ({
  id: f.id,
  name: f.name,
  parent_id: f.parent_id,
  workspace_id: f.workspace_id,
  created_at: isoDate(f.created_at),
});

export function createFolderStore(db: Db) {
  const insert = db.prepare('INSERT INTO folders (workspace_id, parent_id, name, created_at) VALUES (?, ?, ?, ?)');
  const byId = db.prepare<[number, number], FolderRow>('SELECT * FROM folders WHERE id = ? AND workspace_id = ?');
  const sibling = db.prepare<[number, number | null, string], FolderRow>(
    'SELECT * FROM folders WHERE workspace_id = ? AND parent_id IS ? AND name = ?',
  );
  const rename = db.prepare('UPDATE folders SET name = ? WHERE id = ? AND workspace_id = ?');
  const all = db.prepare<[number], FolderRow>('SELECT * FROM folders WHERE workspace_id = ? ORDER BY name COLLATE NOCASE, id');
  const children = db.prepare<[number, number | null], FolderRow>(
    'SELECT * FROM folders WHERE workspace_id = ? AND parent_id IS ? ORDER BY name COLLATE NOCASE, id',
  );

  return {
    insert: (workspaceId: number, name: string, parentId: number | null, now: number) =>
      Number(insert.run(workspaceId, parentId, name, now).lastInsertRowid),
    /** Scoped to the workspace: another workspace's folder is as unknown as a missing one. */
    get: (workspaceId: number, id: number): Folder | undefined => {
      const row = byId.get(id, workspaceId);
      return row && decode(row);
    },
    sibling: (workspaceId: number, parentId: number | null, name: string): Folder | undefined => {
      const row = sibling.get(workspaceId, parentId, name);
      return row && decode(row);
    },
    rename: (workspaceId: number, id: number, name: string) => void rename.run(name, id, workspaceId),
    list: (workspaceId: number): Folder[] => all.all(workspaceId).map(decode),
    children: (workspaceId: number, parentId: number | null): Folder[] => children.all(workspaceId, parentId).map(decode),
  };
}

export type FolderStore = ReturnType<typeof createFolderStore>;
