// The ingest thread: owns a second connection and writes logged requests and spans in group
// transactions, so the HTTP thread never blocks on inserts (a 2 KB request with its text index is
// ~170 µs of SQLite work) and both cores serve a burst. See ingest.ts for the other side.
import { parentPort, workerData } from 'node:worker_threads';
import { closeDatabase, openDatabase } from './db';
import { createRequestStore, type NewRequest, type Tally } from './requests';
import { createSpanStore, type SpanWrite } from './spans';
import { configureTextIndexWrites, createTextQueue, MERGE_PER_CHUNK, MERGE_STEP } from './text-index';
import { walSync } from './writer';

/**
 * `index`: answered once every request acknowledged before it is in the text index (see `indexText`).
 * `committed`: the row is answered at its commit, not after the sync (see `Ingest.insert`).
 */
export type IngestJob = { row: NewRequest; committed?: true } | { spans: SpanWrite[] } | { index: true };
export type IngestMessage = ({ seq: number } & IngestJob) | { close: true };
/**
 * `value`: a request's new id, or how many of the spans were new (the rest were already stored).
 * `code` is SQLite's or the OS's (`SQLITE_FULL`), so the HTTP side can tell a full disk from a fault.
 */
export type IngestResult = { seq: number; value: number } | { seq: number; error: string; code?: string };
/** The thread's first message, once it can write; every later one is a batch's results. */
export const INGEST_READY = 'ready';
export type IngestReply = IngestResult[] | typeof INGEST_READY;

type Queued = { seq: number } & ({ row: NewRequest; committed?: true } | { spans: SpanWrite[] });

/** Jobs per transaction: bounds how long the write lock is held against the main connection. */
const MAX_BATCH = 128;

/**
 * The text index is written after the acknowledgement, in transactions of up to this many
 * requests, when no batch is waiting (docs/performance.md, "Ingest: text index off the
 * acknowledgement path"). FTS5 writes a segment per transaction and merges them later, so a
 * larger one costs less per request; but a batch arriving meanwhile waits for it.
 */
const TEXT_CHUNK = 200;
/** Fewer requests than a chunk waiting this long are indexed anyway (the to-do list stays short). */
const TEXT_WAIT_MS = 250;
/** Past this many waiting, a chunk is indexed between batches even when more are queued. */
const TEXT_BACKLOG = 4 * TEXT_CHUNK;

const port = parentPort!;
const { file, gate } = workerData as { file: string; gate: Int32Array };
// Booted, but the file may not be locked and migrated yet: wait until createIngest says so
// (ingest.ts `startIngestThread`).
Atomics.wait(gate, 0, 0);
const db = openDatabase(file);
configureTextIndexWrites(db);
const textQueue = createTextQueue(db);
// Texts of the transaction being written, queued once it commits (a rolled-back one's ids are not
// in text_unindexed, so the queue would skip them anyway).
let staged: Array<[number, string]> = [];
const requests = createRequestStore(db, { textLater: (id, text) => void staged.push([id, text]) });
const spans = createSpanStore(db, requests);

function write(job: Queued, batch?: Tally): number {
  if ('spans' in job) return job.spans.filter((span) => spans.insert(span)).length;
  const id = requests.insert(job.row, batch);
  // A request naming its span joins that span's trace, if the span came first.
  if (job.row.span_id !== null) spans.linkRequest({ ...job.row, id });
  return id;
}

const writeOne = db.transaction((job: Queued) => write(job));
// The common case is one transaction for the batch; jobs are validated before they get here, so
// a failure is rare, and then the batch is redone job by job (each in its own savepoint) so one
// bad job fails alone. A savepoint per job always would cost ~10% of the insert.
// Rollups are summed over the batch and written once per key (requests.ts `tally`); the batch is
// all or nothing, so a failure discards the sums with the rows.
const writeAll = db.transaction((jobs: Queued[]): IngestResult[] => {
  const batch = requests.tally();
  const results = jobs.map((job) => ({ seq: job.seq, value: write(job, batch) }));
  batch.write();
  return results;
});
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
  staged = [];
  try {
    return writeAll(jobs);
  } catch {
    staged = [];
    return writeEach(jobs);
  }
};

function failureOf(error: unknown): { error: string; code?: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return { error: error instanceof Error ? error.message : String(error), ...(typeof code === 'string' ? { code } : {}) };
}

let queue: Queued[] = [];
/** Seqs of `index` jobs, answered once the queue before them is written and the text indexed. */
let indexWaiters: number[] = [];
let scheduled = false;
let closing = false;

