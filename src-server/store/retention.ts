import { statSync } from 'node:fs';
import type { Db } from './db';

/** Null leaves that limit off. One setting for the whole data file. */
export interface RetentionSetting {
  keep_days: number | null;
  max_bytes: number | null;
}

export interface TableSize {
  name: string;
  bytes: number;
}

const fileSize = (file: string) => statSync(file, { throwIfNoEntry: false })?.size ?? 0;

/**
 * Which table an index or a text index's shadow table belongs to, so Settings shows "requests"
 * and "requests_fts" rather than a dozen internal names.
 */
function ownerOf(name: string, tableOf: Map<string, string>, virtualTables: string[]): string {
  const shadowOf = virtualTables.find((v) => name.startsWith(`${v}_`));
  if (shadowOf) return shadowOf;
  if (name.startsWith('sqlite_autoindex_')) return tableOf.get(name) ?? name.replace(/^sqlite_autoindex_(.+)_\d+$/, '$1');
  return tableOf.get(name) ?? name;
}

/** The queries retention and the storage figures need; the deletes live beside each insert. */
export function createRetentionStore(db: Db, databaseFile: string) {
  const s = {
    setting: db.prepare<[], RetentionSetting>('SELECT keep_days, max_bytes FROM retention_settings WHERE id = 1'),
    save: db.prepare<[number | null, number | null, number]>(
      `INSERT INTO retention_settings (id, keep_days, max_bytes, updated_at) VALUES (1, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET keep_days = excluded.keep_days, max_bytes = excluded.max_bytes, updated_at = excluded.updated_at`,
    ),
    workspaces: db.prepare<[], { id: number }>('SELECT id FROM workspaces ORDER BY id'),
    requestCount: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM requests'),
    spanCount: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM spans'),
    // Walks requests_by_time backwards: the oldest first, without a sort.
    oldestRequests: db.prepare<[number, number, number], { id: number; request_start_time: number }>(
      `SELECT id, request_start_time FROM requests WHERE workspace_id = ? AND request_start_time < ?
       ORDER BY request_start_time, id LIMIT ?`,
    ),
    requestsBefore: db.prepare<[number, number], { n: number }>(
      'SELECT count(*) AS n FROM requests WHERE workspace_id = ? AND request_start_time < ?',
    ),
    oldestTraces: db.prepare<[number, bigint, number], { trace_id: string; start_ns: string; span_count: number }>(
      `SELECT trace_id, CAST(start_ns AS TEXT) AS start_ns, span_count FROM traces WHERE workspace_id = ? AND start_ns < ?
       ORDER BY start_ns, trace_id LIMIT ?`,
    ),
    spansBefore: db.prepare<[number, bigint], { n: number }>(
      'SELECT coalesce(sum(span_count), 0) AS n FROM traces WHERE workspace_id = ? AND start_ns < ?',
    ),
    pageSize: db.prepare<[], { page_size: number }>('PRAGMA page_size'),
    pageCount: db.prepare<[], { page_count: number }>('PRAGMA page_count'),
    freelist: db.prepare<[], { freelist_count: number }>('PRAGMA freelist_count'),
    // dbstat is compiled into better-sqlite3's SQLite (ENABLE_DBSTAT_VTAB): exact pages per b-tree.
    btrees: db.prepare<[], TableSize>("SELECT name, pgsize AS bytes FROM dbstat WHERE aggregate = TRUE"),
    schema: db.prepare<[], { type: string; name: string; tbl_name: string; sql: string | null }>(
      'SELECT type, name, tbl_name, sql FROM sqlite_schema',
    ),
  };
  const workspaceIds = () => s.workspaces.all().map((w) => w.id);

  return {
    setting: (): RetentionSetting => s.setting.get() ?? { keep_days: null, max_bytes: null },
    save: (setting: RetentionSetting, now: number) => s.save.run(setting.keep_days, setting.max_bytes, now),
    workspaceIds,

    counts: () => ({ requests: s.requestCount.get()!.n, spans: s.spanCount.get()!.n }),

    /** Bytes the database's live pages hold (free pages excluded), WAL included: what a budget counts. */
    usedBytes(): number {
      return (s.pageCount.get()!.page_count - s.freelist.get()!.freelist_count) * s.pageSize.get()!.page_size;
    },
    freeBytes: () => s.freelist.get()!.freelist_count * s.pageSize.get()!.page_size,

    files: () => ({ db_bytes: fileSize(databaseFile), wal_bytes: fileSize(`${databaseFile}-wal`) }),

    /** Bytes per table, its indexes and (for a text index) its shadow tables counted with it; largest first. */
    tables(): TableSize[] {
      const schema = s.schema.all();
      const tableOf = new Map(schema.map((row) => [row.name, row.tbl_name]));
      const virtualTables = schema.filter((row) => row.type === 'table' && /^CREATE VIRTUAL TABLE/i.test(row.sql ?? '')).map((row) => row.name);
      const totals = new Map<string, number>();
      for (const btree of s.btrees.all()) {
        const owner = ownerOf(btree.name, tableOf, virtualTables);
        totals.set(owner, (totals.get(owner) ?? 0) + btree.bytes);
      }
      return [...totals].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name));
    },

    /** The `limit` oldest requests of the whole file that began before `before` (epoch ms), oldest first. */
    oldestRequests(before: number, limit: number): number[] {
      const candidates = workspaceIds().flatMap((ws) => s.oldestRequests.all(ws, before, limit));
      candidates.sort((a, b) => a.request_start_time - b.request_start_time || a.id - b.id);
      return candidates.slice(0, limit).map((r) => r.id);
    },
    requestsBefore: (before: number) => workspaceIds().reduce((n, ws) => n + s.requestsBefore.get(ws, before)!.n, 0),

    /** The `limit` oldest traces of one workspace that began before `beforeNs`, with their span counts. */
    oldestTraces(workspaceId: number, beforeNs: bigint, limit: number) {
      return s.oldestTraces.all(workspaceId, beforeNs, limit).map((t) => ({ traceId: t.trace_id, startNs: BigInt(t.start_ns), spans: t.span_count }));
    },
    spansBefore: (beforeNs: bigint) => workspaceIds().reduce((n, ws) => n + s.spansBefore.get(ws, beforeNs)!.n, 0),

    /** Returns up to `pages` free pages to the OS; a no-op unless the file uses incremental vacuum. */
    giveBack(pages: number): void {
      db.pragma(`incremental_vacuum(${Math.trunc(pages)})`);
    },
    /** Copies the WAL into the file, which lets the file shrink to its last page; never waits for a lock. */
    checkpoint(): void {
      db.pragma('wal_checkpoint(PASSIVE)');
    },
    autoVacuum: () => db.pragma('auto_vacuum', { simple: true }) as number,
  };
}

