import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../threads/start-worker';
import type { SandboxLimits } from './quickjs';
import { hostFailure, timeLimitMessage } from './quickjs-run';
import type { SandboxAnswer, SandboxJob } from './sandbox-worker';

export const CLOSED = 'The code sandbox is closed.';
/** Bounds a thread's start-up (tsx from source takes about half a second on a busy machine; pyodide about 2 s). */
const STARTUP_MS = 30_000;

export interface WorkerPoolOptions {
  /** The worker beside this module (start-worker.ts) that answers SandboxJobs. */
  worker: string;
  /** Threads running cells at once. */
  size: number;
  /** How long past its time limit a cell's thread may stay silent before it is replaced. */
  graceMs: number;
  /**
   * A cooperative interrupt: each thread gets a SharedArrayBuffer (`workerData.interrupt`) whose
   * first Int32 is set to 2 (SIGINT) at the cell's deadline, before the thread is terminated.
   */
  interrupt?: boolean;
}

export interface WorkerPool {
  run(code: string, data: unknown, limits: SandboxLimits): Promise<unknown>;
  close(): Promise<void>;
}

interface Job extends SandboxJob {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  interrupt?: Int32Array;
  job?: Job;
  timers: NodeJS.Timeout[];
  /** Set once the thread is ending: what its running job, if any, is answered with. */
  failure?: string;
  exited: Promise<void>;
}

/**
 * A small pool of sandbox threads: a cell that loops until its time limit holds a thread, not the
 * server's event loop; further cells queue. The sandbox interrupts a cell at its deadline itself;
 * should a thread still not answer `graceMs` after that, or die (a WebAssembly abort), it is
 * terminated and replaced, its cell answered with an error, and the queue goes on. Threads start
 * on first use and are unreferenced while idle, so a pool nobody closed never keeps the process alive.
 */
export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const { size, graceMs } = options;
  const slots = new Set<Slot>();
  const queue: Job[] = [];
  let seq = 0;
  let closed = false;

  function answer(slot: Slot, outcome: { value: unknown } | { error: string }): void {
    const job = slot.job;
    if (!job) return;
    slot.job = undefined;
    clearTimers(slot);
    slot.worker.unref();
    if ('error' in outcome) job.reject(new Error(outcome.error));
    else job.resolve(outcome.value);
  }

  function spawn(): Slot {
    const shared = options.interrupt ? new SharedArrayBuffer(4) : undefined;
    const worker = startWorker(import.meta.url, options.worker, shared ? { interrupt: shared } : undefined);
    const slot: Slot = { worker, timers: [], exited: Promise.resolve(), ...(shared ? { interrupt: new Int32Array(shared) } : {}) };
    worker.on('message', (message: SandboxAnswer) => {
      const job = slot.job;
      if (job?.id !== message.id) return;
      if ('started' in message) {
        clearTimers(slot);
        if (slot.interrupt) slot.timers.push(setTimeout(() => Atomics.store(slot.interrupt!, 0, 2), job.limits.timeoutMs));
        watch(slot, job.limits.timeoutMs + graceMs);
        return;
      }
      answer(slot, message);
      dispatch();
    });
    worker.on('error', (error) => {
      slot.failure ??= slot.job ? hostFailure(`The sandbox stopped: ${error.message}`, slot.job.limits.memoryBytes) : error.message;
    });
    slot.exited = new Promise<void>((resolve) =>
      worker.once('exit', () => {
        slots.delete(slot);
        answer(slot, { error: slot.failure ?? 'The sandbox stopped unexpectedly.' });
        dispatch();
        resolve();
      }),
    );
    slots.add(slot);
    return slot;
  }

  function clearTimers(slot: Slot): void {
    for (const timer of slot.timers.splice(0)) clearTimeout(timer);
  }

  /** Ends the slot's thread unless its job is answered within `ms`. */
  function watch(slot: Slot, ms: number): void {
    const job = slot.job!;
    slot.timers.push(
      setTimeout(() => {
        slot.failure ??= timeLimitMessage(job.limits.timeoutMs);
        void slot.worker.terminate();
      }, ms),
    );
  }

  function dispatch(): void {
    while (!closed && queue.length > 0) {
      let slot = [...slots].find((s) => !s.job && s.failure === undefined);
      if (!slot) {
        if (slots.size >= size) return;
        slot = spawn();
      }
      const job = queue.shift()!;
      slot.job = job;
      slot.worker.ref();
      watch(slot, STARTUP_MS + job.limits.timeoutMs + graceMs);
      const { id, code, input, limits } = job;
      slot.worker.postMessage({ id, code, input, limits } satisfies SandboxJob);
    }
  }

  return {
    run(code, data, limits) {
      if (closed) return Promise.reject(new Error(CLOSED));
      return new Promise<unknown>((resolve, reject) => {
        // The row crosses as JSON text, serialized here as when the sandbox ran on this thread.
        const input = JSON.stringify(data ?? null);
        queue.push({ id: ++seq, code, input, limits, resolve, reject });
        dispatch();
      });
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.reject(new Error(CLOSED));
      const exits = [...slots].map((slot) => {
        slot.failure ??= CLOSED;
        void slot.worker.terminate();
        return slot.exited;
      });
      await Promise.all(exits);
    },
  };
}
