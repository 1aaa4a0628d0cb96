import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { afterEach, expect, test } from 'vitest';
import { boundHeapGrowth, SERVER_HEAP_BOUNDS } from '../src-server/bound-heap-growth';

// The serving process bounds its heap at run time (src-server/bound-heap-growth.ts). These tests
// run in the test file's own process: the flags are process-wide, so each test undoes them.
const undo: Array<() => void> = [];
afterEach(() => undo.splice(0).forEach((stop) => stop()));

const youngGeneration = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!.space_size;

/**
 * Allocates ~100 MB with ~1 MB always alive, enough survivors that V8 grows an unbounded young
 * generation, yielding to the event loop as a server does (the bound is checked after each
 * collection, in a callback).
 */
async function churn(): Promise<void> {
  let alive: Array<{ n: number; s: string }> = [];
  for (let i = 0; i < 2_000_000; i++) {
    alive.push({ n: i, s: `row ${i}` });
    if (alive.length > 20_000) alive = [];
    if (i % 10_000 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
}

const startWorker = () =>
  new Promise<Worker>((resolve) => {
    const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
    worker.once('online', () => resolve(worker));
  });

test('the young generation stops growing at its bound', async () => {
  const start = youngGeneration();
  undo.push(boundHeapGrowth({ youngGenerationBytes: start, oldGenerationGrowthPercent: 30 }));
  await churn();
  expect(youngGeneration()).toBeLessThanOrEqual(start);
});

test('the bound holds after a worker thread starts (a new isolate resets V8’s growth factor)', async () => {
  const start = youngGeneration();
  undo.push(boundHeapGrowth({ youngGenerationBytes: start, oldGenerationGrowthPercent: 30 }));
  const worker = await startWorker();
  try {
    await churn();
    expect(youngGeneration()).toBeLessThanOrEqual(start);
  } finally {
    await worker.terminate();
  }
});

test('under its bound the young generation grows, and undoing the bound lets it grow past', async () => {
  const start = youngGeneration();
  const stop = boundHeapGrowth({ youngGenerationBytes: start * 2, oldGenerationGrowthPercent: 30 });
  await churn();
  expect(youngGeneration()).toBe(start * 2);
  stop();
  await churn();
  expect(youngGeneration()).toBeGreaterThan(start * 2);
});

/** Full collections forced in this process (gc() or the bound's settling), as V8 reports them. */
function watchForcedFullCollections(): { count(): number; stop(): void } {
  let forced = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const { kind, flags } = (entry as PerformanceEntry & { detail: { kind: number; flags: number } }).detail;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR && (flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) !== 0) forced++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return { count: () => forced, stop: () => observer.disconnect() };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('the old generation’s bound takes hold through one full collection, once the server has settled', async () => {
  const watch = watchForcedFullCollections();
  try {
    undo.push(boundHeapGrowth(SERVER_HEAP_BOUNDS, { settleMs: 100 }));
    await sleep(50);
    expect(watch.count()).toBe(0);
    await sleep(400);
    expect(watch.count()).toBe(1);
    await sleep(200);
    expect(watch.count()).toBe(1);
  } finally {
    watch.stop();
  }
});

test('undoing the bound before it settles forces no collection', async () => {
  const watch = watchForcedFullCollections();
  try {
    boundHeapGrowth(SERVER_HEAP_BOUNDS, { settleMs: 100 })();
    await sleep(400);
    expect(watch.count()).toBe(0);
  } finally {
    watch.stop();
  }
});