/**
 * Durable acknowledgement without stalling the thread (writer.ts `walSync`, shared with the main
 * connection's group commit): a batch commits without waiting for the disk and is answered once an
 * fdatasync of the WAL, run in libuv's pool, returns; meanwhile this thread writes the next batch.
 * With the sync inside COMMIT the thread sat idle for every batch's sync (~40% of its time at 50
 * connections). A sync that fails answers its batch with the error: its rows are stored but not
 * known to be durable.
 */
const wal = walSync(db);

function acknowledge(batch: Queued[], results: IngestResult[]): void {
  if (!wal) return port.postMessage(results);
  const now = results.filter((_, i) => 'committed' in batch[i]);
  const synced = now.length === 0 ? results : results.filter((_, i) => !('committed' in batch[i]));
  if (now.length > 0) port.postMessage(now);
  // Synced even when nobody waits for it: the WAL is then written out as a run goes, and the
  // sync of its done mark has only the last moments to write (the done mark took 12 ms after the
  // call log without these syncs, 7 with them, load 8–11; docs/performance.md, evalc50 seventh session).
  wal.afterSync((error) => {
    if (synced.length > 0) port.postMessage(error ? synced.map(({ seq }) => ({ seq, ...failureOf(error) })) : synced);
  });
}

/**
 * One text-index transaction of up to `limit` waiting requests. Not synced: a power cut that loses
 * it loses its removals from text_unindexed with it, so the next start indexes them again. A
 * failure (say, a full disk) leaves them waiting, still listed in text_unindexed.
 */
function indexText(limit: number): number {
  try {
    const indexed = textQueue.indexSome(limit, (work) => (wal ? wal.unsynced(work) : work()));
    if (indexed > 0) mergeOwed = Math.min(mergeOwed + MERGE_PER_CHUNK, 4 * MERGE_PER_CHUNK);
    return indexed;
  } catch {
    return 0;
  }
}

/** Pages of merging owed (MERGE_PER_CHUNK); zero once a step finds nothing to merge. */
let mergeOwed = 0;

/** One merge step. Not synced, like a text chunk: a lost merge leaves the segments unmerged. */
function mergeText(): void {
  try {
    mergeOwed = textQueue.mergeSome(MERGE_STEP, (work) => (wal ? wal.unsynced(work) : work())) ? Math.max(0, mergeOwed - MERGE_STEP) : 0;
  } catch {
    mergeOwed = 0;
  }
}

function indexAllText(): void {
  while (textQueue.size > 0 && indexText(TEXT_CHUNK) > 0);
}

/**
 * WAL checkpoints between batches, not inside one. SQLite's automatic checkpoint (1,000 frames)
 * runs in the commit that crosses it, so one batch in ~1,000 requests waited, before its sync even
 * started, for the WAL to be copied into the database file and that file synced (in-process, 35-row
 * batches: p99 100–140 ms with it, 30–36 ms without; docs/performance.md). Here it runs once the
 * batch's answers wait on their own sync and no batch is queued; past 4× as many frames, between
 * batches whatever waits. FULL (not inside `unsynced`): the WAL is synced before it is copied.
 */
const CHECKPOINT_FRAMES = 1000;
const walState = db.prepare<[], { log: number; checkpointed: number }>('PRAGMA wal_checkpoint(NOOP)');
const checkpointWal = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
if (wal) db.pragma('wal_autocheckpoint = 0');

function uncopiedFrames(): number {
  if (!wal) return 0;
  const state = walState.get()!;
  return state.log - state.checkpointed;
}

/**
 * The WAL's length when an idle checkpoint last ran; cleared by the next batch. A checkpoint a
 * reader holds back (it cannot copy past a snapshot still being read) is tried again only once
 * something more was written, by this thread or another connection, not in a loop.
 */
let checkpointTriedAt: number | null = null;

function checkpointDue(): boolean {
  if (!wal) return false;
  const state = walState.get()!;
  return state.log - state.checkpointed >= CHECKPOINT_FRAMES && state.log !== checkpointTriedAt;
}

/**
 * This thread checkpoints for every connection: the main one sets `wal_autocheckpoint = 0`
 * (compose.ts), so its writes (evaluation cells, dataset imports, edits) never copy the WAL on
 * the event loop. With no batch to wake this thread, it looks at the WAL this often.
 */
const CHECKPOINT_LOOK_MS = 250;
setInterval(() => {
  if (!shutting && queue.length === 0 && !scheduled) scheduleIdleWork();
}, CHECKPOINT_LOOK_MS).unref();

