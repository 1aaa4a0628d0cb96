import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Worker } from 'node:worker_threads';

export interface HeapBounds {
  /** The young generation (V8's new space, both semi-spaces) stops growing once it is this large. */
  youngGenerationBytes: number;
  /** After a full collection the old generation may grow by this share of what survived before
   * the next one (V8 chooses 10–300 % by itself, and a busy server mostly gets the high end). */
  oldGenerationGrowthPercent: number;
}

/**
 * The server's bounds, measured with bench/eval-promptfoo.ts (1,000 rows, c = 10; the figures in
 * docs/performance.md, "Evaluation memory"): unbounded, V8 doubles the young generation up to its
 * 32 MiB maximum during the first run and lets promoted garbage build up to ~20 MiB of old space
 * before a full collection, peak RSS 137–161 MiB; with these bounds 106–114 MiB at +3.6 % server CPU
 * per run (+6 % per ingested request). Either bound alone left the peak at 123–137 MiB.
 */
export const SERVER_HEAP_BOUNDS: HeapBounds = { youngGenerationBytes: 8 * 1024 * 1024, oldGenerationGrowthPercent: 30 };

/**
 * When the old generation's bound starts to hold (see `boundHeapGrowth`): once the server has
 * listened and answered its first requests, and before any real work.
 */
export const SETTLE_MS = 1000;

const youngGenerationSize = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;

/**
 * Bounds the main thread's heap growth for the life of the process; returns what undoes it.
 * V8's heap size flags (`--max-semi-space-size`) are read only when a heap is made, and any V8 flag
 * on the command line costs Node its built-in code cache (+75 ms at start), so the bounds are set
 * at run time through the two flags V8 reads whenever it resizes a heap. Both are process-wide:
 * worker threads (the ingest thread) are bounded alike.
 */
export function boundHeapGrowth(bounds: HeapBounds = SERVER_HEAP_BOUNDS, options: { settleMs?: number } = {}): () => void {
  setFlagsFromString(`--heap-growing-percent=${bounds.oldGenerationGrowthPercent}`);
  // The growth share is used when V8 computes the old generation's next limit, at a full
  // collection; set after start-up, the limit in force is still the one start-up left, and the
  // first full collection came only once ~45 MB of heap had built up (an evaluation run's peak:
  // 132 MiB of RSS instead of 120; docs/performance.md). One full collection, forced when the
  // server has just started and is idle, makes the bound hold from then on: ~10–40 ms of the main
  // thread, once. Setting the share before start-up instead costs ~50 ms to the ready line.
  const settle = setTimeout(collectGarbage, options.settleMs ?? SETTLE_MS);
  settle.unref();
  // The young generation doubles (growth factor 2) while it is under the bound and stays put
  // (factor 1) once it reaches it; it may still shrink when idle, and then grows back. Checked
  // after every collection because making an isolate (every `new Worker`) puts the factor back
  // to 2, V8's minimum for a new heap. The check runs in a callback at the event loop's next turn,
  // so a long synchronous stretch of work can take the young generation one doubling past the
  // bound, until V8 shrinks it when idle. A check costs a few microseconds; a run makes ~100 collections.
  const apply = () => setFlagsFromString(`--semi-space-growth-factor=${youngGenerationSize() >= bounds.youngGenerationBytes ? 1 : 2}`);
  apply();
  const observer = new PerformanceObserver(apply);
  observer.observe({ entryTypes: ['gc'] });
  // A worker's isolate is made on its own thread; by its `online` event the reset has happened.
  // Without this the main thread's next collection could double a young generation already at
  // the bound (seen: the ingest thread starting while the server opens left it at 16 MiB).
  const onWorker = (worker: Worker) => worker.once('online', apply);
  process.on('worker', onWorker);
  return () => {
    clearTimeout(settle);
    process.off('worker', onWorker);
    observer.disconnect();
    setFlagsFromString('--semi-space-growth-factor=2');
    setFlagsFromString('--heap-growing-percent=0');
  };
}

/**
 * One full, synchronous collection. `gc` is exposed only to contexts made after the flag is set,
 * so it is taken from a fresh one; the main context's globals are untouched.
 */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}
