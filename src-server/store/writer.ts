import type { Db } from './db';

type Job = {
  run: (db: Db) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
};

export interface Writer {
  /** Runs `work` inside the next group transaction; settles only after that transaction commits. */
  write<T>(work: (db: Db) => T): Promise<T>;
  /** Commits whatever is queued now; resolves when the queue is empty. */
  flush(): Promise<void>;
}

/**
 * Group commit. With `synchronous = FULL` every commit is an fsync (about 1–4 ms on a laptop SSD),
 * so one transaction per request caps durable ingest at a few hundred per second. Requests that
 * arrive while the event loop is busy are queued and written together in one transaction; each
 * caller is answered after that commit, so nothing acknowledged can be lost.
 *
 * Each job runs in its own savepoint: one job's failure (say, a constraint) rejects that job only.
 */
export function createWriter(db: Db, options: { maxBatch?: number } = {}): Writer {
  const maxBatch = options.maxBatch ?? 1000;
  let queue: Job[] = [];
  let scheduled = false;
  let idleWaiters: Array<() => void> = [];

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
    scheduled = false;
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      let results;
      try {
        // IMMEDIATE takes the write lock up front, waiting (busy_timeout) while the ingest thread
        // holds it. A deferred transaction that reads first cannot wait: once ingest commits
        // meanwhile, its upgrade to a writer fails at once with SQLITE_BUSY.
        results = runBatch.immediate(batch);
      } catch (error) {
        // The commit itself failed (disk full, I/O error): nothing in the batch is durable.
        for (const job of batch) job.reject(error);
        continue;
      }
      results.forEach((result, i) => {
        if (result.ok) batch[i].resolve(result.value);
        else batch[i].reject(result.error);
      });
    }
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const wake of waiters) wake();
  }

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    // setImmediate runs after pending I/O callbacks, so every request whose body has already
    // arrived gets parsed and queued before the batch is written.
    setImmediate(drain);
  }

  return {
    write<T>(work: (db: Db) => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ run: work, resolve: resolve as (value: unknown) => void, reject });
        schedule();
      });
    },
    flush(): Promise<void> {
      if (queue.length === 0 && !scheduled) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}
