import { AppError, invalidField, notFound } from '../errors';
import { DRAFT_VERSION, type DatasetStore, type DatasetVersion } from '../store/datasets';
import type { FolderStore } from '../store/folders';
import type { RequestStore } from '../store/requests';
import type { Writer } from '../store/writer';
import type { FromRequestsBody } from '../schemas/datasets';
import { exportStream, type ExportFormat } from './dataset-export';
import { publishFromRequests, requestRecord } from './dataset-from-requests';
import { publishFile } from './dataset-import';
import { pageFields } from './page-fields';

export interface DatasetServiceDeps {
  store: DatasetStore;
  folders: FolderStore;
  requests: RequestStore;
  /** Resolves once every acknowledged request is in the text index (store/ingest.ts `indexText`). */
  textIndexed: () => Promise<void>;
  writer: Writer;
  now: () => number;
}

export type { DatasetVersion } from '../store/datasets';

export interface DatasetRowView {
  row_index: number;
  data: Record<string, unknown>;
}

/**
 * A row's data with every column present, in column order (a stored row may lack some keys). A
 * null-prototype object, read with hasOwn: a column named `__proto__`, `constructor` or
 * `toString` is data like any other, never the object's prototype or an inherited function.
 */
export function rowData(columns: readonly string[], stored: Record<string, unknown>): Record<string, unknown> {
  const data = Object.create(null) as Record<string, unknown>;
  for (const column of columns) data[column] = Object.hasOwn(stored, column) ? stored[column] ?? null : null;
  return data;
}

/** Columns in order of first appearance across rows, after any given first. */
export function mergeColumns(first: readonly string[], rows: Iterable<Record<string, unknown>>): string[] {
  const seen = new Set(first);
  for (const row of rows) for (const key of Object.keys(row)) seen.add(key);
  return [...seen];
}

