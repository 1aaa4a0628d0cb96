import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

let addon: string | null | undefined;

/**
 * better-sqlite3's compiled addon, located once per thread. Without it better-sqlite3 asks the
 * `bindings` package, which parses a stack trace to find its package and then tries a dozen
 * paths, each failure a thrown error: 10–50 ms at every start, in the main thread and again in
 * the ingest worker. `null` (an unusual install without build/Release) leaves that search to it.
 */
function nativeBinding(): string | null {
  if (addon === undefined) {
    const pkg = createRequire(import.meta.url).resolve('better-sqlite3/package.json');
    const file = join(dirname(pkg), 'build', 'Release', 'better_sqlite3.node');
    addon = existsSync(file) ? file : null;
  }
  return addon;
}

/** A better-sqlite3 connection; every connection the server opens is made here. */
export function openSqlite(file: string): Database.Database {
  const binding = nativeBinding();
  return binding ? new Database(file, { nativeBinding: binding }) : new Database(file);
}