export type RetentionStore = ReturnType<typeof createRetentionStore>;

/** PRAGMA auto_vacuum's value for INCREMENTAL. */
export const INCREMENTAL_VACUUM = 2;

/**
 * Files created before incremental vacuum was the default (auto_vacuum NONE) cannot give pages
 * back until one full VACUUM switches them over. That rewrite holds the write lock for its whole
 * length (68 ms per MiB measured under load; docs/performance.md), so it runs at start, before the server listens,
 * and only for files up to `maxBytes`; a larger file keeps reusing its freed pages for new rows
 * (it stops growing rather than shrinking) and the server says so once.
 */
export function convertToIncrementalVacuum(db: Db, file: string, maxBytes: number, note: (message: string) => void): void {
  if (db.pragma('auto_vacuum', { simple: true }) === INCREMENTAL_VACUUM) return;
  const bytes = fileSize(file);
  if (bytes > maxBytes) {
    note(`${file} predates incremental vacuum and is too large to convert at start (${bytes} bytes); retention will reuse freed pages rather than shrink the file.`);
    return;
  }
  const started = performance.now();
  try {
    db.pragma('auto_vacuum = INCREMENTAL');
    db.exec('VACUUM');
  } catch (error) {
    // VACUUM needs room for a second copy; without it the file stays as it was, and usable.
    note(`Could not convert ${file} to incremental vacuum: ${(error as Error).message}`);
    return;
  }
  note(`Converted ${file} to incremental vacuum (${bytes} bytes) in ${Math.round(performance.now() - started)} ms.`);
}
