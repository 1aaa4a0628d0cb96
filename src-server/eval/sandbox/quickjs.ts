import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../threads/start-worker';
import { hostFailure, timeLimitMessage } from './quickjs-run';
import type { SandboxAnswer, SandboxJob } from './sandbox-worker';

export interface SandboxLimits {
  timeoutMs: number;
  memoryBytes: number;
}

export interface Sandbox {
  /** Runs a function body that sees `data` and `return`s a JSON value. Throws on user errors and limits. */
  runJavaScript(code: string, data: unknown, limits?: Partial<SandboxLimits>): Promise<unknown>;
}

/** The sandbox with its threads; `close()` ends them (queued and running cells are answered with an error). */
export interface SandboxPool extends Sandbox {
  close(): Promise<void>;
}

export interface SandboxPoolOptions {
  /** Threads running cells at once (default: 2, or 1 on a single core). */
  threads?: number;
  /** How long past its time limit a cell's thread may stay silent before it is replaced. */
  graceMs?: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { timeoutMs: 2_000, memoryBytes: 64 * 1024 * 1024 };

const CLOSED = 'The code sandbox is closed.';
/** Bounds a thread's start-up (tsx from source takes about half a second on a busy machine). */
const STARTUP_MS = 30_000;

interface Job extends SandboxJob {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  job?: Job;
  timer?: NodeJS.Timeout;
  /** Set once the thread is ending: what its running job, if any, is answered with. */
  failure?: string;
  exited: Promise<void>;
}

/**
 * Cells run in QuickJS (quickjs-run.ts) on a small pool of threads (sandbox-worker.ts), so a
 * cell that loops until its time limit holds a sandbox thread, not the server's event loop;
 * further cells queue. QuickJS interrupts a cell at its deadline; should a thread still not
 * answer `graceMs` after that, or die (a WebAssembly abort), it is terminated and replaced, its
 * cell answered with an error, and the queue goes on. Idle threads are unreferenced, so a
 * sandbox nobody closed never keeps the process alive.
 */
export function createSandbox(defaults: SandboxLimits = DEFAULT_SANDBOX_LIMITS, options: SandboxPoolOptions = {}): SandboxPool {
  const size = Math.max(1, options.threads ?? Math.min(2, availableParallelism()));
  const graceMs = options.graceMs ?? 5_000;
  const slots = new Set<Slot>();
  const queue: Job[] = [];
  let seq = 0;
  let closed = false;

  function answer(slot: Slot, outcome: { value: unknown } | { error: string }): void {
    const job = slot.job;
    if (!job) return;
    slot.job = undefined;
    clearTimeout(slot.timer);
    slot.worker.unref();
    if ('error' in outcome) job.reject(new Error(outcome.error));
    else job.resolve(outcome.value);
  }

  function spawn(): Slot {
    const worker = startWorker(import.meta.url, 'sandbox-worker');
    const slot: Slot = { worker, exited: Promise.resolve() };
    worker.on('message', (message: SandboxAnswer) => {
      const job = slot.job;
      if (job?.id !== message.id) return;
      if ('started' in message) {
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

  /** Ends the slot's thread unless its job is answered within `ms`. */
  function watch(slot: Slot, ms: number): void {
    const job = slot.job!;
    clearTimeout(slot.timer);
    slot.timer = setTimeout(() => {
      slot.failure ??= timeLimitMessage(job.limits.timeoutMs);
      void slot.worker.terminate();
    }, ms);
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
    runJavaScript(code, data, limits = {}) {
      if (closed) return Promise.reject(new Error(CLOSED));
      return new Promise<unknown>((resolve, reject) => {
        // The row crosses as JSON text, serialized here as when the sandbox ran on this thread.
        const input = JSON.stringify(data ?? null);
        queue.push({ id: ++seq, code, input, limits: { ...defaults, ...limits }, resolve, reject });
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
