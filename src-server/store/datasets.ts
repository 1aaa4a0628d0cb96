import { isoDate } from '../iso-date';
import type { Db } from './db';

interface DatasetGroupRow {
  id: number;
  workspace_id: number;
  folder_id: number | null;
  name: string;
  created_at: number;
  archived_at: number | null;
}

/** One version of a group. `column_names` is a JSON array; see 003-datasets.ts for version_number. */
interface DatasetRow {
  id: number;
  dataset_group_id: number;
  version_number: number | null;
  column_names: string;
  row_count: number;
  created_at: number;
}

/** A stored row: `data` is the JSON text of `{column: value}`. */
interface DatasetRowRecord {
  row_index: number;
  data: string;
}

export interface DatasetGroup {
  id: number;
  name: string;
  workspace_id: number;
  folder_id: number | null;
  created_at: string;
}

/** One version of a dataset group as the API and the evaluation engine see it. */
export interface DatasetVersion {
  id: number;
  dataset_group_id: number;
  /** >= 1 published (immutable); -1 the draft. */
  version_number: number;
  column_names: string[];
  row_count: number;
  created_at: string;
}

/** A row as stored: its JSON object may lack columns added after it was written. */
export interface StoredDatasetRow {
  row_index: number;
  data: Record<string, unknown>;
}

const decodeGroup = (g: DatasetGroupRow): DatasetGroup => ({
  id: g.id,
  name: g.name,
  workspace_id: g.workspace_id,
  folder_id: g.folder_id,
  created_at: isoDate(g.created_at),
});

// Every query that decodes a version reads visible ones only (version_number NOT NULL).
const decodeVersion = (d: DatasetRow): DatasetVersion => ({
  id: d.id,
  dataset_group_id: d.dataset_group_id,
  version_number: d.version_number!,
  column_names: JSON.parse(d.column_names) as string[],
  row_count: d.row_count,
  created_at: isoDate(d.created_at),
});

const decodeRow = (r: DatasetRowRecord): StoredDatasetRow => ({ row_index: r.row_index, data: JSON.parse(r.data) as Record<string, unknown> });

function maybe<R, T>(decode: (row: R) => T, row: R | undefined): T | undefined {
  return row === undefined ? undefined : decode(row);
}

export const DRAFT_VERSION = -1;
const ROWS_PER_INSERT = 100;

/** Rows' JSON texts packed end to end as UTF-8: row `i` is `bytes[ends[i - 1] ?? 0 .. ends[i])`. */
export interface PackedRows {
  bytes: Buffer;
  ends: Uint32Array;
  count: number;
}

/** Page cache while an import's rows go in: its pages are written once, not read back soon. */
const IMPORT_CACHE_KIB = 4096;

