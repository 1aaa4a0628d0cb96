import { AppError, notFound } from '../errors';
import type { FolderStore } from '../store/folders';
import type { Writer } from '../store/writer';

export interface FolderServiceDeps {
  store: FolderStore;
  writer: Writer;
  now: () => number;
}

/** Folders form a tree per workspace; dataset groups, templates and reports sit in one or at the root. */
export function createFolderService({ store, writer, now }: FolderServiceDeps) {
  return {
    async create(workspaceId: number, body: { name: string; parent_id?: number | null }) {
      const parentId = body.parent_id ?? null;
      if (parentId !== null && !store.get(workspaceId, parentId)) throw notFound(`Folder ${parentId}`);
      const id = await writer.write(() => {
        if (store.sibling(workspaceId, parentId, body.name)) {
          throw new AppError('conflict', `A folder named '${body.name}' already exists ${parentId === null ? 'at the root' : `in folder ${parentId}`}.`);
        }
        return store.insert(workspaceId, body.name, parentId, now());
      });
      return { success: true, folder: store.get(workspaceId, id)! };
    },

    /** `PATCH …/folders/{id}`: a new name, unique among its siblings (409), as at create. */
    async rename(workspaceId: number, id: number, body: { name: string }) {
      await writer.write(() => {
        const folder = store.get(workspaceId, id);
        if (!folder) throw notFound(`Folder ${id}`);
        const same = store.sibling(workspaceId, folder.parent_id, body.name);
        if (same && same.id !== id) {
          throw new AppError('conflict', `A folder named '${body.name}' already exists ${folder.parent_id === null ? 'at the root' : `in folder ${folder.parent_id}`}.`);
        }
        store.rename(workspaceId, id, body.name);
      });
      return { success: true, folder: store.get(workspaceId, id)! };
    },

    list(workspaceId: number, query: { parent_id?: number }) {
      if (query.parent_id !== undefined && !store.get(workspaceId, query.parent_id)) throw notFound(`Folder ${query.parent_id}`);
      const rows = query.parent_id === undefined ? store.list(workspaceId) : store.children(workspaceId, query.parent_id);
      return { success: true, folders: rows };
    },

    get(workspaceId: number, id: number) {
      const folder = store.get(workspaceId, id);
      if (!folder) throw notFound(`Folder ${id}`);
      return { success: true, folder };
    },
  };
}

export type FolderService = ReturnType<typeof createFolderService>;
