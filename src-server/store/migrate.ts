import type { Db } from './db';
import { migrations, type Migration } from './migrations';
import { registerTextFunctions } from './text-index';

/**
 * Applies every migration the file has not seen, in id order, each in its own transaction with
 * its record in `schema_migrations`, so a failure leaves the file at the last good migration
 * rather than half-migrated. Ids rather than a single version number let features developed in
 * parallel land in any order.
 */
export function migrate(db: Db, list: readonly Migration[] = migrations): string[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)');
  const applied = new Set(db.prepare<[], { id: string }>('SELECT id FROM schema_migrations').all().map((r) => r.id));
  const known = new Set(list.map((m) => m.id));
  const unknown = [...applied].filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new Error(`This data file was written by a newer promptledger (it has migration ${unknown.join(', ')}).`);
  }
  // Migration 011 rebuilds the text index from stored JSON with the store's own extraction.
  registerTextFunctions(db);
  const record = db.prepare('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)');
  const ran: string[] = [];
  // Code-unit order, not localeCompare: the ids are ASCII, and the first localeCompare in a process
  // sets up ICU's collator, ~6–17 ms of every start (CPU profile of a start on an existing file).
  for (const migration of [...list].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    if (applied.has(migration.id)) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      record.run(migration.id, Date.now());
    })();
    ran.push(migration.id);
  }
  return ran;
}