export function createDatasetStore(db: Db) {
  const insertGroup = db.prepare('INSERT INTO dataset_groups (workspace_id, folder_id, name, created_at) VALUES (?, ?, ?, ?)');
  const groupById = db.prepare<[number, number], DatasetGroupRow>(
    'SELECT * FROM dataset_groups WHERE id = ? AND workspace_id = ? AND archived_at IS NULL',
  );
  const groupByName = db.prepare<[number, string], DatasetGroupRow>(
    'SELECT * FROM dataset_groups WHERE workspace_id = ? AND name = ? AND archived_at IS NULL',
  );
  const groupNameOf = db.prepare<[number], { name: string }>('SELECT name FROM dataset_groups WHERE id = ?');
  const archiveGroup = db.prepare('UPDATE dataset_groups SET archived_at = ? WHERE id = ? AND workspace_id = ? AND archived_at IS NULL');
  const renameGroup = db.prepare('UPDATE dataset_groups SET name = ? WHERE id = ? AND workspace_id = ? AND archived_at IS NULL');
  const insertDataset = db.prepare(
    'INSERT INTO datasets (dataset_group_id, version_number, column_names, row_count, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const datasetById = db.prepare<[number, number], DatasetRow>(`
    SELECT d.* FROM datasets d JOIN dataset_groups g ON g.id = d.dataset_group_id
    WHERE d.id = ? AND g.workspace_id = ? AND d.version_number IS NOT NULL`);
  const byVersion = db.prepare<[number, number], DatasetRow>('SELECT * FROM datasets WHERE dataset_group_id = ? AND version_number = ?');
  const latest = db.prepare<[number], DatasetRow>(
    'SELECT * FROM datasets WHERE dataset_group_id = ? AND version_number >= 1 ORDER BY version_number DESC LIMIT 1',
  );
  const nextNumber = db.prepare<[number], { n: number }>(
    'SELECT coalesce(max(version_number), 0) + 1 AS n FROM datasets WHERE dataset_group_id = ? AND version_number >= 1',
  );
  const setNumber = db.prepare('UPDATE datasets SET version_number = ?, created_at = ? WHERE id = ?');
  const setShape = db.prepare('UPDATE datasets SET column_names = ?, row_count = ? WHERE id = ?');
  const deleteRowsOf = db.prepare('DELETE FROM dataset_rows WHERE dataset_id = ?');
  const deleteDataset = db.prepare('DELETE FROM datasets WHERE id = ?');
  const insertRow = db.prepare('INSERT INTO dataset_rows (dataset_id, row_index, data) VALUES (?, ?, ?)');
  // One statement per 100 rows: an import spends less time crossing into SQLite per row.
  const insertMany = db.prepare(
    `INSERT INTO dataset_rows (dataset_id, row_index, data) VALUES ${Array.from({ length: ROWS_PER_INSERT }, () => '(?, ?, ?)').join(', ')}`,
  );
  // The same from UTF-8 bytes: bound as a BLOB, stored as the TEXT those bytes spell.
  const insertPackedRow = db.prepare('INSERT INTO dataset_rows (dataset_id, row_index, data) VALUES (?, ?, CAST(? AS TEXT))');
  const insertPackedMany = db.prepare(
    `INSERT INTO dataset_rows (dataset_id, row_index, data) VALUES ${Array.from({ length: ROWS_PER_INSERT }, () => '(?, ?, CAST(? AS TEXT))').join(', ')}`,
  );
  const cacheSize = db.pragma('cache_size', { simple: true }) as number;
  const copyRows = db.prepare(
    'INSERT INTO dataset_rows (dataset_id, row_index, data) SELECT ?, row_index, data FROM dataset_rows WHERE dataset_id = ? ORDER BY row_index',
  );
  const rowRange = db.prepare<[number, number, number], DatasetRowRecord>(
    'SELECT row_index, data FROM dataset_rows WHERE dataset_id = ? AND row_index >= ? ORDER BY row_index LIMIT ?',
  );
  // Values only, not the column names every row repeats in its JSON text. json_each per row is
  // the slow part (~0.8 s over 100k rows), so when the term reads the same inside JSON text (no
  // quote, backslash or control character to escape) a plain LIKE on the text goes first and
  // json_each only confirms its candidates.
  const inValues = "EXISTS (SELECT 1 FROM json_each(data) j WHERE j.value LIKE ? ESCAPE '\\')";
  const inText = "data LIKE ? ESCAPE '\\'";
  const search = (prefilter: boolean) => {
    const where = `dataset_id = ? AND ${prefilter ? `${inText} AND ` : ''}${inValues}`;
    return {
      rows: db.prepare<unknown[], DatasetRowRecord>(`SELECT row_index, data FROM dataset_rows WHERE ${where} ORDER BY row_index LIMIT ? OFFSET ?`),
      count: db.prepare<unknown[], { n: number }>(`SELECT count(*) AS n FROM dataset_rows WHERE ${where}`),
    };
  };
  const searchScan = search(false);
  const searchPrefiltered = search(true);
  const abandoned = db.prepare<[], { id: number }>('SELECT id FROM datasets WHERE version_number IS NULL');

  function removeDataset(id: number): void {
    deleteRowsOf.run(id);
    deleteDataset.run(id);
  }

  return {
    /** Creates the group and its empty draft; call inside a transaction. */
    createGroup(workspaceId: number, name: string, folderId: number | null, now: number): { groupId: number; draftId: number } {
      const groupId = Number(insertGroup.run(workspaceId, folderId, name, now).lastInsertRowid);
      const draftId = Number(insertDataset.run(groupId, DRAFT_VERSION, '[]', 0, now).lastInsertRowid);
      return { groupId, draftId };
    },

    /** A live group; an archived one is as unknown as a missing one. */
    group: (workspaceId: number, id: number) => maybe(decodeGroup, groupById.get(id, workspaceId)),
    /** The group's name, archived or not: the versions of an archived group stay readable by id. */
    groupName: (groupId: number) => groupNameOf.get(groupId)?.name,
    /** Hides the group from lists and reads by group id; its versions stay, since runs pin them. */
    archiveGroup: (workspaceId: number, id: number, now: number) => archiveGroup.run(now, id, workspaceId).changes > 0,
    renameGroup: (workspaceId: number, id: number, name: string) => renameGroup.run(name, id, workspaceId).changes > 0,
    groupByName: (workspaceId: number, name: string) => maybe(decodeGroup, groupByName.get(workspaceId, name)),

    listGroups(workspaceId: number, filter: { folderId?: number | null; name?: string }, limit: number, offset: number) {
      const { where, params } = groupWhere(workspaceId, filter);
      const items = db
        .prepare<unknown[], DatasetGroupRow>(`SELECT * FROM dataset_groups WHERE ${where} ORDER BY id DESC LIMIT ? OFFSET ?`)
        .all(...params, limit, offset)
        .map(decodeGroup);
      const total = (db.prepare<unknown[], { n: number }>(`SELECT count(*) AS n FROM dataset_groups WHERE ${where}`).get(...params) as { n: number }).n;
      return { items, total };
    },

    /** Summaries of many groups at once: published version count and the latest published version. */
    groupSummaries(groupIds: number[]): Map<number, { versions: number; latest: DatasetVersion | undefined; draft: DatasetVersion | undefined }> {
      const out = new Map(groupIds.map((id) => [id, { versions: 0, latest: undefined as DatasetVersion | undefined, draft: undefined as DatasetVersion | undefined }]));
      if (groupIds.length === 0) return out;
      const rows = db
        .prepare<[string], DatasetRow>(
          'SELECT * FROM datasets WHERE dataset_group_id IN (SELECT value FROM json_each(?)) AND version_number IS NOT NULL',
        )
        .all(JSON.stringify(groupIds))
        .map(decodeVersion);
      for (const row of rows) {
        const summary = out.get(row.dataset_group_id)!;
        if (row.version_number === DRAFT_VERSION) summary.draft = row;
        else {
          summary.versions++;
          if (!summary.latest || row.version_number > summary.latest.version_number) summary.latest = row;
        }
      }
      return out;
    },

    /** A visible version (published or draft) in the workspace; imports still running are not. */
    dataset: (workspaceId: number, id: number) => maybe(decodeVersion, datasetById.get(id, workspaceId)),
    version: (groupId: number, versionNumber: number) => maybe(decodeVersion, byVersion.get(groupId, versionNumber)),
    draft: (groupId: number) => maybe(decodeVersion, byVersion.get(groupId, DRAFT_VERSION)),
    latestPublished: (groupId: number) => maybe(decodeVersion, latest.get(groupId)),

    listVersions(groupId: number, includeDraft: boolean, limit: number, offset: number) {
      const where = `dataset_group_id = ? AND ${includeDraft ? 'version_number IS NOT NULL' : 'version_number >= 1'}`;
      // The draft (-1) sorts first, then published newest first.
      const items = db
        .prepare<[number, number, number], DatasetRow>(
          `SELECT * FROM datasets WHERE ${where} ORDER BY version_number = -1 DESC, version_number DESC LIMIT ? OFFSET ?`,
        )
        .all(groupId, limit, offset)
        .map(decodeVersion);
      const total = (db.prepare<[number], { n: number }>(`SELECT count(*) AS n FROM datasets WHERE ${where}`).get(groupId) as { n: number }).n;
      return { items, total };
    },

    /** Every visible version in the workspace, newest first (the draft of each group included). */
    listWorkspaceVersions(workspaceId: number, limit: number, offset: number) {
      const from = `FROM datasets d JOIN dataset_groups g ON g.id = d.dataset_group_id
        WHERE g.workspace_id = ? AND g.archived_at IS NULL AND d.version_number IS NOT NULL`;
      const items = db.prepare<[number, number, number], DatasetRow>(`SELECT d.* ${from} ORDER BY d.id DESC LIMIT ? OFFSET ?`).all(workspaceId, limit, offset).map(decodeVersion);
      const total = (db.prepare<[number], { n: number }>(`SELECT count(*) AS n ${from}`).get(workspaceId) as { n: number }).n;
      return { items, total };
    },

    /** A dataset not yet visible (version_number NULL), filled by an import before `publish`. */
    createPending(groupId: number, now: number): number {
      return Number(insertDataset.run(groupId, null, '[]', 0, now).lastInsertRowid);
    },

    /** A new empty draft (the group must have none). */
    createDraft(groupId: number, now: number): number {
      return Number(insertDataset.run(groupId, DRAFT_VERSION, '[]', 0, now).lastInsertRowid);
    },

    /** Numbers a pending dataset or the draft as the group's next version; call inside a transaction. */
    publish(datasetId: number, groupId: number, now: number): number {
      const number = nextNumber.get(groupId)!.n;
      setNumber.run(number, now, datasetId);
      return number;
    },

    setShape: (datasetId: number, columns: string[], rowCount: number) => setShape.run(JSON.stringify(columns), rowCount, datasetId),

    /** Appends rows at `startIndex`, `startIndex + 1`, ...; `rows` are JSON texts. */
    insertRows(datasetId: number, startIndex: number, rows: readonly string[]): void {
      let i = 0;
      const params: unknown[] = new Array(ROWS_PER_INSERT * 3);
      for (; i + ROWS_PER_INSERT <= rows.length; i += ROWS_PER_INSERT) {
        for (let k = 0; k < ROWS_PER_INSERT; k++) {
          params[k * 3] = datasetId;
          params[k * 3 + 1] = startIndex + i + k;
          params[k * 3 + 2] = rows[i + k];
        }
        insertMany.run(params);
      }
      for (; i < rows.length; i++) insertRow.run(datasetId, startIndex + i, rows[i]);
    },

    /**
     * `insertRows` for an import's packed batch. SQLite keeps every page it writes in the
     * connection's page cache (64 MiB) after the commit; an import fills all of it with pages
     * nobody reads next, which was ~60 MiB of the server's RSS growth on a 46 MiB file. The
     * cache is held to 4 MiB while the batch goes in (evicting what it holds past that, which
     * the import's pages would have evicted anyway) and given its size back after.
     */
    insertPackedRows(datasetId: number, startIndex: number, rows: PackedRows): void {
      db.pragma(`cache_size = -${IMPORT_CACHE_KIB}`);
      try {
        const { bytes, ends, count } = rows;
        const params: unknown[] = new Array(ROWS_PER_INSERT * 3);
        let i = 0;
        for (; i + ROWS_PER_INSERT <= count; i += ROWS_PER_INSERT) {
          for (let k = 0; k < ROWS_PER_INSERT; k++) {
            params[k * 3] = datasetId;
            params[k * 3 + 1] = startIndex + i + k;
            params[k * 3 + 2] = bytes.subarray(i + k === 0 ? 0 : ends[i + k - 1], ends[i + k]);
          }
          insertPackedMany.run(params);
        }
        for (; i < count; i++) insertPackedRow.run(datasetId, startIndex + i, bytes.subarray(i === 0 ? 0 : ends[i - 1], ends[i]));
      } finally {
        db.pragma(`cache_size = ${cacheSize}`);
      }
    },

    deleteRows: (datasetId: number) => deleteRowsOf.run(datasetId),
    copyRows: (fromId: number, toId: number) => copyRows.run(toId, fromId),
    remove: removeDataset,

    /** Rows from `fromIndex` in order; dense indexes make this an index range, never an OFFSET scan. */
    rows: (datasetId: number, fromIndex: number, limit: number) => rowRange.all(datasetId, fromIndex, limit).map(decodeRow),

    /** Substring match over a row's values (case-insensitive for ASCII, as LIKE is). */
    search(datasetId: number, q: string, limit: number, offset: number): { items: StoredDatasetRow[]; total: number } {
      const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const prefilter = !/["\\\u0000-\u001f]/.test(q);
      const statements = prefilter ? searchPrefiltered : searchScan;
      const params = prefilter ? [datasetId, pattern, pattern] : [datasetId, pattern];
      return { items: statements.rows.all(...params, limit, offset).map(decodeRow), total: statements.count.get(...params)!.n };
    },

    /** Imports cut short by a crash left pending datasets behind; nothing can reach them. */
    removeAbandoned(): number {
      const ids = abandoned.all().map((r) => r.id);
      db.transaction(() => ids.forEach(removeDataset))();
      return ids.length;
    },
  };
}

export type DatasetStore = ReturnType<typeof createDatasetStore>;

function groupWhere(workspaceId: number, filter: { folderId?: number | null; name?: string }) {
  const where = ['workspace_id = ?', 'archived_at IS NULL'];
  const params: unknown[] = [workspaceId];
  if (filter.folderId === null) where.push('folder_id IS NULL');
  else if (filter.folderId !== undefined) (where.push('folder_id = ?'), params.push(filter.folderId));
  if (filter.name) {
    where.push("name LIKE ? ESCAPE '\\'");
    params.push(`%${filter.name.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  return { where: where.join(' AND '), params };
}
