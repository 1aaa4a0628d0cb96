import type Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { checkDatabase, DamagedDatabaseError, isDamage } from './database-check';
import { migrate } from './migrate';
import { openSqlite } from './sqlite';

export type Db = Database.Database;

export interface OpenOptions {
  /** `FULL` fsyncs the WAL on every commit, so an acknowledged write survives power loss, not
   * only a process crash. Group commit (writer.ts) makes that affordable; see docs/performance.md. */
  synchronous?: 'FULL' | 'NORMAL' | 'OFF';
  /** Run `PRAGMA quick_check` before anything is written; a damaged file throws DamagedDatabaseError. */
  verify?: boolean;
  /** SQLite's page cache for this connection, KiB (default 64 MiB). */
  cacheKiB?: number;
}

/** The page size of a new database file (SQLite's default is 4,096). */
export const PAGE_SIZE = 16_384;

/** Opens (creating if needed) the one database file and brings its schema up to date. */
export function openDatabase(file: string, options: OpenOptions = {}): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = openSqlite(file);
  try {
    // A new file gets 16 KiB pages (no effect on an existing one): a ~2 KB request row fits 2 to
    // a 4 KiB page, leaving ~13% of it empty, but ~9 to a 16 KiB page. Measured: 2,844 instead of
    // 3,032 bytes of file per corpus request, same ingest CPU per row (docs/performance.md).
    db.pragma(`page_size = ${PAGE_SIZE}`);
    // The first statement that reads the header: a file that is not SQLite fails here. On a new
    // file it also chooses incremental vacuum, which must precede the first page written (WAL's
    // included): retention's prune then gives freed pages back to the OS (store/retention.ts;
    // older files are converted by convertToIncrementalVacuum).
    db.pragma('auto_vacuum = INCREMENTAL');
    db.pragma('journal_mode = WAL');
    if (options.verify) checkDatabase(db, file);
  } catch (error) {
    db.close();
    if (isDamage(error)) throw new DamagedDatabaseError(file, (error as Error).message);
    throw error;
  }
  db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
  db.pragma('foreign_keys = ON');
  // A second process (a CLI, a backup) may hold the write lock briefly; wait rather than fail.
  db.pragma('busy_timeout = 5000');
  // A page cache (64 MiB unless the caller says) and memory-mapped reads: the explorer's index
  // walks stay in memory on a laptop-sized database without a copy per page.
  db.pragma(`cache_size = -${options.cacheKiB ?? 65536}`);
  db.pragma('mmap_size = 268435456');
  db.pragma('temp_store = MEMORY');
  migrate(db);
  return db;
}

/** Folds the WAL back into the main file so a clean shutdown leaves one self-contained file. */
export function closeDatabase(db: Db): void {
  if (!db.open) return;
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}
