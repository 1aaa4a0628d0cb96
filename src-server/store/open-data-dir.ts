import { chmodSync, closeSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { dataFiles } from '../data-dir';
import { recordCleanShutdown, takeCleanShutdown } from './clean-shutdown';
import { lockDataDir } from './data-dir-lock';
import { closeDatabase, openDatabase, type Db } from './db';
import { convertToIncrementalVacuum } from './retention';

export interface OpenDataDir {
  db: Db;
  /** Where uploads spool while they are imported; emptied at every start. */
  uploadsDir: string;
  /** Closes the database and releases the data dir for the next server. */
  close(): void;
}

/** Owner read/write only: the database holds every prompt, logged request and key hash. */
const PRIVATE_FILE = 0o600;
const PRIVATE_DIR = 0o700;
/** Older files up to this size switch to incremental vacuum at start: one VACUUM, measured at 68 ms per
 * MiB under load 25 on 2 cores (a few seconds at most; see docs/performance.md, retention). */
const CONVERT_AT_START_MAX_BYTES = 128 * 1024 * 1024;

/** SQLite page cache of the main connection (the ingest thread keeps the default 64 MiB). */
const MAIN_CACHE_KIB = 2048;

/**
 * Everything a server needs before it may touch the data dir, in the order that makes it safe:
 * private modes, the single-server lock, then (only while holding the lock, so another server's
 * files are never touched) removal of spools a crash left and the database, checked with
 * `PRAGMA quick_check` unless the last server closed it cleanly and nothing touched it since.
 */
export function openDataDir(dataDir: string, note: (message: string) => void): OpenDataDir {
  const files = dataFiles(dataDir);
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR });
  makePrivate(dataDir, note);
  // SQLite creates the -wal and -shm files with the main file's mode, so creating that file
  // 0600 first is what keeps all three private.
  for (const file of [files.database, join(dataDir, 'server.lock')]) closeSync(openSync(file, 'a', PRIVATE_FILE));
  const lock = lockDataDir(dataDir);
  try {
    const uploadsDir = join(dataDir, 'uploads');
    // Every file here belongs to an upload of a server that no longer runs (we hold the lock).
    rmSync(uploadsDir, { recursive: true, force: true });
    mkdirSync(uploadsDir, { mode: PRIVATE_DIR });
    const verify = !takeCleanShutdown(dataDir, files.database);
    const started = performance.now();
    // The main connection's cache is small: every page an evaluation run writes stayed cached, 2–3 MiB
    // of RSS more per run up to 64 MiB, while its reads come through the memory map (1M requests:
    // explorer p50s at 2–4 MiB within the noise of 64 MiB; docs/performance.md, "Evaluation memory").
    const db = openDatabase(files.database, { verify, cacheKiB: MAIN_CACHE_KIB });
    if (verify) note(`Checked ${files.database} (PRAGMA quick_check: ok) in ${Math.round(performance.now() - started)} ms.`);
    convertToIncrementalVacuum(db, files.database, CONVERT_AT_START_MAX_BYTES, note);
    return {
      db,
      uploadsDir,
      close() {
        try {
          closeDatabase(db);
          recordCleanShutdown(dataDir, files.database);
        } finally {
          lock.release();
        }
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/**
 * Tightens what an earlier version (or a umask) left readable by others: the dir to 0700 and our
 * own files in it to 0600. Windows has no such modes (chmod only sets read-only); the user
 * profile's ACL protects the default data dir there.
 */
function makePrivate(dataDir: string, warn: (message: string) => void): void {
  if (process.platform === 'win32') return;
  const files = dataFiles(dataDir);
  const ours = [
    files.database, `${files.database}-wal`, `${files.database}-shm`, `${files.database}-journal`,
    files.apiKey, files.sessionSecret, join(dataDir, 'server.lock'), join(dataDir, 'server.pid'), join(dataDir, 'clean-shutdown'),
  ];
  const dir = statSync(dataDir);
  // A data dir given by path may be a shared folder we do not own; say so rather than fail.
  if (process.getuid && dir.uid !== process.getuid()) warn(`Not changing the mode of ${dataDir}, which another user owns.`);
  else if ((dir.mode & 0o777) !== PRIVATE_DIR) chmodSync(dataDir, PRIVATE_DIR);
  for (const file of ours) {
    let mode: number;
    try {
      mode = statSync(file).mode & 0o777;
    } catch {
      continue;
    }
    if (mode !== PRIVATE_FILE) chmodSync(file, PRIVATE_FILE);
  }
}
