import type { Worker } from 'node:worker_threads';
import { startWorker } from '../threads/start-worker';
import type { IngestJob, IngestMessage, IngestReply } from './ingest-worker';
import type { NewRequest } from './requests';
import type { SpanWrite } from './spans';

export interface Ingest {
  /**
   * Resolves with the new request's id once its transaction is durable, or with `durable: false`
   * once it has committed: for a row that a later durable write covers (an evaluation's calls,
   * whose run is marked done by a sync of the WAL both connections write to; every sync covers
   * every commit before it).
   */
  insert(row: NewRequest, options?: { durable?: boolean }): Promise<number>;
  /** Resolves with how many spans were new once their transaction has committed; spans already
   * stored (an exporter's retry) are skipped. */
  insertSpans(spans: SpanWrite[]): Promise<number>;
  /**
   * Resolves once every request acknowledged before the call is in the text index: the thread
   * indexes text after answering (ingest-worker.ts), so a text search awaits this first. Never
   * rejects: with the thread stopped it resolves at once.
   */
  indexText(): Promise<void>;
  /** Resolves once the thread has opened the database and can write; rejects if it stopped first. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/** An ingest thread that has booted (or is booting) but waits before it opens its database. */
export interface IngestThread {
  file: string;
  worker: Worker;
  /** Lets the thread open `file`: only once this thread holds the data dir's lock and has migrated it. */
  open(): void;
}

/**
 * Starts the ingest thread for `file` without letting it open the file (see `IngestThread.open`).
 * A thread's boot (a Node environment, its modules) is ~100 ms of a 400 ms start; `serve` starts
 * it before loading the server's code so that both run at once (main.ts).
 */
export function startIngestThread(file: string): IngestThread {
  const gate = new Int32Array(new SharedArrayBuffer(4));
  const worker = startWorker(import.meta.url, 'ingest-worker', { file, gate });
  return {
    file,
    worker,
    open() {
      Atomics.store(gate, 0, 1);
      Atomics.notify(gate, 0);
    },
  };
}

/**
 * Group commit on a dedicated thread (ingest-worker.ts). Each caller is answered only after the
 * batch holding its row commits, so nothing acknowledged is lost; a SIGKILL loses only requests
 * not yet answered. `thread`: one started earlier for the same file (startIngestThread).
 */
export function createIngest(file: string, thread: IngestThread = startIngestThread(file)): Ingest {
  if (thread.file !== file) throw new Error(`The ingest thread was started for ${thread.file}, not ${file}`);
  const { worker } = thread;
  thread.open();
  const pending = new Map<number, { resolve: (id: number) => void; reject: (error: Error) => void }>();
  let seq = 0;
  let failure: Error | undefined;

  let started!: () => void;
  let stoppedEarly!: (error: Error) => void;
  const ready = new Promise<void>((resolve, reject) => ((started = resolve), (stoppedEarly = reject)));
  // Nobody may await it (a caller that never listens); the failure still reaches every submit.
  ready.catch(() => {});

  worker.on('message', (results: IngestReply) => {
    if (results === 'ready') return started();
    for (const result of results) {
      const waiter = pending.get(result.seq);
      pending.delete(result.seq);
      if ('error' in result) waiter?.reject(Object.assign(new Error(`ingest failed: ${result.error}`), { code: result.code }));
      else waiter?.resolve(result.value);
    }
  });
  const fail = (error: Error) => {
    failure ??= error;
    stoppedEarly(failure);
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  };
  worker.on('error', fail);
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      fail(new Error('the ingest thread has stopped'));
      resolve();
    }),
  );

  // Jobs submitted in one turn of the event loop cross to the thread as one message: a message
  // per request cost a structured clone and a wake-up of the thread each.
  let outbox: IngestMessage[] = [];
  const flush = () => {
    const messages = outbox;
    outbox = [];
    worker.postMessage(messages);
  };
  const send = (message: IngestMessage) => {
    if (outbox.push(message) === 1) setImmediate(flush);
  };
  const submit = (job: IngestJob) => {
    if (failure) return Promise.reject(failure);
    return new Promise<number>((resolve, reject) => {
      const id = ++seq;
      pending.set(id, { resolve, reject });
      send({ seq: id, ...job });
    });
  };
  return {
    ready,
    insert: (row, options) => submit(options?.durable === false ? { row, committed: true } : { row }),
    insertSpans: (spans) => submit({ spans }),
    // Should the thread have stopped, a search still answers, from what the index holds.
    indexText: () => submit({ index: true }).then(() => undefined, () => undefined),
    async close() {
      if (!failure) send({ close: true });
      await exited;
    },
  };
}