export function createDatasetService({ store, folders, requests, textIndexed, writer, now }: DatasetServiceDeps) {
  function requireGroup(workspaceId: number, groupId: number, loc: Array<string | number> = ['body', 'dataset_group_id']) {
    const group = store.group(workspaceId, groupId);
    // 404 like any unknown id; the loc tells which field in bodies that carry several ids.
    if (!group) throw new AppError('not_found', `Dataset group ${groupId} not found.`, [{ loc, msg: 'Dataset group not found', type: 'not_found' }]);
    return group;
  }

  function requireDataset(workspaceId: number, datasetId: number): DatasetVersion {
    const row = store.dataset(workspaceId, datasetId);
    if (!row) throw notFound(`Dataset ${datasetId}`);
    return row;
  }

  function requireFolder(workspaceId: number, folderId: number | null | undefined): number | null {
    if (folderId == null) return null;
    if (!folders.get(workspaceId, folderId)) throw notFound(`Folder ${folderId}`);
    return folderId;
  }

  function groupView(workspaceId: number, groupId: number) {
    const group = requireGroup(workspaceId, groupId, ['path', 'id']);
    const s = store.groupSummaries([group.id]).get(group.id)!;
    return {
      success: true,
      dataset_group: {
        ...group,
        version_count: s.versions,
        latest_version: s.latest ?? null,
        draft_dataset_id: s.draft?.id ?? null,
      },
    };
  }

  /** Appends rows to the group's draft (creating one if missing); columns are merged. */
  function appendToDraft(groupId: number, rows: Array<Record<string, unknown>>): Promise<number> {
    return writer.write(() => {
      if (!store.draft(groupId)) store.createDraft(groupId, now());
      const draft = store.draft(groupId)!;
      const columns = mergeColumns(draft.column_names, rows);
      store.insertRows(draft.id, draft.row_count, rows.map((r) => JSON.stringify(r)));
      store.setShape(draft.id, columns, draft.row_count + rows.length);
      return draft.id;
    });
  }

  return {
    requireGroup,

    async createGroup(workspaceId: number, body: { name: string; folder_id?: number | null }) {
      const folderId = requireFolder(workspaceId, body.folder_id);
      const created = await writer.write(() => {
        if (store.groupByName(workspaceId, body.name)) {
          throw new AppError('conflict', `A dataset group named '${body.name}' already exists in this workspace.`);
        }
        return store.createGroup(workspaceId, body.name, folderId, now());
      });
      const group = store.group(workspaceId, created.groupId)!;
      return { success: true, dataset_group: group, dataset: { id: created.draftId, version_number: DRAFT_VERSION } };
    },

    /** `PATCH …/dataset-groups/{id}`: a new name, unique among the workspace's live groups (409). */
    async renameGroup(workspaceId: number, groupId: number, body: { name: string }) {
      requireGroup(workspaceId, groupId, ['path', 'id']);
      await writer.write(() => {
        const same = store.groupByName(workspaceId, body.name);
        if (same && same.id !== groupId) throw new AppError('conflict', `A dataset group named '${body.name}' already exists in this workspace.`);
        if (!store.renameGroup(workspaceId, groupId, body.name)) throw notFound(`Dataset group ${groupId}`);
      });
      return groupView(workspaceId, groupId);
    },

    /**
     * `DELETE …/dataset-groups/{id}`: archived, not deleted. Gone from lists and 404 by group id;
     * its versions stay readable by dataset id, so the runs that pinned them still render.
     */
    async archiveGroup(workspaceId: number, groupId: number) {
      await writer.write(() => {
        if (!store.archiveGroup(workspaceId, groupId, now())) throw notFound(`Dataset group ${groupId}`);
      });
    },

    listGroups(workspaceId: number, query: { page: number; per_page: number; folder_id?: number; name?: string }) {
      const { items, total } = store.listGroups(
        workspaceId,
        { folderId: query.folder_id, name: query.name },
        query.per_page,
        (query.page - 1) * query.per_page,
      );
      const summaries = store.groupSummaries(items.map((g) => g.id));
      return {
        items: items.map((g) => {
          const s = summaries.get(g.id)!;
          return {
            ...g,
            version_count: s.versions,
            latest_version: s.latest ?? null,
            draft_dataset_id: s.draft?.id ?? null,
          };
        }),
        ...pageFields(query.page, query.per_page, total),
      };
    },

    getGroup: groupView,

    listVersions(workspaceId: number, query: { dataset_group_id?: number; page: number; per_page: number; include_draft: boolean }) {
      const offset = (query.page - 1) * query.per_page;
      let result;
      if (query.dataset_group_id === undefined) result = store.listWorkspaceVersions(workspaceId, query.per_page, offset);
      else {
        requireGroup(workspaceId, query.dataset_group_id, ['query', 'dataset_group_id']);
        result = store.listVersions(query.dataset_group_id, query.include_draft, query.per_page, offset);
      }
      return { datasets: result.items, ...pageFields(query.page, query.per_page, result.total) };
    },

    getVersion: (workspaceId: number, datasetId: number) => ({ success: true, dataset: requireDataset(workspaceId, datasetId) }),

    rows(workspaceId: number, datasetId: number, query: { page: number; per_page: number; q?: string }) {
      const dataset = requireDataset(workspaceId, datasetId);
      const offset = (query.page - 1) * query.per_page;
      const q = query.q?.trim();
      const { items, total } = q
        ? store.search(datasetId, q, query.per_page, offset)
        : { items: store.rows(datasetId, offset, query.per_page), total: dataset.row_count };
      return {
        columns: dataset.column_names,
        rows: items.map((r) => ({ row_index: r.row_index, data: rowData(dataset.column_names, r.data) })),
        ...pageFields(query.page, query.per_page, total),
      };
    },

    /** `PUT .../rows`: the draft's rows become exactly these; a published version is immutable. */
    async replaceRows(workspaceId: number, datasetId: number, body: { rows: Array<Record<string, unknown>>; column_names?: string[] }) {
      const columns = mergeColumns(body.column_names ?? [], body.rows);
      const texts = body.rows.map((r) => JSON.stringify(r));
      const dataset = await writer.write(() => {
        const current = requireDataset(workspaceId, datasetId);
        if (current.version_number !== DRAFT_VERSION) {
          throw new AppError('conflict', `Dataset ${datasetId} is published version ${current.version_number}; published versions cannot be edited. Create a draft from it instead.`);
        }
        store.deleteRows(datasetId);
        store.insertRows(datasetId, 0, texts);
        store.setShape(datasetId, columns, texts.length);
        return store.dataset(workspaceId, datasetId)!;
      });
      return { success: true, dataset };
    },

    /**
     * The group always has a draft (one comes with the group and after each save). A draft that
     * holds no rows is a placeholder: create-draft seeds it from `source_dataset_id`. A draft with
     * rows, or a request with nothing to seed from, is the "draft exists" conflict.
     */
    async createDraft(workspaceId: number, body: { dataset_group_id: number; source_dataset_id?: number | null }) {
      requireGroup(workspaceId, body.dataset_group_id);
      const source = body.source_dataset_id == null ? null : store.dataset(workspaceId, body.source_dataset_id);
      if (body.source_dataset_id != null && (!source || source.dataset_group_id !== body.dataset_group_id)) {
        throw new AppError('not_found', `Dataset ${body.source_dataset_id} not found in group ${body.dataset_group_id}.`, [
          { loc: ['body', 'source_dataset_id'], msg: 'Dataset not found in this group', type: 'not_found' },
        ]);
      }
      const draftId = await writer.write(() => {
        const draft = store.draft(body.dataset_group_id);
        if (draft && (draft.row_count > 0 || !source || source.id === draft.id)) {
          throw new AppError('conflict', `Dataset group ${body.dataset_group_id} already has a draft (dataset ${draft.id}); save or edit it first.`);
        }
        const id = draft?.id ?? store.createDraft(body.dataset_group_id, now());
        if (source) {
          store.copyRows(source.id, id);
          store.setShape(id, source.column_names, source.row_count);
        }
        return id;
      });
      return { success: true, draft_dataset_id: draftId };
    },

    appendToDraft,

    /** `from-file`: `path` holds the decoded upload; publishes the next version or creates nothing. */
    async fromFile(workspaceId: number, body: { dataset_group_id: number; file_name: string }, path: string) {
      requireGroup(workspaceId, body.dataset_group_id);
      const published = await publishFile({ store, writer, now }, body.dataset_group_id, body.file_name, path);
      return { success: true, dataset_id: published.dataset_id, version_number: published.version_number };
    },

    async fromRequests(workspaceId: number, body: FromRequestsBody) {
      requireGroup(workspaceId, body.dataset_group_id);
      const published = await publishFromRequests({ store, writer, now, requests, textIndexed }, workspaceId, body);
      return { success: true, dataset_id: published.dataset_id, version_number: published.version_number, row_count: published.row_count };
    },

    /** `add-request-log`: one logged request becomes the draft's next row. */
    async addRequestLog(workspaceId: number, body: { dataset_group_id: number; request_log_id: number }) {
      requireGroup(workspaceId, body.dataset_group_id);
      const request = requests.get(workspaceId, body.request_log_id);
      if (!request) {
        throw new AppError('not_found', `Request ${body.request_log_id} not found.`, [
          { loc: ['body', 'request_log_id'], msg: 'Request not found', type: 'not_found' },
        ]);
      }
      const draftId = await appendToDraft(body.dataset_group_id, [requestRecord(request)]);
      return { success: true, draft_dataset_id: draftId };
    },

    export(workspaceId: number, datasetId: number, format: ExportFormat) {
      const version = requireDataset(workspaceId, datasetId);
      const label = version.version_number === DRAFT_VERSION ? 'draft' : `v${version.version_number}`;
      return { fileName: `${store.groupName(version.dataset_group_id)}-${label}.${format}`, stream: exportStream(store, version, format) };
    },

    /** Publishes the draft as the next version; a new empty draft takes its place. */
    async saveDraft(workspaceId: number, body: { dataset_group_id: number }) {
      requireGroup(workspaceId, body.dataset_group_id);
      const saved = await writer.write(() => {
        const draft = store.draft(body.dataset_group_id);
        if (!draft) throw new AppError('conflict', `Dataset group ${body.dataset_group_id} has no draft to save.`);
        const versionNumber = store.publish(draft.id, body.dataset_group_id, now());
        store.createDraft(body.dataset_group_id, now());
        return { id: draft.id, versionNumber };
      });
      return { success: true, dataset_id: saved.id, version_number: saved.versionNumber };
    },

    // ---- For the evaluation engine -------------------------------------------------------

    /**
     * The version a report runs on: `versionNumber` null → the latest published version (400 if
     * the group has none); a number → that version (404 if absent); -1 is refused (422), since a
     * draft changes under a running report. Unknown group or another workspace's → 404.
     */
    resolveVersion(workspaceId: number, groupId: number, versionNumber: number | null): DatasetVersion {
      requireGroup(workspaceId, groupId);
      if (versionNumber === DRAFT_VERSION) {
        throw invalidField(['body', 'dataset_version_number'], 'The draft (-1) cannot be evaluated; save it as a version first');
      }
      if (versionNumber === null) {
        const latest = store.latestPublished(groupId);
        if (!latest) throw new AppError('bad_request', `Dataset group ${groupId} has no published version yet.`);
        return latest;
      }
      const row = store.version(groupId, versionNumber);
      if (!row) throw notFound(`Version ${versionNumber} of dataset group ${groupId}`);
      return row;
    },

    /** A visible version (published or draft) by dataset id; 404 if unknown or in another workspace. */
    version: (workspaceId: number, datasetId: number): DatasetVersion => requireDataset(workspaceId, datasetId),

    /**
     * A version's rows in row_index order, every column present. Reads in chunks with no cursor
     * left open between them, so the caller may write to the database while iterating.
     */
    *iterateRows(version: Pick<DatasetVersion, 'id' | 'column_names'>, chunkSize = 500): Generator<DatasetRowView> {
      let from = 0;
      for (;;) {
        const chunk = store.rows(version.id, from, chunkSize);
        for (const r of chunk) yield { row_index: r.row_index, data: rowData(version.column_names, r.data) };
        if (chunk.length < chunkSize) return;
        from = chunk[chunk.length - 1].row_index + 1;
      }
    },
  };
}

export type DatasetService = ReturnType<typeof createDatasetService>;
