import { close, closeSync, fdatasync, fdatasyncSync, open, openSync } from 'node:fs';
import type { Db } from './db';

type Job = {
  run: (db: Db) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** False: settled at the commit, before the WAL sync (see `WriteOptions`). */
  durable: boolean;
};

export interface WriteOptions {
  /**
   * `false` settles at the commit, before the fsync: the write survives a crash of the process
   * (it is in the OS's cache) but not yet a power cut. For work that a later durable write
   * covers (every sync covers all earlier commits): an evaluation's cells, whose run is marked
   * done by a durable write. Default true.
   */
  durable?: boolean;
}

export interface Writer {
  /** Runs `work` inside the next group transaction; settles only once that transaction is durable. */
  write<T>(work: (db: Db) => T, options?: WriteOptions): Promise<T>;
  /**
   * A write of many small items that nobody waits for at once (an evaluation's cells, its calls'
   * log entries and host counts): the items handed over before the next group commit are written
   * by one job per kind, `writeAll` writing them in order and returning one result each, in that
   * commit (so no later than a `write` of each would be). If a kind's job fails, each of its items
   * is written again alone, so one bad item rejects only its own caller.
   */
  gathered<T, R>(writeAll: (items: T[]) => R[], options?: WriteOptions): (item: T) => Promise<R>;
  /** Commits whatever is queued now; resolves when the queue is empty. */
  flush(): Promise<void>;
  /**
   * Resolves once everything committed so far, and whatever is queued now, is durable: an empty
   * job of the next group commit, so it shares that commit's sync with the jobs queued beside it.
   */
  synced(): Promise<void>;
}

/** How long a batch that found the write lock taken waits before it tries again (see `noWait`). */
const LOCK_RETRY_MS = 1;

/**
 * Group commit. With `synchronous = FULL` every commit is an fsync (about 1–4 ms on a laptop SSD),
 * so one transaction per request caps durable ingest at a few hundred per second. Requests that
 * arrive while the event loop is busy are queued and written together in one transaction; each
 * caller is answered after that commit, so nothing acknowledged can be lost.
 *
 * The fsync does not block the event loop: a batch commits with `synchronous = NORMAL` (its WAL
 * frames written, not yet synced) and its callers are answered once an `fdatasync` of the WAL,
 * started after that commit on libuv's thread pool, returns. That sync covers every frame written
 * before it, so fsyncs are shared by every batch that committed while the previous one ran. The
 * event loop meanwhile serves calls and commits the next batch (measured: an evaluation run spent
 * a third of its main thread in fsync). A reader may see a batch a few milliseconds before it is
 * durable, never an acknowledgement before it is. Other transactions on the connection keep FULL.
 *
 * Each job runs in its own savepoint: one job's failure (say, a constraint) rejects that job only.
 */
