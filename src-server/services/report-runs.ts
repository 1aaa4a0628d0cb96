import { AppError, invalidField } from '../errors';
import { humanValueProblem, AWAITING_INPUT } from '../eval/columns/human';
import type { Runner, RunEvent } from '../eval/runner';
import { combineScores, scoreColumn, scoreColumns, type ColumnScore } from '../eval/score';
import type { RunReportBody, SetCellBody } from '../schemas/reports';
import type { ReportCellStore } from '../store/report-cells';
import type { Report, ReportStore } from '../store/reports';
import type { Writer } from '../store/writer';
import { pageFields } from './page-fields';
import { checkReferences } from './report-columns';
import { roundCost } from './report-views';
import type { ReportDatasets, ReportService } from './reports';

export interface ReportRunDeps {
  reports: ReportStore;
  cells: ReportCellStore;
  writer: Writer;
  datasets: ReportDatasets;
  /** Late-bound: the runner is built after this service, since it calls `finalize`. */
  runner: () => Runner;
  pipelines: ReportService;
  now: () => number;
}

export function createReportRunService(deps: ReportRunDeps) {
  const { reports, cells, writer, datasets, now } = deps;

  function requireFinal(workspaceId: number, id: number): Report {
    const report = deps.pipelines.requireReport(workspaceId, id);
    if (report.is_blueprint) throw new AppError('bad_request', 'This report is a pipeline; run it first and ask its run.');
    return report;
  }

  function computeScore(report: Report) {
    const chosen = scoreColumns(reports.columns(report.id), report.score_card);
    const scores = chosen.map((c) => scoreColumn(c.name, cells.columnValues(report.id, c.id))).filter((s): s is ColumnScore => s !== null);
    return combineScores(chosen.map((c) => c.name), scores);
  }

  return {
    /** Called by the runner when a run ends: stores the score with the report. */
    async finalize(report: Report) {
      const fresh = reports.byId(report.id) ?? report;
      const score = computeScore(fresh);
      await writer.write(() => reports.setScore(report.id, score.overall_score, score.score_type, score.details, now()));
    },

    /** `POST /reports/{id}/run`: a final report pinned to a dataset version, with a copy of the columns. */
    async run(workspaceId: number, pipelineId: number, body: RunReportBody) {
      const pipeline = deps.pipelines.requireReport(workspaceId, pipelineId);
      if (!pipeline.is_blueprint) throw new AppError('forbidden', 'Only a pipeline can be run; this report is already a run.');
      let version;
      if (body.dataset_id != null) {
        version = datasets.version(workspaceId, body.dataset_id);
        if (version.dataset_group_id !== pipeline.dataset_group_id) {
          throw invalidField(['body', 'dataset_id'], `Dataset ${body.dataset_id} belongs to another dataset group than this pipeline's`);
        }
        if (version.version_number < 1) throw invalidField(['body', 'dataset_id'], 'The draft cannot be evaluated; save it as a version first');
      } else if (body.refresh_dataset) {
        version = datasets.resolveVersion(workspaceId, pipeline.dataset_group_id, null);
      } else {
        version = datasets.version(workspaceId, pipeline.dataset_id);
      }
      const evaluated = reports.columns(pipeline.id).filter((c) => c.column_type !== 'DATASET');
      const columns = [
        ...version.column_names.map((name) => ({ name, column_type: 'DATASET', configuration: {}, is_part_of_score: false })),
        ...evaluated.map(({ name, column_type, configuration, is_part_of_score }) => ({ name, column_type, configuration, is_part_of_score })),
      ];
      // Another version may lack a column the pipeline reads.
      checkReferences(columns, () => ['body', 'dataset_id']);
      const at = now();
      const id = await writer.write(() => {
        const reportId = reports.insert({
          workspace_id: workspaceId, name: body.name, folder_id: pipeline.folder_id, is_blueprint: false, parent_report_id: pipeline.id,
          dataset_group_id: pipeline.dataset_group_id, dataset_id: version.id, status: 'RUNNING', concurrency: body.concurrency ?? null,
          score_card: pipeline.score_card, started_at: at, created_at: at,
        });
        columns.forEach((c, position) =>
          reports.insertColumn(reportId, { ...c, position }, at),
        );
        return reportId;
      });
      deps.runner().start(id);
      return { success: true, report_id: id };
    },

    async cancel(workspaceId: number, id: number) {
      const report = requireFinal(workspaceId, id);
      if (report.status !== 'RUNNING') throw new AppError('conflict', `The run is not running (it is ${report.status}).`);
      const canceled = await deps.runner().cancel(id);
      if (!canceled) await writer.write(() => reports.finish(id, 'CANCELED', null, now()));
      return { success: true, report_id: id, status: reports.byId(id)!.status };
    },

    score(workspaceId: number, id: number) {
      const report = deps.pipelines.requireReport(workspaceId, id);
      if (report.is_blueprint) throw new AppError('bad_request', 'A pipeline has no score; its runs do.');
      return { success: true, score: computeScore(report) };
    },

    async setScoreCard(workspaceId: number, id: number, columnNames: string[]) {
      const report = deps.pipelines.requireReport(workspaceId, id);
      const names = new Set(reports.columns(id).filter((c) => c.column_type !== 'DATASET').map((c) => c.name));
      columnNames.forEach((name, i) => {
        if (!names.has(name)) throw invalidField(['body', 'column_names', i], `No evaluation column named '${name}' in this report`);
      });
      const card = columnNames.length === 0 ? null : columnNames;
      await writer.write(() => reports.setScoreCard(id, card, now()));
      if (report.is_blueprint) return { success: true, score_card: card, score: null };
      const score = computeScore(reports.byId(id)!);
      await writer.write(() => reports.setScore(id, score.overall_score, score.score_type, score.details, now()));
      return { success: true, score_card: card, score };
    },

    /** `PATCH /api/public/v2/reports/{id}/cells`: a person's value for a HUMAN cell. */
    async setCell(workspaceId: number, id: number, body: SetCellBody) {
      const report = requireFinal(workspaceId, id);
      const column = reports.columns(id).find((c) => c.name === body.column_name);
      if (!column) throw invalidField(['body', 'column_name'], `No column named '${body.column_name}' in this report`);
      if (column.column_type !== 'HUMAN') throw invalidField(['body', 'column_name'], `Column '${body.column_name}' is a ${column.column_type} column; only HUMAN cells are entered by hand`);
      const rowCount = datasets.version(workspaceId, report.dataset_id).row_count;
      if (body.row_index >= rowCount) throw invalidField(['body', 'row_index'], `The dataset has ${rowCount} rows (0–${rowCount - 1})`);
      const dataType = (column.configuration as { data_type: 'number' | 'string' | 'boolean' }).data_type;
      const problem = humanValueProblem(dataType, body.value);
      if (problem) throw invalidField(['body', 'value'], `${problem} (column '${column.name}' holds ${dataType} values)`);
      const status = body.value === null ? 'SKIPPED' : body.value === false ? 'FAILED' : 'PASSED';
      const prior = cells.get(id, body.row_index, column.id);
      await writer.write(() =>
        cells.upsert({
          report_id: id, row_index: body.row_index, column_id: column.id, status,
          value: body.value === null ? null : JSON.stringify(body.value), error: body.value === null ? AWAITING_INPUT : null,
          cost: 0, input_tokens: 0, output_tokens: 0, latency_ms: prior?.latency_ms ?? 0,
        }),
      );
      if (report.status !== 'RUNNING') await this.finalize(report);
      return { success: true, cell: { row_index: body.row_index, column_name: column.name, value: body.value, status } };
    },

    /** `GET /api/public/v2/reports/{id}/rows`: a page of rows with every cell. */
    rows(workspaceId: number, id: number, page: number, perPage: number) {
      const report = deps.pipelines.requireReport(workspaceId, id);
      const columns = reports.columns(id);
      const total = datasets.version(workspaceId, report.dataset_id).row_count;
      const from = (page - 1) * perPage;
      const rows = datasets.rows(workspaceId, report.dataset_id, from, perPage);
      const to = rows.length ? rows[rows.length - 1].row_index + 1 : from;
      const stored = new Map<string, ReturnType<ReportCellStore['range']>[number]>();
      for (const cell of cells.range(id, from, to)) stored.set(`${cell.row_index}:${cell.column_id}`, cell);
      const missing = report.is_blueprint || report.status === 'RUNNING'
        ? { value: null, status: 'QUEUED' }
        : { value: null, status: 'SKIPPED', error: `Not computed: the run ended ${report.status}.` };
      return {
        columns: columns.map((c) => ({ id: c.id, name: c.name, column_type: c.column_type })),
        rows: rows.map((row) => ({
          row_index: row.row_index,
          cells: Object.fromEntries(
            columns.map((c) => {
              if (c.column_type === 'DATASET') return [c.name, { value: row.data[c.name] ?? null, status: 'PASSED' }];
              const cell = stored.get(`${row.row_index}:${c.id}`);
              if (!cell) return [c.name, missing];
              return [c.name, {
                value: cell.value === null ? null : JSON.parse(cell.value),
                status: cell.status,
                ...(cell.error ? { error: cell.error } : {}),
                cost: roundCost(cell.cost),
                latency_ms: cell.latency_ms,
              }];
            }),
          ),
        })),
        ...pageFields(page, perPage, total),
      };
    },

    /** Live progress for `GET /api/public/v2/reports/{id}/events`; `null` listener result ends the stream. */
    watch(workspaceId: number, id: number, listener: (event: RunEvent) => void): { initial: RunEvent; stop: () => void } {
      const report = requireFinal(workspaceId, id);
      const runner = deps.runner();
      const live = runner.progress(id);
      const unsubscribe = live ? runner.subscribe(id, listener) : () => {};
      if (live) return { initial: { type: 'progress', progress: live }, stop: unsubscribe };
      const totals = cells.totals(id);
      const evaluated = reports.columns(id).filter((c) => c.column_type !== 'DATASET').length;
      const rowCount = datasets.version(workspaceId, report.dataset_id).row_count;
      return {
        initial: {
          type: 'done',
          progress: {
            report_id: id, status: report.status, total_cells: rowCount * evaluated, done_cells: totals.cells, running_cells: 0,
            errors: totals.errors, cost: totals.cost, input_tokens: totals.input_tokens, output_tokens: totals.output_tokens,
          },
        },
        stop: unsubscribe,
      };
    },
  };
}

export type ReportRunService = ReturnType<typeof createReportRunService>;
