// The ingest thread: owns a second connection and writes logged requests and spans in group
// transactions, so the HTTP thread never blocks on inserts (a 2 KB request with its text index is
// ~170 µs of SQLite work) and both cores serve a burst. See ingest.ts for the other side.
import { parentPort, workerData } from 'node:worker_threads';
import { closeDatabase, openDatabase } from './db';
import { createRequestStore, type NewRequest } from './requests';
import { createSpanStore, type SpanWrite } from './spans';

export type IngestJob = { row: NewRequest } | { spans: SpanWrite[] };
export type IngestMessage = ({ seq: number } & IngestJob) | { close: true };
/**
 * `value`: a request's new id, or how many of the spans were new (the rest were already stored).
 * `code` is SQLite's or the OS's (`SQLITE_FULL`), so the HTTP side can tell a full disk from a fault.
 */
export type IngestResult = { seq: number; value: number } | { seq: number; error: string; code?: string };
/** The thread's first message, once it can write; every later one is a batch's results. */
export const INGEST_READY = 'ready';
export type IngestReply = IngestResult[] | typeof INGEST_READY;

type Queued = { seq: number } & IngestJob;

/** Jobs per transaction: bounds how long the write lock is held against the main connection. */
const MAX_BATCH = 128;

const port = parentPort!;
const db = openDatabase((workerData as { file: string }).file);
const requests = createRequestStore(db);
const spans = createSpanStore(db, requests);

function write(job: IngestJob): number {
  if ('spans' in job) return job.spans.filter((span) => spans.insert(span)).length;
  const id = requests.insert(job.row);
  // A request naming its span joins that span's trace, if the span came first.
  if (job.row.span_id !== null) spans.linkRequest({ ...job.row, id });
  return id;
}

const writeOne = db.transaction(write);
// The common case is one transaction for the batch; jobs are validated before they get here, so
// a failure is rare, and then the batch is redone job by job (each in its own savepoint) so one
// bad job fails alone. A savepoint per job always would cost ~10% of the insert.
const writeAll = db.transaction((jobs: Queued[]): IngestResult[] => jobs.map((job) => ({ seq: job.seq, value: write(job) })));
const writeEach = db.transaction((jobs: Queued[]): IngestResult[] =>
  jobs.map((job) => {
    try {
      return { seq: job.seq, value: writeOne(job) };
    } catch (error) {
      return { seq: job.seq, ...failureOf(error) };
    }
  }),
);
const writeBatch = (jobs: Queued[]): IngestResult[] => {
  try {
    return writeAll(jobs);
  } catch {
    return writeEach(jobs);
  }
};

function failureOf(error: unknown): { error: string; code?: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return { error: error instanceof Error ? error.message : String(error), ...(typeof code === 'string' ? { code } : {}) };
}

let queue: Queued[] = [];
let scheduled = false;
let closing = false;

function drain(): void {
  scheduled = false;
  while (queue.length > 0) {
    const batch = queue.slice(0, MAX_BATCH);
    queue = queue.slice(batch.length);
    let results: IngestResult[];
    try {
      results = writeBatch(batch);
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

// The database is open and every statement prepared: the server may now say it is ready.
port.postMessage(INGEST_READY);

port.on('message', (messages: IngestMessage[]) => {
  for (const message of messages) {
    if ('close' in message) closing = true;
    else queue.push(message);
  }
  if (!scheduled) {
    scheduled = true;
    // Every message already delivered is queued before the batch is written.
    setImmediate(drain);
  }
});
