import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A clean close leaves `clean-shutdown`: the database file's identity (inode, size, modification
 * and change times) just after its WAL was folded in and closed. The next start takes it away
 * and trusts the file unchecked only if the file is still exactly that: no crash since (a crash
 * leaves no stamp), no WAL, and nothing that wrote to, truncated, replaced or restored the file
 * in between (any of those changes the identity). Why not check every time: `PRAGMA quick_check`
 * reads and decodes the whole file, 35 s for an 816 MB, 100k-request database on the shared
 * 2-core CI machine (docs/decisions.md, "Corrupt database").
 */
export function takeCleanShutdown(dataDir: string, database: string): boolean {
  const stampFile = join(dataDir, 'clean-shutdown');
  let stamp: string;
  try {
    stamp = readFileSync(stampFile, 'utf8');
  } catch {
    return false;
  }
  // From now on a crash must not look clean.
  rmSync(stampFile, { force: true });
  return !existsSync(`${database}-wal`) && existsSync(database) && stamp === identityOf(database);
}

export function recordCleanShutdown(dataDir: string, database: string): void {
  writeFileSync(join(dataDir, 'clean-shutdown'), identityOf(database), { mode: 0o600 });
}

function identityOf(file: string): string {
  const { ino, size, mtimeMs, ctimeMs } = statSync(file);
  return JSON.stringify({ ino, size, mtimeMs, ctimeMs });
}