function checkpoint(): void {
  try {
    checkpointWal.get();
  } catch {
    // Busy or failing: tried again once more is written; the WAL only grows meanwhile.
  }
}

let textDue = false;
let textTimer: NodeJS.Timeout | undefined;
let idleStepScheduled = false;

/**
 * Between batches: a checkpoint once one is due; a step of the text index's merging while one is
 * owed; a text chunk once a full one waits, or whatever waits TEXT_WAIT_MS after the first of it.
 * One step per turn of the event loop, so a batch that arrives meanwhile is written before the next.
 */
function scheduleIdleWork(): void {
  if (checkpointDue() || mergeOwed > 0) {
    if (idleStepScheduled) return;
    idleStepScheduled = true;
    setImmediate(idleStep);
    return;
  }
  if (textQueue.size === 0) {
    textDue = false;
    clearTimeout(textTimer);
    textTimer = undefined;
    return;
  }
  if (textDue || textQueue.size >= TEXT_CHUNK) {
    if (idleStepScheduled) return;
    idleStepScheduled = true;
    setImmediate(idleStep);
  } else if (!textTimer) {
    textTimer = setTimeout(() => {
      textTimer = undefined;
      textDue = true;
      scheduleIdleWork();
    }, TEXT_WAIT_MS);
    textTimer.unref();
  }
}

function idleStep(): void {
  idleStepScheduled = false;
  if (shutting) return;
  // A batch is waiting: it goes first (drain schedules the text again when done).
  if (queue.length > 0 || scheduled) return;
  // What waits for a sync is answered first, not after this step (see walSync's syncNow).
  wal?.syncNow();
  if (checkpointDue()) {
    checkpoint();
    checkpointTriedAt = walState.get()!.log;
  } else if (mergeOwed > 0) {
    mergeText();
  } else {
    indexText(TEXT_CHUNK);
    textDue = false;
  }
  scheduleIdleWork();
}

let shutting = false;
function shutDown(): void {
  if (shutting) return;
  shutting = true;
  clearTimeout(textTimer);
  // A clean stop leaves nothing to index at the next start.
  indexAllText();
  closeDatabase(db);
  port.close();
}

function drain(): void {
  scheduled = false;
  while (queue.length > 0) {
    const batch = queue.slice(0, MAX_BATCH);
    queue = queue.slice(batch.length);
    let results: IngestResult[];
    try {
      results = wal ? wal.unsynced(() => writeBatch(batch)) : writeBatch(batch);
    } catch (error) {
      // The commit failed: nothing in this batch is stored.
      const failure = failureOf(error);
      port.postMessage(batch.map(({ seq }) => ({ seq, ...failure })));
      continue;
    }
    for (const [id, text] of staged) textQueue.add(id, text);
    staged = [];
    checkpointTriedAt = null;
    acknowledge(batch, results);
    // Indexing fell behind (ingest faster than it for a while): a chunk now, so the list stays bounded.
    // With it a merge step, or with no idle time the segments would pile up to CRISISMERGE.
    if (textQueue.size > TEXT_BACKLOG) {
      wal?.syncNow();
      indexText(TEXT_CHUNK);
      if (mergeOwed > 0) mergeText();
    }
    if (uncopiedFrames() >= 4 * CHECKPOINT_FRAMES) {
      wal?.syncNow();
      checkpoint();
    }
  }
  if (indexWaiters.length > 0) {
    // A text search waits for this: every request acknowledged before it asked is indexed now.
    indexAllText();
    port.postMessage(indexWaiters.map((seq) => ({ seq, value: 0 })));
    indexWaiters = [];
  }
  scheduleIdleWork();
  if (closing && (wal?.idle() ?? true)) shutDown();
}

// The last sync done after the close message: nothing is left to answer.
wal?.onIdle(() => {
  if (closing && queue.length === 0) shutDown();
});

// What a crash left unindexed is indexed before the server says it is ready.
textQueue.recover();
indexAllText();

// The database is open and every statement prepared: the server may now say it is ready.
port.postMessage(INGEST_READY);

port.on('message', (messages: IngestMessage[]) => {
  for (const message of messages) {
    if ('close' in message) closing = true;
    else if ('index' in message) indexWaiters.push(message.seq);
    else queue.push(message);
  }
  if (!scheduled) {
    scheduled = true;
    // Every message already delivered is queued before the batch is written.
    setImmediate(drain);
  }
});
