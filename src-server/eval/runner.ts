import { setMaxListeners } from 'node:events';
import type { Cell, ReportCellStore, CellStatus } from '../store/report-cells';
import type { Report, ReportColumn, ReportStore } from '../store/reports';
import type { Writer } from '../store/writer';
import { boundCellValue } from './cell-output';
import { ProviderError } from '../providers/provider';
import { CellError, type CellContext, type ColumnType } from './column-type';
import { columnTypes } from './columns/index';
import type { ColumnTypeId } from './column-type';

export interface RunnerDatasets {
  columnNames(workspaceId: number, datasetId: number): string[];
  rowCount(workspaceId: number, datasetId: number): number;
  /** Rows `from`.. in row_index order, at most `limit`. */
  rows(workspaceId: number, datasetId: number, from: number, limit: number): Array<{ row_index: number; data: Record<string, unknown> }>;
}

export interface Progress {
  report_id: number;
  status: Report['status'];
  total_cells: number;
  done_cells: number;
  running_cells: number;
  errors: number;
  cost: number;
  input_tokens: number;
  output_tokens: number;
}

export type RunEvent = { type: 'progress'; progress: Progress } | { type: 'done'; progress: Progress } | { type: 'shutdown' };

export interface RunnerDeps {
  reports: ReportStore;
  cells: ReportCellStore;
  writer: Writer;
  datasets: RunnerDatasets;
  /** What every cell can use besides its row. */
  tools: Pick<CellContext, 'llm' | 'prompts' | 'sandbox' | 'fetch'>;
  /** PROMPTLEDGER_EVAL_CONCURRENCY: rows in flight per run (a run may ask for fewer). */
  concurrency: number;
  /** Computes the score of a finished run; the work returned stores it, in the write that marks the run done. */
  scoreOf(report: Report): () => void;
  now: () => number;
  log: { error(message: string, error?: unknown): void };
}

const CHUNK = 256;
// Progress events are for eyes: ten a second is smooth and costs nothing next to the cells.
const EVENT_INTERVAL_MS = 100;

class Stop extends Error {
  constructor(readonly why: 'cancel' | 'shutdown') {
    super(why);
  }
}

export interface PreparedColumn {
  row: Pick<ReportColumn, 'id' | 'name' | 'column_type' | 'configuration'>;
  type: ColumnType;
  config: unknown;
  reads: string[];
}

/** The evaluation columns of a report, in order, with their configuration parsed once. */
export function prepareColumns(columns: Array<PreparedColumn['row']>): PreparedColumn[] {
  return columns
    .filter((c) => c.column_type !== 'DATASET')
    .map((row) => {
      const type = columnTypes[row.column_type as ColumnTypeId];
      const config: unknown = type.config.parse(row.configuration);
      return { row, type, config, reads: type.reads(config) };
    });
}

/** The failed input that makes a cell SKIPPED, if any. */
function failedInput(column: PreparedColumn, statuses: Map<string, CellStatus>): string | undefined {
  if (column.type.skipsOnFailedInput === false) return undefined;
  return column.reads.find((n) => statuses.get(n) === 'ERROR' || statuses.get(n) === 'SKIPPED');
}

/** A finished cell and its value's JSON text (made once, when the runner bounds the value). */
type NewCell = { cell: Cell; json: string | null };

export type ComputedCell = { status: CellStatus; value: unknown; error: string | null; cost: number; inputTokens: number; outputTokens: number };

/**
 * One cell's outcome from the values to its left: a failed input skips it, a thrown error is an
 * ERROR cell. `null` when `ctx.signal` aborted while it computed (nothing is to be recorded). Runs
 * and previews both compute cells here, so a preview behaves exactly like a run.
 */
