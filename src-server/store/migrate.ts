import type { Db } from './db';
import { migrations } from './migrations';

/**
 * Applies every migration newer than the file's `user_version`, each in its own transaction, so
 * a failure leaves the file at the last good version rather than half-migrated.
 */
export function migrate(db: Db): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = migrations.length;
  if (current > latest) {
    throw new Error(
      `This data file was written by a newer promptledger (schema ${current}, this build knows ${latest}).`,
    );
  }
  for (let version = current + 1; version <= latest; version++) {
    const sql = migrations[version - 1];
    db.transaction(() => {
      db.exec(sql);
      db.pragma(`user_version = ${version}`);
    })();
  }
  return latest;
}
