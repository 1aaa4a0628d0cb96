import type { Db } from './db';

/** Problems quoted in the message; quick_check lists up to 100, the first few say enough. */
const QUOTED_PROBLEMS = 3;

/** Thrown when the database file cannot be used as it is; the message names it and says how to recover. */
export class DamagedDatabaseError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(
      `The database ${file} is damaged (${problem}). promptledger will not start on it, so nothing more is ` +
        'written to a file that may return wrong data. To recover, stop every promptledger process, then ' +
        `either restore ${file} from a backup, or salvage what is readable with ` +
        `\`sqlite3 ${file} ".recover" | sqlite3 ${file}.recovered\`, check it, move the damaged file and its ` +
        `-wal and -shm files aside, and rename ${file}.recovered to ${file}. See docs/decisions.md ("Corrupt database").`,
    );
    this.name = 'DamagedDatabaseError';
  }
}

const DAMAGE_CODES = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT']);

/** True for SQLite's "not a database" and "malformed" errors (including extended codes). */
export function isDamage(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && [...DAMAGE_CODES].some((c) => code === c || code.startsWith(`${c}_`));
}

/**
 * `PRAGMA quick_check`: every page's b-tree structure, record format and free list, without
 * cross-checking indexes against their tables (that is `integrity_check`, several times slower).
 * It reads the whole file once; see docs/decisions.md for the measured cost at start-up.
 */
export function checkDatabase(db: Db, file: string): void {
  let problems: string[];
  try {
    problems = (db.pragma('quick_check') as Array<{ quick_check: string }>).map((row) => row.quick_check);
  } catch (error) {
    // A page so damaged that the check itself cannot walk past it: that is what it found.
    if (isDamage(error)) throw new DamagedDatabaseError(file, `PRAGMA quick_check found: ${(error as Error).message}`);
    throw error;
  }
  if (problems.length === 1 && problems[0] === 'ok') return;
  const quoted = problems.slice(0, QUOTED_PROBLEMS).join('; ');
  const more = problems.length > QUOTED_PROBLEMS ? ` and ${problems.length - QUOTED_PROBLEMS} more` : '';
  throw new DamagedDatabaseError(file, `PRAGMA quick_check found: ${quoted}${more}`);
}
