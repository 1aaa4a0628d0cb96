import { AppError, invalidField, notFound } from '../errors';
import { humanValueProblem, AWAITING_INPUT } from '../eval/columns/human';
import type { Runner, RunEvent } from '../eval/runner';
import { combineScores, scoreColumn, scoreColumns, type ColumnScore } from '../eval/score';
import type { RunReportBody, SetCellBody } from '../schemas/reports';
import type { ReportCellStore } from '../store/report-cells';
import type { Report, ReportStore } from '../store/reports';
import type { Writer } from '../store/writer';
import { pageFields } from './page-fields';
import { compareRuns, type CompareQuery } from './report-compare';
import { checkReferences } from './report-columns';
import { roundCost } from './report-views';
import type { ReportDatasets, ReportService } from './reports';
import { pinColumn, redact, versionSha256, type ManifestTools, type RunManifest } from './run-manifest';

export interface ReportRunDeps {
  reports: ReportStore;
  cells: ReportCellStore;
  writer: Writer;
  datasets: ReportDatasets;
  /** Late-bound: the runner is built after this service, since it calls `scoreOf`. */
  runner: () => Runner;
  pipelines: ReportService;
  /** Resolves labels, providers and versions for run manifests. */
  manifest: ManifestTools;
  now: () => number;
}

