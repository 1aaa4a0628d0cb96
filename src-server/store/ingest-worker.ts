// The ingest thread: owns a second connection and writes logged requests in group transactions,
// so the HTTP thread never blocks on inserts (a 2 KB request with its text index is ~170 µs of
// SQLite work) and both cores serve a burst. See ingest.ts for the other side.
import { parentPort, workerData } from 'node:worker_threads';
import { closeDatabase, openDatabase } from './db';
import { createRequestStore, type NewRequest } from './requests';

export type IngestMessage = { seq: number; row: NewRequest } | { close: true };
/** `code` is SQLite's or the OS's (`SQLITE_FULL`), so the HTTP side can tell a full disk from a fault. */
export type IngestResult = { seq: number; id: number } | { seq: number; error: string; code?: string };

/** Rows per transaction: bounds how long the write lock is held against the main connection. */
const MAX_BATCH = 128;

const port = parentPort!;
const db = openDatabase((workerData as { file: string }).file);
const store = createRequestStore(db);
const insertOne = db.transaction((row: NewRequest) => store.insert(row));
// The common case is one transaction for the batch; rows are validated before they get here, so
// a failure is rare, and then the batch is redone row by row (each in its own savepoint) so one
// bad row fails alone. A savepoint per row always would cost ~10% of the insert.
const insertAll = db.transaction((rows: Array<{ seq: number; row: NewRequest }>): IngestResult[] =>
  rows.map(({ seq, row }) => ({ seq, id: store.insert(row) })),
);
const insertEach = db.transaction((rows: Array<{ seq: number; row: NewRequest }>): IngestResult[] =>
  rows.map(({ seq, row }) => {
    try {
      return { seq, id: insertOne(row) };
    } catch (error) {
      return { seq, ...failureOf(error) };
    }
  }),
);
const insertBatch = (rows: Array<{ seq: number; row: NewRequest }>): IngestResult[] => {
  try {
    return insertAll(rows);
  } catch {
    return insertEach(rows);
  }
};

function failureOf(error: unknown): { error: string; code?: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return { error: error instanceof Error ? error.message : String(error), ...(typeof code === 'string' ? { code } : {}) };
}

let queue: Array<{ seq: number; row: NewRequest }> = [];
let scheduled = false;
let closing = false;

function drain(): void {
  scheduled = false;
  while (queue.length > 0) {
    const batch = queue.slice(0, MAX_BATCH);
    queue = queue.slice(batch.length);
    let results: IngestResult[];
    try {
      results = insertBatch(batch);
    } catch (error) {
      // The commit failed: nothing in this batch is durable.
      const failure = failureOf(error);
      results = batch.map(({ seq }) => ({ seq, ...failure }));
    }
    port.postMessage(results);
  }
  if (closing) {
    closeDatabase(db);
    port.close();
  }
}

port.on('message', (message: IngestMessage) => {
  if ('close' in message) closing = true;
  else queue.push(message);
  if (!scheduled) {
    scheduled = true;
    // Every message already delivered is queued before the batch is written.
    setImmediate(drain);
  }
});
