import type { Runner } from '../eval/runner';
import type { ReportCellStore } from '../store/report-cells';
import type { Report, ReportColumn } from '../store/reports';
import { columnView } from './report-columns';

/** Costs are fractions of a cent; rounding at 1e-10 USD drops float noise, never a real amount. */
export const roundCost = (usd: number) => Math.round(usd * 1e10) / 1e10;

/**
 * `GET /reports/{id}`. Cell counts: QUEUED not yet computed, RUNNING computing now, COMPLETED
 * computed (PASSED, FAILED or SKIPPED), FAILED ended in ERROR.
 */
export function reportView(
  report: Report,
  columns: ReportColumn[],
  cells: ReportCellStore,
  runner: Runner,
  datasets: { version(workspaceId: number, datasetId: number): { row_count: number } },
  now: number,
) {
  const evaluated = columns.filter((c) => c.column_type !== 'DATASET').length;
  const live = runner.progress(report.id);
  // While a run is live its counters are exact and free; the table scan is for finished runs.
  const totals = live
    ? { cells: live.done_cells, passed: live.done_cells - live.errors, failed: 0, skipped: 0, errors: live.errors, cost: live.cost, input_tokens: live.input_tokens, output_tokens: live.output_tokens }
    : cells.totals(report.id);
  const rowCount = datasets.version(report.workspace_id, report.dataset_id).row_count;
  const running = live?.running_cells ?? 0;
  const finalReport = !report.is_blueprint;
  const end = report.finished_at !== null ? Date.parse(report.finished_at) : report.status === 'RUNNING' ? now : null;
  return {
    success: true,
    report: {
      id: report.id,
      name: report.name,
      is_blueprint: report.is_blueprint,
      parent_report_id: report.parent_report_id,
      dataset_group_id: report.dataset_group_id,
      dataset_id: report.dataset_id,
      folder_id: report.folder_id,
      score: report.score,
      score_card: report.score_card,
      created_at: report.created_at,
      updated_at: report.updated_at,
    },
    status: report.status,
    error: report.error,
    stats: {
      status_counts: {
        QUEUED: finalReport ? Math.max(0, rowCount * evaluated - totals.cells - running) : 0,
        RUNNING: running,
        COMPLETED: totals.passed + totals.failed + totals.skipped,
        FAILED: totals.errors,
      },
      cost: roundCost(totals.cost),
      input_tokens: totals.input_tokens,
      output_tokens: totals.output_tokens,
      duration_ms: report.started_at !== null && end !== null ? end - Date.parse(report.started_at) : null,
    },
    report_columns: columns.map(columnView),
  };
}