export function createWriter(db: Db, options: { maxBatch?: number } = {}): Writer {
  const maxBatch = options.maxBatch ?? 1000;
  let queue: Job[] = [];
  let scheduled = false;
  let idleWaiters: Array<() => void> = [];
  const wal = walSync(db);
  // The write lock is taken without SQLite's busy handler, which sleeps 1, 2, 5 … 100 ms on the
  // event loop while another connection (the ingest thread, writing logged requests and a run's
  // calls) holds it: a batch that finds it taken waits LOCK_RETRY_MS and tries again, the loop
  // serving calls meanwhile, up to the connection's busy_timeout in all (then SQLITE_BUSY, as before).
  const lockWaitMs = Number(db.pragma('busy_timeout', { simple: true }));
  // Not prepared once: SQLite applies this pragma when it compiles the statement, not when it runs.
  const noWait = () => db.pragma('busy_timeout = 0');
  const mayWait = () => db.pragma(`busy_timeout = ${lockWaitMs}`);
  let lockWaitSince: number | undefined;

  const runOne = db.transaction((job: Job) => job.run(db));
  const runBatch = db.transaction((jobs: Job[]) =>
    jobs.map((job) => {
      try {
        return { ok: true as const, value: runOne(job) };
      } catch (error) {
        return { ok: false as const, error };
      }
    }),
  );

  function drain(): void {
    const kinds = gatheredKinds;
    gatheredKinds = [];
    // Their jobs are written below; with `scheduled` still set, queuing them starts no second,
    // empty drain.
    for (const issue of kinds) issue();
    scheduled = false;
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      let results: ReturnType<typeof runBatch>;
      try {
        // IMMEDIATE takes the write lock up front (or fails at once, see `noWait`). A deferred
        // transaction that reads first cannot wait: once ingest commits meanwhile, its upgrade to
        // a writer fails with SQLITE_BUSY after its statements ran.
        const commit = () => (wal ? wal.unsynced(() => runBatch.immediate(batch)) : runBatch.immediate(batch));
        noWait();
        try {
          results = commit();
        } finally {
          mayWait();
        }
        lockWaitSince = undefined;
      } catch (error) {
        const now = Date.now();
        if ((error as { code?: unknown }).code === 'SQLITE_BUSY' && now - (lockWaitSince ??= now) < lockWaitMs) {
          // BEGIN failed before any job ran: the batch goes back to the front of the queue.
          queue = batch.concat(queue);
          setTimeout(schedule, LOCK_RETRY_MS);
          return;
        }
        lockWaitSince = undefined;
        // The commit itself failed (disk full, I/O error, the lock held too long): nothing in the batch is durable.
        for (const job of batch) job.reject(error);
        continue;
      }
      const settle = (durable: boolean, syncError?: unknown) =>
        results.forEach((result, i) => {
          if (batch[i].durable !== durable) return;
          if (syncError) batch[i].reject(syncError);
          else if (result.ok) batch[i].resolve(result.value);
          else batch[i].reject(result.error);
        });
      settle(false);
      if (wal) wal.afterSync((syncError) => settle(true, syncError));
      else settle(true);
    }
    if (!wal || wal.idle()) wakeIdle();
  }

  // Kinds with items gathered for the next commit, in the order of each one's first item. Each
  // job runs in a savepoint of its own, which first copies every page its statements touch to
  // SQLite's statement journal (16 KiB pages; a logged request touches ~20 b-trees): an
  // evaluation row written as three jobs cost ~320 µs of the main thread, as part of one job per
  // kind ~180 (docs/performance.md, evalc50).
  let gatheredKinds: Array<() => void> = [];

  function wakeIdle(): void {
    if (queue.length > 0 || scheduled) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const wake of waiters) wake();
  }
  wal?.onIdle(wakeIdle);

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    // setImmediate runs after pending I/O callbacks, so every request whose body has already
    // arrived gets parsed and queued before the batch is written.
    setImmediate(drain);
  }

  function write<T>(work: (db: Db) => T, options: WriteOptions = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push({ run: work, resolve: resolve as (value: unknown) => void, reject, durable: options.durable ?? true });
      schedule();
    });
  }

  function gathered<T, R>(writeAll: (items: T[]) => R[], options: WriteOptions = {}): (item: T) => Promise<R> {
    type Entry = { item: T; resolve: (value: R) => void; reject: (error: unknown) => void };
    let open: Entry[] | null = null;
    const alone = (entry: Entry) => void write(() => writeAll([entry.item])[0], options).then(entry.resolve, entry.reject);
    // Called by the drain before it commits: the batch becomes a job of that commit.
    const issue = () => {
      const batch = open!;
      open = null;
      write(() => writeAll(batch.map((e) => e.item)), options).then(
        (results) => batch.forEach((entry, i) => entry.resolve(results[i])),
        () => batch.forEach(alone),
      );
    };
    return (item) =>
      new Promise<R>((resolve, reject) => {
        if (!open) {
          open = [];
          gatheredKinds.push(issue);
          schedule();
        }
        open.push({ item, resolve, reject });
      });
  }

  return {
    write,
    gathered,
    synced: () => write(() => undefined),
    flush(): Promise<void> {
      if (queue.length === 0 && !scheduled && (!wal || wal.idle())) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}

/**
 * Commits without an fsync and syncs the WAL file off the event loop, for a file database whose
 * connection is set to FULL (null otherwise: in memory, or a caller that chose less). Also the
 * ingest thread's (ingest-worker.ts).
 */
export function walSync(db: Db) {
  if (db.memory || Number(db.pragma('synchronous', { simple: true })) !== 2) return null;
  const file = `${db.name}-wal`;
  const normal = db.prepare('PRAGMA synchronous = NORMAL');
  const full = db.prepare('PRAGMA synchronous = FULL');
  let syncing = false;
  let waiting: Array<(error?: unknown) => void> = [];
  /** The callers the running sync will answer; emptied if `syncNow` answers them first. */
  let inFlight: Array<(error?: unknown) => void> = [];
  let onIdle = () => {};

  // One sync at a time; callers that commit while it runs wait for the next one, which starts
  // after their commit and so covers it.
  function start(): void {
    const callers = (inFlight = waiting);
    waiting = [];
    syncing = true;
    const done = (error: unknown) => {
      syncing = false;
      const settled = callers.splice(0);
      for (const settle of settled) settle(error ?? undefined);
      if (waiting.length > 0) start();
      else onIdle();
    };
    // Opened per sync: SQLite may delete and recreate the WAL (the last connection closing).
    // Read-write, though only synced: Windows flushes a file only through a handle that may write.
    open(file, 'r+', (openError, fd) => {
      if (openError) return done(openError);
      fdatasync(fd, (syncError) => close(fd, () => done(syncError)));
    });
  }

  return {
    unsynced<T>(commit: () => T): T {
      normal.run();
      try {
        return commit();
      } finally {
        full.run();
      }
    },
    afterSync(settle: (error?: unknown) => void): void {
      waiting.push(settle);
      if (!syncing) start();
    },
    /**
     * Syncs here and now, and answers every caller waiting for a sync, the running one's too.
     * Before a long step on this thread (a text chunk, a checkpoint): their answers would
     * otherwise wait for it, the running sync's callback being queued behind it.
     */
    syncNow(): void {
      const callers = [...inFlight.splice(0), ...waiting];
      waiting = [];
      if (callers.length === 0) return;
      let failure: unknown;
      try {
        const fd = openSync(file, 'r+');
        try {
          fdatasyncSync(fd);
        } finally {
          closeSync(fd);
        }
      } catch (error) {
        failure = error;
      }
      for (const settle of callers) settle(failure);
    },
    idle: () => !syncing && waiting.length === 0,
    onIdle(wake: () => void): void {
      onIdle = wake;
    },
  };
}