export async function computeCell(
  column: PreparedColumn,
  statuses: Map<string, CellStatus>,
  ctx: CellContext,
  log: RunnerDeps['log'],
  rowIndex: number,
): Promise<ComputedCell | null> {
  const blank = { value: null, cost: 0, inputTokens: 0, outputTokens: 0 };
  const failed = failedInput(column, statuses);
  if (failed !== undefined) return { ...blank, status: 'SKIPPED', error: `Skipped: input column '${failed}' has no value.` };
  try {
    const result = await column.type.run(column.config, ctx);
    const value = result.value === undefined ? null : result.value;
    return {
      status: value === false ? 'FAILED' : 'PASSED', value, error: null,
      cost: result.cost ?? 0, inputTokens: result.inputTokens ?? 0, outputTokens: result.outputTokens ?? 0,
    };
  } catch (error) {
    if (ctx.signal.aborted) return null;
    const where = `Report ${ctx.reportId}: column '${column.row.name}' failed on row ${rowIndex}`;
    // A provider's failure (a 500 after the retries, a refused key) is the provider's news, not a
    // fault of ours: one line with its message, no stack trace. Anything else is a bug: keep the stack.
    if (error instanceof ProviderError) log.error(`${where}: ${oneLine(error.message)}`);
    else if (!(error instanceof CellError)) log.error(where, error);
    return { ...blank, status: error instanceof CellError ? error.status : 'ERROR', error: (error as Error).message || String(error) };
  }
}

/**
 * Runs final reports in the background: rows concurrently (bounded), each row's columns in
 * order, every finished cell committed as it finishes. A cell that exists is never recomputed, so
 * a run interrupted by a crash or a shutdown resumes where it stopped.
 */
const NOTHING: ReadonlySet<string> = new Set();

