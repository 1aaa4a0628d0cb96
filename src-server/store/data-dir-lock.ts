import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSqlite } from './sqlite';

export interface DataDirLock {
  release(): void;
}

/** Thrown when another server holds the data dir; main.ts prints the message and exits non-zero. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number | undefined,
  ) {
    const holder = holderPid === undefined ? 'another process' : holderPid === process.pid ? `this process (pid ${holderPid})` : `pid ${holderPid}`;
    super(
      `The data dir ${dataDir} is in use by another promptledger server (${holder}). ` +
        'Two servers on one data dir would each run the same evaluations and disagree about keys: ' +
        'stop that server first, or start this one with another --data-dir.',
    );
    this.name = 'DataDirInUseError';
  }
}

/**
 * Takes the data dir for this server, or throws DataDirInUseError naming the holder's pid.
 *
 * The lock is an OS lock, not a pid file: SQLite's exclusive lock (fcntl byte-range locks on
 * POSIX, LockFileEx on Windows) on an empty `server.lock`, held by a connection kept open until
 * release(). The OS drops it when the holder dies however it dies (SIGKILL, power cut), so there
 * is no stale lock to detect, no reused-pid false alarm, and no race between two starters taking
 * over the same stale file — the three ways an O_EXCL pid file goes wrong. SQLite also tracks
 * its locks per file within one process, so a second createServer() in the same process is
 * refused too. `server.pid` only names the holder for the message; it is never trusted.
 * Advisory locks are unreliable on some network filesystems (docs/security.md).
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const lockFile = join(dataDir, 'server.lock');
  const pidFile = join(dataDir, 'server.pid');
  const connection = openSqlite(lockFile);
  try {
    connection.pragma('busy_timeout = 0');
    connection.pragma('locking_mode = EXCLUSIVE');
    // An open exclusive transaction holds the lock for the connection's lifetime; nothing is written.
    connection.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    connection.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') throw new DataDirInUseError(dataDir, holderOf(pidFile));
    throw error;
  }
  writeFileSync(pidFile, `${process.pid}\n`, { mode: 0o600 });
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      rmSync(pidFile, { force: true });
      connection.close();
    },
  };
}

function holderOf(pidFile: string): number | undefined {
  try {
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    // The holder took the lock and has not written its pid yet (a window of microseconds).
    return undefined;
  }
}
