import type { Logger } from '../logger';
import type { Db } from '../store/db';
import type { RequestStore } from '../store/requests';
import { INCREMENTAL_VACUUM, type RetentionSetting, type RetentionStore } from '../store/retention';
import type { SpanStore } from '../store/spans';

export type { RetentionSetting } from '../store/retention';

export const DAY_MS = 86_400_000;
/** The sweep's period once a setting is in force (API.md: at least hourly). */
export const SWEEP_EVERY_MS = 3_600_000;
/** Requests per prune transaction: a few ms of write lock, so ingest's next batch barely waits. */
const REQUEST_BATCH = 500;
/** Traces per prune transaction (each may hold many spans). */
const TRACE_BATCH = 50;
/** Pages given back per step of incremental vacuum (8 MiB at 4 KiB pages). */
const VACUUM_STEP_PAGES = 2048;

/** Between two batches the event loop serves whatever arrived (HTTP, ingest answers). */
const yieldToIo = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface Pruned {
  requests: number;
  spans: number;
}

interface Deps {
  db: Db;
  store: RetentionStore;
  requests: RequestStore;
  spans: SpanStore;
  now: () => number;
  log: Logger;
}

/**
 * Retention for the whole data file: requests older than `keep_days` (by request_start_time) and
 * traces that began before then go, and when the live pages pass `max_bytes` the oldest requests
 * and traces go until they fit. Datasets, prompts and evaluation results are other tables and are
 * never touched (a dataset built from requests holds its own copy of their data).
 *
 * The prune runs on the main connection in small transactions with a yield between them, so the
 * ingest thread waits at most one batch for the write lock, and HTTP is served between batches.
 */
export function createRetentionService(deps: Deps) {
  const { db, store, requests, spans, now, log } = deps;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = true;

  const removeRequests = db.transaction((ids: number[]) => requests.remove(ids));
  const removeTraces = db.transaction((workspaceId: number, traceIds: string[]) => spans.removeTraces(workspaceId, traceIds));

  /** Deletes up to `maxRequests` requests that began before `before`, oldest first; stops early when `enough()`. */
  async function pruneRequests(before: number, maxRequests: number, enough: () => boolean): Promise<number> {
    let removed = 0;
    while (!stopped && removed < maxRequests && !enough()) {
      const ids = store.oldestRequests(before, Math.min(REQUEST_BATCH, maxRequests - removed));
      if (ids.length === 0) break;
      removed += removeRequests(ids);
      await yieldToIo();
    }
    return removed;
  }

  async function pruneTraces(beforeNs: bigint, maxSpans: number, enough: () => boolean): Promise<number> {
    let removed = 0;
    for (const ws of store.workspaceIds()) {
      while (!stopped && removed < maxSpans && !enough()) {
        const traces = store.oldestTraces(ws, beforeNs, TRACE_BATCH);
        if (traces.length === 0) break;
        removed += removeTraces(ws, traces.map((t) => t.traceId));
        await yieldToIo();
      }
    }
    return removed;
  }

  /** How many requests and spans the byte budget needs gone, from the average live bytes per row. */
  function overBudget(maxBytes: number): Pruned {
    const used = store.usedBytes();
    if (used <= maxBytes) return { requests: 0, spans: 0 };
    const counts = store.counts();
    const rows = counts.requests + counts.spans;
    if (rows === 0) return { requests: 0, spans: 0 };
    // Datasets, prompts and results count in `used` but cannot go, so this overestimates a row's
    // share: a sweep deletes too little rather than too much, and the next one continues.
    const rowsToGo = Math.ceil(((used - maxBytes) / used) * rows);
    const requestsToGo = Math.min(counts.requests, Math.ceil((rowsToGo * counts.requests) / rows));
    return { requests: requestsToGo, spans: Math.min(counts.spans, rowsToGo - requestsToGo) };
  }

  async function sweep(): Promise<Pruned> {
    const setting = store.setting();
    const pruned: Pruned = { requests: 0, spans: 0 };
    const never = () => false;
    if (setting.keep_days !== null) {
      const before = now() - setting.keep_days * DAY_MS;
      pruned.requests += await pruneRequests(before, Infinity, never);
      pruned.spans += await pruneTraces(BigInt(before) * 1_000_000n, Infinity, never);
    }
    if (setting.max_bytes !== null) {
      const maxBytes = setting.max_bytes;
      const goal = overBudget(maxBytes);
      // Freed pages leave the live count at once (a text index's space returns at its next
      // merge), so the estimate caps each sweep and the live size may stop it sooner.
      const fits = () => store.usedBytes() <= maxBytes;
      pruned.requests += await pruneRequests(Infinity, goal.requests, fits);
      pruned.spans += await pruneTraces(BigInt(Number.MAX_SAFE_INTEGER) * 1_000_000n, goal.spans, fits);
    }
    let gaveBack = false;
    while (!stopped && store.freeBytes() > 0 && store.autoVacuum() === INCREMENTAL_VACUUM) {
      store.giveBack(VACUUM_STEP_PAGES);
      gaveBack = true;
      await yieldToIo();
    }
    // Until a checkpoint, a WAL-mode file keeps its old length.
    if (gaveBack && !stopped) store.checkpoint();
    if (pruned.requests + pruned.spans > 0) log.info(`Retention removed ${pruned.requests} requests and ${pruned.spans} spans.`);
    return pruned;
  }

  function runSoon(delayMs: number): void {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(run, delayMs);
    timer.unref();
  }

  function run(): void {
    if (running) {
      again = true;
      return;
    }
    running = sweep()
      .catch((error: unknown) => log.error('Retention sweep failed', error))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          runSoon(0);
        } else runSoon(SWEEP_EVERY_MS);
      }) as Promise<void>;
  }

  return {
    setting: () => store.setting(),

    /** Saves the setting; its first sweep starts at once (API.md: within 10 s). */
    put(setting: RetentionSetting): RetentionSetting {
      store.save(setting, now());
      runSoon(0);
      return store.setting();
    },

    /** What `setting` would delete if it were saved now. */
    preview(setting: RetentionSetting): Pruned {
      let requestsToGo = 0;
      let spansToGo = 0;
      if (setting.keep_days !== null) {
        const before = now() - setting.keep_days * DAY_MS;
        requestsToGo = store.requestsBefore(before);
        spansToGo = store.spansBefore(BigInt(before) * 1_000_000n);
      }
      if (setting.max_bytes !== null) {
        const goal = overBudget(setting.max_bytes);
        requestsToGo = Math.max(requestsToGo, goal.requests);
        spansToGo = Math.max(spansToGo, goal.spans);
      }
      return { requests: requestsToGo, spans: spansToGo };
    },

    storage() {
      return { ...store.files(), ...store.counts(), free_bytes: store.freeBytes(), tables: store.tables(), retention: store.setting() };
    },

    /** First sweep shortly after start (a setting saved while stopped applies now), then hourly. */
    start(): void {
      stopped = false;
      runSoon(1000);
    },

    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

export type RetentionService = ReturnType<typeof createRetentionService>;