export function createRunner(deps: RunnerDeps) {
  const { reports, cells, writer, datasets, tools, now } = deps;
  // The cells finished before the next group commit, every run's, are written by one job in it
  // (see `Writer.gathered`), with the log entries of their calls, handed over before them.
  // Settled at the commit, not the fsync: a crash of the process keeps a committed cell (only the
  // calls in flight are made again), and each run is marked done by a durable write, whose sync
  // covers every cell before it.
  const writeCell = writer.gathered((batch: NewCell[]) => batch.map(({ cell, json }) => cells.upsert(cell, json)), { durable: false });
  const active = new Map<number, { controller: AbortController; done: Promise<void>; progress: Progress; computing: Set<string> }>();
  const listeners = new Map<number, Set<(event: RunEvent) => void>>();
  let stopped = false;

  const emit = (reportId: number, event: RunEvent) => {
    for (const listener of listeners.get(reportId) ?? []) listener(event);
  };

  async function execute(report: Report, controller: AbortController, progress: Progress): Promise<void> {
    const signal = controller.signal;
    const columns = prepareColumns(reports.columns(report.id));
    const rowCount = datasets.rowCount(report.workspace_id, report.dataset_id);
    const before = cells.totals(report.id);
    Object.assign(progress, {
      total_cells: rowCount * columns.length,
      done_cells: before.cells,
      errors: before.errors,
      cost: before.cost,
      input_tokens: before.input_tokens,
      output_tokens: before.output_tokens,
    });
    // Each cell is handed to the writer the moment it finishes, and its row goes on without
    // waiting for the commit: a row that held its place until then started its next call one
    // commit later (~5–15 ms a row at 50 ms a call, every wave; docs/performance.md, evalc50).
    // The run waits for every write before it is marked done, by a durable write whose sync
    // covers them all. A crash loses only uncommitted cells, which a resume recomputes. A failed
    // write stops the run: no new row starts, and the run fails with that error.
    const writes = new Set<Promise<void>>();
    let failedWrite: { error: unknown } | undefined;
    const track = (written: Promise<unknown>, settled = () => {}) => {
      const write = written.then(
        () => {
          writes.delete(write);
          settled();
        },
        (error: unknown) => {
          writes.delete(write);
          settled();
          failedWrite ??= { error };
        },
      );
      writes.add(write);
    };
    // The report is RUNNING already (inserted so, or left so by a crash): this marks when it
    // (re)started, which nothing needs durable, nor even committed, before the rows begin (the
    // first calls' host entry shares its commit); the done mark's sync covers it.
    track(writer.write(() => reports.start(report.id, now()), { durable: false }));
    let lastEvent = 0;
    const tick = (force = false) => {
      if (!force && now() - lastEvent < EVENT_INTERVAL_MS) return;
      lastEvent = now();
      emit(report.id, { type: 'progress', progress: { ...progress } });
    };
    tick(true);

    // Rows are read a chunk at a time with the chunk's finished cells, so memory stays flat
    // however large the dataset.
    function* pending() {
      for (let from = 0; ; ) {
        const chunk = datasets.rows(report.workspace_id, report.dataset_id, from, CHUNK);
        if (chunk.length === 0) return;
        const to = chunk[chunk.length - 1].row_index + 1;
        const finished = new Map<number, Map<number, { status: CellStatus; value: unknown }>>();
        for (const cell of cells.range(report.id, from, to)) {
          const byColumn = finished.get(cell.row_index) ?? finished.set(cell.row_index, new Map()).get(cell.row_index)!;
          byColumn.set(cell.column_id, cell);
        }
        for (const row of chunk) {
          const done = finished.get(row.row_index);
          if (done && done.size === columns.length) continue;
          yield { row, done: done ?? new Map() };
        }
        from = to;
      }
    }

    /** One cell's outcome; `null` when the run was stopped while it computed (nothing is recorded). */
    async function runCell(column: PreparedColumn, rowIndex: number, values: Record<string, unknown>, statuses: Map<string, CellStatus>): Promise<ComputedCell | null> {
      const skips = failedInput(column, statuses) !== undefined;
      if (!skips) progress.running_cells++;
      try {
        return await computeCell(column, statuses, {
          ...tools, row: { ...values }, workspaceId: report.workspace_id, reportId: report.id, columnName: column.row.name, signal,
        }, deps.log, rowIndex);
      } finally {
        if (!skips) progress.running_cells--;
      }
    }

    // Cells being computed or committed, by `row:column`: the rows API shows them RUNNING.
    const computing = active.get(report.id)!.computing;
    const record = (cell: NewCell, key: string) => track(writeCell(cell), () => computing.delete(key));

    async function runRow(row: { row_index: number; data: Record<string, unknown> }, done: Map<number, { status: CellStatus; value: string | null }>) {
      const values: Record<string, unknown> = { ...row.data };
      const statuses = new Map<string, CellStatus>();
      for (const column of columns) {
        if (signal.aborted) return;
        const name = column.row.name;
        const prior = done.get(column.row.id);
        if (prior) {
          values[name] = prior.value;
          statuses.set(name, prior.status);
          continue;
        }
        const started = now();
        const key = `${row.row_index}:${column.row.id}`;
        computing.add(key);
        const cell = await runCell(column, row.row_index, values, statuses);
        if (!cell) return void computing.delete(key);
        const latency = now() - started;
        // What is stored is what later columns read, so a resumed run sees the same values.
        const stored = boundCellValue(cell.value);
        record({
          cell: {
            report_id: report.id, row_index: row.row_index, column_id: column.row.id, status: cell.status,
            value: stored.value, error: cell.error, cost: cell.cost,
            input_tokens: cell.inputTokens, output_tokens: cell.outputTokens, latency_ms: latency,
          },
          json: stored.json,
        }, key);
        values[name] = stored.value;
        statuses.set(name, cell.status);
        progress.done_cells++;
        if (cell.status === 'ERROR') progress.errors++;
        progress.cost += cell.cost;
        progress.input_tokens += cell.inputTokens;
        progress.output_tokens += cell.outputTokens;
        tick();
      }
    }

    const width = Math.max(1, Math.min(report.concurrency ?? deps.concurrency, deps.concurrency));
    const queue = pending();
    const worker = async () => {
      for (;;) {
        if (signal.aborted || failedWrite) return;
        const next = queue.next();
        if (next.done) return;
        await runRow(next.value.row, next.value.done);
      }
    };
    try {
      await Promise.all(Array.from({ length: width }, worker));
    } finally {
      // Settles even when a row threw: no write is left running behind the run's end.
      while (writes.size > 0) await Promise.all(writes);
    }
    if (signal.aborted) throw signal.reason;
    if (failedWrite) throw failedWrite.error;
  }

  async function run(report: Report, controller: AbortController, progress: Progress) {
    try {
      await execute(report, controller, progress);
      await tools.llm.settled();
      // The score and the done mark in one transaction: one sync at the end, not two.
      const storeScore = deps.scoreOf(report);
      await writer.write(() => {
        storeScore();
        reports.finish(report.id, 'COMPLETED', null, now());
      });
      progress.status = 'COMPLETED';
    } catch (error) {
      if (error instanceof Stop && error.why === 'shutdown') return;
      const canceled = error instanceof Stop;
      if (!canceled) deps.log.error(`Report ${report.id} failed`, error);
      progress.status = canceled ? 'CANCELED' : 'FAILED';
      try {
        const storeScore = canceled ? deps.scoreOf(report) : () => {};
        await writer.write(() => {
          storeScore();
          reports.finish(report.id, progress.status!, canceled ? null : (error as Error).message, now());
        });
      } catch (inner) {
        deps.log.error(`Report ${report.id}: could not record its end`, inner);
      }
    } finally {
      active.delete(report.id);
      if (progress.status !== 'RUNNING') emit(report.id, { type: 'done', progress: { ...progress } });
    }
  }

  return {
    /** Starts (or resumes) a final report in the background; answers at once. */
    start(reportId: number): void {
      if (stopped || active.has(reportId)) return;
      const report = reports.byId(reportId);
      if (!report || report.is_blueprint) return;
      const controller = new AbortController();
      // Every call in flight listens to it (one per concurrent row): many listeners, no leak.
      setMaxListeners(0, controller.signal);
      const progress: Progress = {
        report_id: reportId, status: 'RUNNING', total_cells: 0, done_cells: 0, running_cells: 0, errors: 0, cost: 0, input_tokens: 0, output_tokens: 0,
      };
      const entry = { controller, progress, done: Promise.resolve(), computing: new Set<string>() };
      active.set(reportId, entry);
      entry.done = run(report, controller, progress);
    },

    /** A running run's cells being computed or committed now, as `row_index:column_id` (empty otherwise). */
    computing(reportId: number): ReadonlySet<string> {
      return active.get(reportId)?.computing ?? NOTHING;
    },

    /** Every run a crash or a shutdown left RUNNING. */
    resumeAll(): number[] {
      const ids = reports.running().map((r) => r.id);
      for (const id of ids) this.start(id);
      return ids;
    },

    async cancel(reportId: number): Promise<boolean> {
      const entry = active.get(reportId);
      if (!entry) return false;
      entry.controller.abort(new Stop('cancel'));
      await entry.done;
      return true;
    },

    progress: (reportId: number): Progress | null => {
      const entry = active.get(reportId);
      return entry ? { ...entry.progress } : null;
    },

    subscribe(reportId: number, listener: (event: RunEvent) => void): () => void {
      const set = listeners.get(reportId) ?? listeners.set(reportId, new Set()).get(reportId)!;
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0) listeners.delete(reportId);
      };
    },

    /** Stops every run without marking it: the next start resumes them. Ends live event streams. */
    async stop(): Promise<void> {
      stopped = true;
      const entries = [...active.values()];
      for (const entry of entries) entry.controller.abort(new Stop('shutdown'));
      await Promise.all(entries.map((e) => e.done));
      for (const id of [...listeners.keys()]) emit(id, { type: 'shutdown' });
    },
  };
}

export type Runner = ReturnType<typeof createRunner>;

/** A provider's message as one log line: its body may hold newlines (an HTML error page). */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').slice(0, 500);
