import { AppError, invalidField, notFound } from '../errors';
import { isoDate } from '../iso-date';
import type { ColumnTypeId } from '../eval/column-type';
import type { Runner } from '../eval/runner';
import { runScoreUnit } from '../eval/score';
import type { CreateColumnBody, CreateReportBody, PatchColumnBody } from '../schemas/reports';
import type { ReportCellStore } from '../store/report-cells';
import type { Report, ReportColumn, ReportStore } from '../store/reports';
import type { Writer } from '../store/writer';
import { pageFields } from './page-fields';
import { checkReferences, checkUniqueNames, columnView, parseConfiguration, readsOf, type ColumnDraft } from './report-columns';
import { reportView } from './report-views';

/** What reports need of datasets (services/datasets.ts provides it). */
export interface ReportDatasets {
  /** 404 unknown group, 400 no published version, 422 for -1. */
  resolveVersion(workspaceId: number, groupId: number, versionNumber: number | null): { id: number; dataset_group_id: number; version_number: number; column_names: string[]; row_count: number };
  /** 404 when unknown or in another workspace. */
  version(workspaceId: number, datasetId: number): { id: number; dataset_group_id: number; version_number: number; column_names: string[]; row_count: number };
  rows(workspaceId: number, datasetId: number, from: number, limit: number): Array<{ row_index: number; data: Record<string, unknown> }>;
  /** The group's draft (-1); 404 when the group has none. */
  draftVersion(workspaceId: number, groupId: number): { id: number; dataset_group_id: number; version_number: number; column_names: string[]; row_count: number };
}

export interface ReportServiceDeps {
  reports: ReportStore;
  cells: ReportCellStore;
  writer: Writer;
  datasets: ReportDatasets;
  folderExists(workspaceId: number, folderId: number): boolean;
  /** Late-bound: the runner needs the run service, which needs this one. */
  runner: () => Runner;
  now: () => number;
}

const datasetColumn = (name: string): ColumnDraft => ({ name, column_type: 'DATASET', configuration: {}, is_part_of_score: false });

