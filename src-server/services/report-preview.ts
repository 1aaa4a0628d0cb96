import { setMaxListeners } from 'node:events';
import { AppError } from '../errors';
import { boundCellValue } from '../eval/cell-output';
import type { CellContext } from '../eval/column-type';
import { computeCell, prepareColumns } from '../eval/runner';
import type { Logger } from '../logger';
import type { PreviewBody } from '../schemas/report-preview';
import type { CellStatus } from '../store/report-cells';
import type { ReportStore } from '../store/reports';
import { checkReferences } from './report-columns';
import { roundCost } from './report-views';
import type { ReportDatasets, ReportService } from './reports';

/** PROMPTLEDGER_PREVIEW_TIMEOUT_MS's default: a preview answers a person who is waiting. */
export const DEFAULT_PREVIEW_TIMEOUT_MS = 60_000;

export interface ReportPreviewDeps {
  reports: ReportStore;
  pipelines: Pick<ReportService, 'requireReport'>;
  datasets: ReportDatasets;
  /** The same tools a run's cells use: one sandbox, one LLM gateway, one outbound gate. */
  tools: Pick<CellContext, 'llm' | 'prompts' | 'sandbox' | 'fetch'>;
  /** Rows computed at once (the run's PROMPTLEDGER_EVAL_CONCURRENCY). */
  concurrency: number;
  timeoutMs: number;
  now: () => number;
  log: Pick<Logger, 'error'>;
}

type PreviewCell = { value: unknown; status: CellStatus; error?: string; cost?: number; latency_ms?: number };

/**
 * `POST /api/public/v2/reports/{id}/preview`: the pipeline's columns on its first rows, computed
 * by the runner's own `computeCell` (same sandbox, egress, limits and LLM logging as a run) and
 * answered, not stored: no report, no cells. See docs/decisions.md, "Pipeline preview".
 */
export function createReportPreview(deps: ReportPreviewDeps) {
  const { reports, datasets, tools, now } = deps;

  function chooseVersion(workspaceId: number, groupId: number, versionNumber: number | null | undefined) {
    if (versionNumber === -1) return datasets.draftVersion(workspaceId, groupId);
    return datasets.resolveVersion(workspaceId, groupId, versionNumber ?? null);
  }

  return async function preview(workspaceId: number, pipelineId: number, body: PreviewBody) {
    const pipeline = deps.pipelines.requireReport(workspaceId, pipelineId);
    if (!pipeline.is_blueprint) throw new AppError('forbidden', 'Only a pipeline can be previewed; this report is already a run.');
    const version = chooseVersion(workspaceId, pipeline.dataset_group_id, body.dataset_version_number);
    const evaluated = reports.columns(pipeline.id).filter((c) => c.column_type !== 'DATASET');
    const all = [
      ...version.column_names.map((name) => ({ name, column_type: 'DATASET', configuration: {}, is_part_of_score: false })),
      ...evaluated.map(({ name, column_type, configuration, is_part_of_score }) => ({ name, column_type, configuration, is_part_of_score })),
    ];
    // As a run would: another dataset version may lack a column the pipeline reads.
    checkReferences(all, () => ['body', 'dataset_version_number']);
    const columns = prepareColumns(evaluated);
    const rows = datasets.rows(workspaceId, version.id, 0, body.rows);

    const started = now();
    const controller = new AbortController();
    // Every call in flight listens to it (one per concurrent row): many listeners, no leak.
    setMaxListeners(0, controller.signal);
    const limit = `The preview's time limit (${Math.round(deps.timeoutMs / 1000)} s) was reached.`;
    const timer = setTimeout(() => controller.abort(new Error(limit)), deps.timeoutMs);
    const totals = { cost: 0, input_tokens: 0, output_tokens: 0 };

    async function previewRow(row: { row_index: number; data: Record<string, unknown> }) {
      const values: Record<string, unknown> = { ...row.data };
      const statuses = new Map<string, CellStatus>();
      const cells: Record<string, PreviewCell> = {};
      for (const name of version.column_names) cells[name] = { value: row.data[name] ?? null, status: 'PASSED' };
      for (const column of columns) {
        const name = column.row.name;
        if (controller.signal.aborted) {
          cells[name] = { value: null, status: 'SKIPPED', error: `Not computed: ${limit}` };
          continue;
        }
        const at = now();
        const ctx = { ...tools, row: { ...values }, workspaceId, reportId: pipeline.id, columnName: name, signal: controller.signal, purpose: 'preview' as const };
        const cell = await computeCell(column, statuses, ctx, deps.log, row.row_index);
        if (!cell) {
          cells[name] = { value: null, status: 'ERROR', error: limit, latency_ms: now() - at };
          statuses.set(name, 'ERROR');
          continue;
        }
        // Bounded as a run stores it, so later columns read what they would read in a run.
        const stored = boundCellValue(cell.value);
        values[name] = stored.value;
        statuses.set(name, cell.status);
        totals.cost += cell.cost;
        totals.input_tokens += cell.inputTokens;
        totals.output_tokens += cell.outputTokens;
        cells[name] = { value: stored.value, status: cell.status, ...(cell.error ? { error: cell.error } : {}), cost: roundCost(cell.cost), latency_ms: now() - at };
      }
      return { row_index: row.row_index, cells };
    }

    try {
      const answers: Array<Awaited<ReturnType<typeof previewRow>>> = [];
      let next = 0;
      const worker = async () => {
        while (next < rows.length) {
          const i = next++;
          answers[i] = await previewRow(rows[i]);
        }
      };
      await Promise.all(Array.from({ length: Math.max(1, Math.min(deps.concurrency, rows.length)) }, worker));
      // Its LLM calls are in the request log before the answer, as a finished run's are.
      await tools.llm.settled();
      return {
        success: true as const,
        dataset: { dataset_id: version.id, version_number: version.version_number, row_count: version.row_count },
        columns: all.map((c) => ({ name: c.name, column_type: c.column_type })),
        rows: answers,
        cost: roundCost(totals.cost),
        input_tokens: totals.input_tokens,
        output_tokens: totals.output_tokens,
        duration_ms: now() - started,
        timed_out: controller.signal.aborted,
      };
    } finally {
      clearTimeout(timer);
    }
  };
}

export type ReportPreview = ReturnType<typeof createReportPreview>;