export function createReportRunService(deps: ReportRunDeps) {
  const { reports, cells, writer, datasets, now } = deps;

  function requireFinal(workspaceId: number, id: number): Report {
    const report = deps.pipelines.requireReport(workspaceId, id);
    if (report.is_blueprint) throw new AppError('bad_request', 'This report is a pipeline; run it first and ask its run.');
    return report;
  }

  /** The dataset version a run uses: `dataset_version_number`, `dataset_id`, else the latest published. */
  function chooseVersion(workspaceId: number, pipeline: Report, body: RunReportBody) {
    if (body.dataset_version_number != null && body.dataset_id != null) {
      throw invalidField(['body', 'dataset_version_number'], 'Give dataset_version_number or dataset_id, not both');
    }
    if (body.dataset_version_number === -1) {
      if (!body.allow_draft) throw invalidField(['body', 'dataset_version_number'], 'The draft (-1) can change while it runs; pass allow_draft: true to run on it anyway');
      return datasets.draftVersion(workspaceId, pipeline.dataset_group_id);
    }
    if (body.dataset_version_number != null) return datasets.resolveVersion(workspaceId, pipeline.dataset_group_id, body.dataset_version_number);
    if (body.dataset_id != null) {
      const version = datasets.version(workspaceId, body.dataset_id);
      if (version.dataset_group_id !== pipeline.dataset_group_id) {
        throw invalidField(['body', 'dataset_id'], `Dataset ${body.dataset_id} belongs to another dataset group than this pipeline's`);
      }
      if (version.version_number < 1) throw invalidField(['body', 'dataset_id'], 'The draft cannot be evaluated; save it as a version first');
      return version;
    }
    return datasets.resolveVersion(workspaceId, pipeline.dataset_group_id, null);
  }

  /** `reproduce_report_id`: a final report of this pipeline; it fixes the dataset and the columns. */
  function requireReproducible(workspaceId: number, pipeline: Report, body: RunReportBody): Report {
    const clash = (['dataset_id', 'dataset_version_number', 'refresh_dataset'] as const).find((k) => body[k] != null && body[k] !== false);
    if (clash) throw invalidField(['body', clash], 'A reproduced run uses the dataset version of the report it reproduces; leave this out');
    const source = reports.get(workspaceId, body.reproduce_report_id!);
    if (!source) throw notFound(`Report ${body.reproduce_report_id}`);
    if (source.is_blueprint || source.parent_report_id !== pipeline.id) {
      throw invalidField(['body', 'reproduce_report_id'], `Report ${source.id} is not a run of pipeline ${pipeline.id}`);
    }
    return source;
  }

  function computeScore(report: Report) {
    const chosen = scoreColumns(reports.columns(report.id), report.score_card);
    const scores = chosen.map((c) => scoreColumn(c.name, cells.columnValues(report.id, c.id))).filter((s): s is ColumnScore => s !== null);
    return combineScores(chosen.map((c) => c.name), scores);
  }

  return {
    /** Called by the runner when a run ends: stores the score with the report. */
    /** Computes a report's score from its cells now; the work returned stores it (inside a write). */
    scoreOf(report: Report): () => void {
      const fresh = reports.byId(report.id) ?? report;
      const score = computeScore(fresh);
      return () => reports.setScore(report.id, score.overall_score, score.score_type, score.details, now());
    },

    async finalize(report: Report) {
      await writer.write(this.scoreOf(report));
    },

    /**
     * `POST /reports/{id}/run`: a final report pinned to a dataset version, with a copy of the
     * columns in which labels are resolved to versions, and its manifest (API.md §6).
     */
    async run(workspaceId: number, pipelineId: number, body: RunReportBody) {
      const pipeline = deps.pipelines.requireReport(workspaceId, pipelineId);
      if (!pipeline.is_blueprint) throw new AppError('forbidden', 'Only a pipeline can be run; this report is already a run.');
      const source = body.reproduce_report_id != null ? requireReproducible(workspaceId, pipeline, body) : null;
      const version = source ? datasets.version(workspaceId, source.dataset_id) : chooseVersion(workspaceId, pipeline, body);
      const copied = source ? reports.columns(source.id) : reports.columns(pipeline.id).filter((c) => c.column_type !== 'DATASET');
      const evaluated = copied.filter((c) => c.column_type !== 'DATASET').map((c) => {
        const pinned = pinColumn(deps.manifest, workspaceId, { name: c.name, column_type: c.column_type, configuration: c.configuration });
        return { name: c.name, column_type: c.column_type, configuration: pinned.configuration, resolved: pinned.resolved, is_part_of_score: c.is_part_of_score };
      });
      const columns = [
        ...version.column_names.map((name) => ({ name, column_type: 'DATASET', configuration: {}, resolved: {}, is_part_of_score: false })),
        ...evaluated,
      ];
      // Another version may lack a column the pipeline reads.
      checkReferences(columns, () => ['body', body.dataset_version_number != null ? 'dataset_version_number' : 'dataset_id']);
      const concurrency = body.concurrency ?? source?.concurrency ?? null;
      const at = now();
      const manifest: RunManifest = {
        dataset: {
          dataset_group_id: version.dataset_group_id, dataset_id: version.id, version_number: version.version_number, row_count: version.row_count,
          sha256: versionSha256((...a) => datasets.rows(...a), workspaceId, version.id),
        },
        columns: columns.map((c, position) => ({
          name: c.name, column_type: c.column_type, position, configuration: redact(c.configuration) as Record<string, unknown>, resolved: c.resolved,
        })),
        concurrency,
        app_version: deps.manifest.appVersion,
        started_at: new Date(at).toISOString(),
        ...(source ? { reproduces_report_id: source.id } : {}),
      };
      // The run starts at this commit, not after its sync: the durable write of its first host
      // (egress.ts, before the first call leaves) then shares one sync with the insert, where
      // they were two in a row (~10–35 ms before the first call, docs/performance.md, evalc50 wave
      // 2 seventh session). The answer still waits for a sync that covers the insert: nothing
      // acknowledged is lost, and a power cut before it loses the run with every host and cell.
      const id = await writer.write(() => {
        const reportId = reports.insert({
          workspace_id: workspaceId, name: body.name, folder_id: pipeline.folder_id, is_blueprint: false, parent_report_id: pipeline.id,
          dataset_group_id: pipeline.dataset_group_id, dataset_id: version.id, status: 'RUNNING', concurrency,
          score_card: source ? source.score_card : pipeline.score_card, started_at: at, created_at: at,
        });
        columns.forEach((c, position) =>
          reports.insertColumn(reportId, { ...c, position }, at),
        );
        reports.setManifest(reportId, manifest);
        return reportId;
      }, { durable: false });
      deps.runner().start(id);
      await writer.synced();
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
          value: body.value, error: body.value === null ? AWAITING_INPUT : null,
          cost: 0, input_tokens: 0, output_tokens: 0, latency_ms: prior?.latency_ms ?? 0,
        }),
      );
      if (report.status !== 'RUNNING') await this.finalize(report);
      return { success: true, cell: { row_index: body.row_index, column_name: column.name, value: body.value, status } };
    },

    /** `GET /reports/{baseline_id}/compare/{candidate_id}` (API.md §6). */
    compare(workspaceId: number, baselineId: number, candidateId: number, query: CompareQuery) {
      return compareRuns({
        requireFinal(ws, id, loc) {
          const report = deps.pipelines.requireReport(ws, id);
          if (report.is_blueprint) throw invalidField(loc, `Report ${id} is a pipeline; compare two of its runs`);
          return report;
        },
        columns: (reportId) => reports.columns(reportId),
        cells,
        datasets,
      }, workspaceId, baselineId, candidateId, query);
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
      const computing = report.status === 'RUNNING' && !report.is_blueprint ? deps.runner().computing(id) : null;
      const running = { value: null, status: 'RUNNING' };
      return {
        columns: columns.map((c) => ({ id: c.id, name: c.name, column_type: c.column_type })),
        rows: rows.map((row) => ({
          row_index: row.row_index,
          cells: Object.fromEntries(
            columns.map((c) => {
              if (c.column_type === 'DATASET') return [c.name, { value: row.data[c.name] ?? null, status: 'PASSED' }];
              const cell = stored.get(`${row.row_index}:${c.id}`);
              if (!cell) return [c.name, computing?.has(`${row.row_index}:${c.id}`) ? running : missing];
              return [c.name, {
                value: cell.value,
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