export function createReportService(deps: ReportServiceDeps) {
  const { reports, writer, datasets, now } = deps;

  function requireReport(workspaceId: number, id: number): Report {
    const report = reports.get(workspaceId, id);
    if (!report) throw notFound('Report');
    return report;
  }

  function requirePipeline(workspaceId: number, id: number): Report {
    const report = requireReport(workspaceId, id);
    if (!report.is_blueprint) throw new AppError('forbidden', 'This report is a finished run; its columns are fixed. Edit its pipeline and run it again.');
    return report;
  }

  function uniqueName(workspaceId: number): string {
    const stamp = isoDate(now()).slice(0, 19).replace('T', ' ');
    let name = `Evaluation ${stamp}`;
    for (let n = 2; reports.nameTaken(workspaceId, name); n++) name = `Evaluation ${stamp} (${n})`;
    return name;
  }

  /** Stores the column list in order (positions 0..n-1), replacing what the report had. */
  function saveColumns(reportId: number, existing: ReportColumn[], columns: ColumnDraft[], at: number): void {
    const kept = new Set(columns.map((c) => c.id).filter((id) => id !== undefined));
    for (const row of existing) if (!kept.has(row.id)) reports.deleteColumn(row.id);
    // Two passes so a rename or a move never collides with the UNIQUE(report_id, name) mid-way.
    columns.forEach((c, i) => {
      if (c.id !== undefined) reports.updateColumn(c.id, { position: i, name: `\u0000${c.id}`, configuration: c.configuration, is_part_of_score: c.is_part_of_score });
    });
    columns.forEach((c, i) => {
      const column = { position: i, name: c.name, column_type: c.column_type, configuration: c.configuration, is_part_of_score: c.is_part_of_score };
      if (c.id === undefined) c.id = reports.insertColumn(reportId, column, at);
      else reports.updateColumn(c.id, column);
    });
    reports.touch(reportId, at);
  }

  /** `GET /reports/{id}`: a run also carries its manifest. */
  function detail(workspaceId: number, id: number) {
    const report = requireReport(workspaceId, id);
    const view = reportView(report, reports.columns(id), deps.cells, deps.runner(), datasets, now());
    return report.is_blueprint ? view : { ...view, report: { ...view.report, manifest: reports.manifest(id) } };
  }

  const drafts = (rows: ReportColumn[]): ColumnDraft[] =>
    rows.map(({ id, name, column_type, configuration, is_part_of_score }) => ({ id, name, column_type, configuration, is_part_of_score }));

  /** Where a new column goes: `position` counts every column, dataset ones included, which stay leftmost. */
  function insertAt(columns: ColumnDraft[], position: number | null | undefined, loc: Array<string | number>): number {
    const datasetCount = columns.filter((c) => c.column_type === 'DATASET').length;
    if (position === null || position === undefined || position >= columns.length) return columns.length;
    if (position < datasetCount) throw invalidField(loc, `Positions 0–${datasetCount - 1} hold the dataset's columns, which stay leftmost`);
    return position;
  }

  return {
    requireReport,

    /** `POST /reports`: a pipeline over a dataset version, with its dataset columns first. */
    async create(workspaceId: number, body: CreateReportBody) {
      const version = datasets.resolveVersion(workspaceId, body.dataset_group_id, body.dataset_version_number ?? null);
      if (body.folder_id != null && !deps.folderExists(workspaceId, body.folder_id)) throw notFound('Folder');
      const columns: ColumnDraft[] = version.column_names.map(datasetColumn);
      const sourceIndex = new Map<ColumnDraft, number>();
      (body.columns ?? []).forEach((input, i) => {
        const loc = ['body', 'columns', i];
        const draft: ColumnDraft = {
          name: input.name,
          column_type: input.column_type,
          configuration: parseConfiguration(input.column_type as ColumnTypeId, input.configuration, [...loc, 'configuration']),
          is_part_of_score: input.is_part_of_score,
        };
        sourceIndex.set(draft, i);
        columns.splice(insertAt(columns, input.position, [...loc, 'position']), 0, draft);
      });
      const locOf = (index: number) => {
        const i = sourceIndex.get(columns[index]);
        return i === undefined ? ['body', 'dataset_group_id'] : ['body', 'columns', i, 'configuration'];
      };
      checkUniqueNames(columns, locOf);
      checkReferences(columns, locOf);
      const name = body.name ?? uniqueName(workspaceId);
      const at = now();
      const id = await writer.write(() => {
        const reportId = reports.insert({
          workspace_id: workspaceId, name, folder_id: body.folder_id ?? null, is_blueprint: true, parent_report_id: null,
          dataset_group_id: version.dataset_group_id, dataset_id: version.id, status: null, concurrency: null, score_card: null,
          started_at: null, created_at: at,
        });
        saveColumns(reportId, [], columns, at);
        return reportId;
      });
      return { success: true, report_id: id, report_columns: reports.columns(id).map(columnView) };
    },

    async addColumn(workspaceId: number, body: CreateColumnBody) {
      const report = requirePipeline(workspaceId, body.report_id);
      const columns = drafts(reports.columns(report.id));
      const draft: ColumnDraft = {
        name: body.name,
        column_type: body.column_type,
        configuration: parseConfiguration(body.column_type as ColumnTypeId, body.configuration, ['body', 'configuration']),
        is_part_of_score: body.is_part_of_score,
      };
      columns.splice(insertAt(columns, body.position, ['body', 'position']), 0, draft);
      const locOf = (index: number) => (columns[index] === draft ? ['body', 'configuration'] : ['body', 'position']);
      checkUniqueNames(columns, locOf);
      checkReferences(columns, locOf);
      const existing = reports.columns(report.id);
      await writer.write(() => saveColumns(report.id, existing, columns, now()));
      return { success: true, report_column: columnView(reports.columns(report.id).find((c) => c.id === draft.id)!) };
    },

    async updateColumn(workspaceId: number, columnId: number, body: PatchColumnBody) {
      const row = reports.column(workspaceId, columnId);
      if (!row) throw notFound('Report column');
      requirePipeline(workspaceId, row.report_id);
      if (row.column_type === 'DATASET') throw new AppError('forbidden', "Dataset columns come from the dataset and cannot be edited.");
      const existing = reports.columns(row.report_id);
      const columns = drafts(existing);
      const index = columns.findIndex((c) => c.id === columnId);
      const [column] = columns.splice(index, 1);
      if (body.name !== undefined) column.name = body.name;
      if (body.is_part_of_score !== undefined) column.is_part_of_score = body.is_part_of_score;
      if (body.configuration !== undefined) column.configuration = parseConfiguration(column.column_type as ColumnTypeId, body.configuration, ['body', 'configuration']);
      columns.splice(body.position === undefined ? index : insertAt(columns, body.position, ['body', 'position']), 0, column);
      const locOf = (i: number) => (columns[i] === column ? ['body', 'configuration'] : ['body', 'name']);
      checkUniqueNames(columns, () => ['body', 'name']);
      checkReferences(columns, locOf);
      await writer.write(() => saveColumns(row.report_id, existing, columns, now()));
      return { success: true, report_column: columnView(reports.columns(row.report_id).find((c) => c.id === columnId)!) };
    },

    async deleteColumn(workspaceId: number, columnId: number) {
      const row = reports.column(workspaceId, columnId);
      if (!row) throw notFound('Report column');
      requirePipeline(workspaceId, row.report_id);
      if (row.column_type === 'DATASET') throw new AppError('forbidden', 'Dataset columns come from the dataset and cannot be deleted.');
      const existing = reports.columns(row.report_id);
      const columns = drafts(existing).filter((c) => c.id !== columnId);
      const dependant = columns.find((c) => readsOf(c).includes(row.name));
      if (dependant) throw new AppError('conflict', `Column '${dependant.name}' reads '${row.name}'; change or delete it first.`);
      await writer.write(() => saveColumns(row.report_id, existing, columns, now()));
    },

    get: detail,

    /** `GET /api/public/v2/evaluations`: pipelines, newest first, each with its runs. */
    list(workspaceId: number, page: number, perPage: number) {
      const total = reports.pipelineCount(workspaceId);
      const items = reports.pipelines(workspaceId, perPage, (page - 1) * perPage).map((p) => ({
        id: p.id,
        name: p.name,
        folder_id: p.folder_id,
        dataset_group_id: p.dataset_group_id,
        dataset_id: p.dataset_id,
        column_count: reports.columns(p.id).filter((c) => c.column_type !== 'DATASET').length,
        created_at: p.created_at,
        updated_at: p.updated_at,
        runs: reports.runsOf(p.id).map((r) => ({
          id: r.id,
          name: r.name,
          status: r.status,
          score: r.score,
          score_unit: runScoreUnit(r),
          dataset_id: r.dataset_id,
          created_at: r.created_at,
          finished_at: r.finished_at,
        })),
      }));
      return { items, ...pageFields(page, perPage, total) };
    },

    /** `PATCH /api/public/v2/reports/{id}`: renames a pipeline or a run. */
    async rename(workspaceId: number, id: number, body: { name: string }) {
      const report = requireReport(workspaceId, id);
      await writer.write(() => reports.rename(report.id, body.name, now()));
      return detail(workspaceId, id);
    },

    /** `DELETE /reports/{id}`: archived (gone from lists, 404 afterwards); a running run is canceled first. */
    async archive(workspaceId: number, id: number) {
      const report = requireReport(workspaceId, id);
      await deps.runner().cancel(report.id);
      await writer.write(() => reports.archive(report.id, now()));
    },
  };
}

export type ReportService = ReturnType<typeof createReportService>;
