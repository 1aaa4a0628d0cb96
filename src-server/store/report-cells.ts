import type { Db } from './db';

export type CellStatus = 'PASSED' | 'FAILED' | 'ERROR' | 'SKIPPED';

interface CellRow {
  report_id: number;
  row_index: number;
  column_id: number;
  status: CellStatus;
  /** JSON text of the value, or null. */
  value: string | null;
  error: string | null;
  cost: number;
  input_tokens: number;
  output_tokens: number;
  latency_ms: number;
}

/** A cell as the store gives and takes it: `value` is the JSON value itself (null when none). */
export type Cell = Omit<CellRow, 'value'> & { value: unknown };

const decode = <T extends { value: string | null }>(row: T): Omit<T, 'value'> & { value: unknown } => ({ ...row, value: row.value === null ? null : JSON.parse(row.value) });

export interface CellTotals {
  cells: number;
  passed: number;
  failed: number;
  errors: number;
  skipped: number;
  cost: number;
  input_tokens: number;
  output_tokens: number;
}

export function createReportCellStore(db: Db) {
  const s = {
    upsert: db.prepare(`INSERT INTO report_cells (report_id, row_index, column_id, status, value, error, cost, input_tokens, output_tokens, latency_ms)
      VALUES (@report_id, @row_index, @column_id, @status, @value, @error, @cost, @input_tokens, @output_tokens, @latency_ms)
      ON CONFLICT (report_id, row_index, column_id) DO UPDATE SET status = excluded.status, value = excluded.value, error = excluded.error,
      cost = excluded.cost, input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens, latency_ms = excluded.latency_ms`),
    range: db.prepare<[number, number, number], CellRow>('SELECT * FROM report_cells WHERE report_id = ? AND row_index >= ? AND row_index < ?'),
    totals: db.prepare<[number], CellTotals>(`SELECT count(*) AS cells,
      coalesce(sum(status = 'PASSED'), 0) AS passed, coalesce(sum(status = 'FAILED'), 0) AS failed,
      coalesce(sum(status = 'ERROR'), 0) AS errors, coalesce(sum(status = 'SKIPPED'), 0) AS skipped,
      coalesce(sum(cost), 0) AS cost, coalesce(sum(input_tokens), 0) AS input_tokens, coalesce(sum(output_tokens), 0) AS output_tokens
      FROM report_cells WHERE report_id = ?`),
    columnValues: db.prepare<[number, number], Pick<CellRow, 'status' | 'value'>>('SELECT status, value FROM report_cells WHERE report_id = ? AND column_id = ?'),
    get: db.prepare<[number, number, number], CellRow>('SELECT * FROM report_cells WHERE report_id = ? AND row_index = ? AND column_id = ?'),
  };
  return {
    /** `json`: the value's JSON text when the caller already made it (the runner bounds cells by it). */
    upsert: (cell: Cell, json: string | null = cell.value === null || cell.value === undefined ? null : JSON.stringify(cell.value)) =>
      void s.upsert.run({ ...cell, value: json }),
    /** Cells of rows [from, to). */
    range: (reportId: number, from: number, to: number): Cell[] => s.range.all(reportId, from, to).map(decode),
    totals: (reportId: number) => s.totals.get(reportId)!,
    /** Streams one column's cells, so scoring a 100,000-row report holds one cell at a time. */
    *columnValues(reportId: number, columnId: number): Generator<Pick<Cell, 'status' | 'value'>> {
      for (const row of s.columnValues.iterate(reportId, columnId)) yield decode(row);
    },
    get(reportId: number, rowIndex: number, columnId: number): Cell | undefined {
      const row = s.get.get(reportId, rowIndex, columnId);
      return row === undefined ? undefined : decode(row);
    },
  };
}

export type ReportCellStore = ReturnType<typeof createReportCellStore>;
