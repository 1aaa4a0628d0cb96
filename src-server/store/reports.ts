import { isoDate } from '../iso-date';
import type { Db } from './db';

export type RunStatus = 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELED';

interface ReportRow {
  id: number;
  workspace_id: number;
  name: string;
  folder_id: number | null;
  is_blueprint: number;
  parent_report_id: number | null;
  dataset_group_id: number;
  dataset_id: number;
  status: RunStatus | null;
  error: string | null;
  concurrency: number | null;
  score: number | null;
  score_type: string | null;
  /** JSON of the score's details. */
  score_details: string | null;
  /** JSON array of column names, or null for the default score. */
  score_card: string | null;
  started_at: number | null;
  finished_at: number | null;
  created_at: number;
  updated_at: number;
  archived_at: number | null;
}

interface ReportColumnRow {
  id: number;
  report_id: number;
  position: number;
  name: string;
  column_type: string;
  /** JSON of the validated configuration. */
  configuration: string;
  is_part_of_score: number;
  created_at: number;
}

/** A pipeline (`is_blueprint`) or one of its runs. */
export interface Report {
  id: number;
  workspace_id: number;
  name: string;
  folder_id: number | null;
  is_blueprint: boolean;
  parent_report_id: number | null;
  dataset_group_id: number;
  dataset_id: number;
  status: RunStatus | null;
  error: string | null;
  concurrency: number | null;
  score: number | null;
  score_type: string | null;
  score_details: unknown;
  /** Column names the score is computed from, or null for the default score. */
  score_card: string[] | null;
  started_at: string | null;
  finished_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ReportColumn {
  id: number;
  report_id: number;
  position: number;
  name: string;
  column_type: string;
  /** The configuration as its type's schema validated it. */
  configuration: Record<string, unknown>;
  is_part_of_score: boolean;
  created_at: string;
}

export interface NewReport {
  workspace_id: number;
  name: string;
  folder_id: number | null;
  is_blueprint: boolean;
  parent_report_id: number | null;
  dataset_group_id: number;
  dataset_id: number;
  status: RunStatus | null;
  concurrency: number | null;
  score_card: string[] | null;
  started_at: number | null;
  created_at: number;
}

export type NewColumn = Pick<ReportColumn, 'position' | 'name' | 'column_type' | 'configuration' | 'is_part_of_score'>;

const parsed = <T>(json: string | null): T | null => (json === null ? null : (JSON.parse(json) as T));
const isoOrNull = (ms: number | null) => (ms === null ? null : isoDate(ms));

function decodeReport(r: ReportRow): Report {
  return {
    id: r.id,
    workspace_id: r.workspace_id,
    name: r.name,
    folder_id: r.folder_id,
    is_blueprint: r.is_blueprint === 1,
    parent_report_id: r.parent_report_id,
    dataset_group_id: r.dataset_group_id,
    dataset_id: r.dataset_id,
    status: r.status,
    error: r.error,
    concurrency: r.concurrency,
    score: r.score,
    score_type: r.score_type,
    score_details: parsed(r.score_details),
    score_card: parsed<string[]>(r.score_card),
    started_at: isoOrNull(r.started_at),
    finished_at: isoOrNull(r.finished_at),
    created_at: isoDate(r.created_at),
    updated_at: isoDate(r.updated_at),
  };
}

function decodeColumn(c: ReportColumnRow): ReportColumn {
  return {
    id: c.id,
    report_id: c.report_id,
    position: c.position,
    name: c.name,
    column_type: c.column_type,
    configuration: JSON.parse(c.configuration) as Record<string, unknown>,
    is_part_of_score: c.is_part_of_score === 1,
    created_at: isoDate(c.created_at),
  };
}

const encodeColumn = (c: NewColumn) => ({
  position: c.position,
  name: c.name,
  column_type: c.column_type,
  configuration: JSON.stringify(c.configuration),
  is_part_of_score: c.is_part_of_score ? 1 : 0,
});

export function createReportStore(db: Db) {
  const s = {
    insert: db.prepare(`INSERT INTO reports (workspace_id, name, folder_id, is_blueprint, parent_report_id, dataset_group_id, dataset_id,
      status, concurrency, score_card, started_at, created_at, updated_at)
      VALUES (@workspace_id, @name, @folder_id, @is_blueprint, @parent_report_id, @dataset_group_id, @dataset_id,
      @status, @concurrency, @score_card, @started_at, @created_at, @created_at)`),
    get: db.prepare<[number, number], ReportRow>('SELECT * FROM reports WHERE id = ? AND workspace_id = ? AND archived_at IS NULL'),
    byId: db.prepare<[number], ReportRow>('SELECT * FROM reports WHERE id = ?'),
    nameTaken: db.prepare<[number, string], { one: number }>('SELECT 1 AS one FROM reports WHERE workspace_id = ? AND name = ? AND archived_at IS NULL'),
    pipelines: db.prepare<[number, number, number], ReportRow>(
      'SELECT * FROM reports WHERE workspace_id = ? AND is_blueprint = 1 AND archived_at IS NULL ORDER BY id DESC LIMIT ? OFFSET ?'),
    pipelineCount: db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM reports WHERE workspace_id = ? AND is_blueprint = 1 AND archived_at IS NULL'),
    runsOf: db.prepare<[number], ReportRow>('SELECT * FROM reports WHERE parent_report_id = ? AND archived_at IS NULL ORDER BY id DESC'),
    rename: db.prepare<[{ name: string; now: number; id: number }]>('UPDATE reports SET name = @name, updated_at = @now WHERE id = @id'),
    archive: db.prepare<[{ now: number; id: number }]>('UPDATE reports SET archived_at = @now, updated_at = @now WHERE id = @id'),
    running: db.prepare<[], ReportRow>("SELECT * FROM reports WHERE status = 'RUNNING' ORDER BY id"),
    start: db.prepare<[{ now: number; id: number }]>("UPDATE reports SET status = 'RUNNING', started_at = coalesce(started_at, @now), updated_at = @now WHERE id = @id"),
    finish: db.prepare<[{ status: string; error: string | null; now: number; id: number }]>(
      'UPDATE reports SET status = @status, error = @error, finished_at = @now, updated_at = @now WHERE id = @id'),
    setScore: db.prepare<[number | null, string, string, number, number]>('UPDATE reports SET score = ?, score_type = ?, score_details = ?, updated_at = ? WHERE id = ?'),
    setScoreCard: db.prepare<[string | null, number, number]>('UPDATE reports SET score_card = ?, updated_at = ? WHERE id = ?'),
    touch: db.prepare<[number, number]>('UPDATE reports SET updated_at = ? WHERE id = ?'),
    columns: db.prepare<[number], ReportColumnRow>('SELECT * FROM report_columns WHERE report_id = ? ORDER BY position, id'),
    column: db.prepare<[number, number], ReportColumnRow>(`SELECT c.* FROM report_columns c JOIN reports r ON r.id = c.report_id
      WHERE c.id = ? AND r.workspace_id = ? AND r.archived_at IS NULL`),
    insertColumn: db.prepare(`INSERT INTO report_columns (report_id, position, name, column_type, configuration, is_part_of_score, created_at)
      VALUES (@report_id, @position, @name, @column_type, @configuration, @is_part_of_score, @created_at)`),
    updateColumn: db.prepare('UPDATE report_columns SET position = @position, name = @name, configuration = @configuration, is_part_of_score = @is_part_of_score WHERE id = @id'),
    deleteColumn: db.prepare<[number]>('DELETE FROM report_columns WHERE id = ?'),
    setManifest: db.prepare<[string, number]>('UPDATE reports SET manifest = ? WHERE id = ? AND manifest IS NULL'),
    manifest: db.prepare<[number], { manifest: string | null }>('SELECT manifest FROM reports WHERE id = ?'),
  };

  const one = (row: ReportRow | undefined) => (row === undefined ? undefined : decodeReport(row));
  return {
    insert(report: NewReport): number {
      const row = { ...report, is_blueprint: report.is_blueprint ? 1 : 0, score_card: report.score_card === null ? null : JSON.stringify(report.score_card) };
      return Number(s.insert.run(row).lastInsertRowid);
    },
    get: (workspaceId: number, id: number) => one(s.get.get(id, workspaceId)),
    /** Any workspace, archived included: the runner owns the run whoever asked for it. */
    byId: (id: number) => one(s.byId.get(id)),
    nameTaken: (workspaceId: number, name: string) => s.nameTaken.get(workspaceId, name) !== undefined,
    pipelines: (workspaceId: number, limit: number, offset: number) => s.pipelines.all(workspaceId, limit, offset).map(decodeReport),
    pipelineCount: (workspaceId: number) => s.pipelineCount.get(workspaceId)!.n,
    runsOf: (pipelineId: number) => s.runsOf.all(pipelineId).map(decodeReport),
    archive: (id: number, now: number) => void s.archive.run({ now, id }),
    rename: (id: number, name: string, now: number) => void s.rename.run({ name, now, id }),
    running: () => s.running.all().map(decodeReport),
    start: (id: number, now: number) => void s.start.run({ now, id }),
    finish: (id: number, status: RunStatus, error: string | null, now: number) => void s.finish.run({ status, error, now, id }),
    setScore: (id: number, score: number | null, type: string, details: unknown, now: number) =>
      void s.setScore.run(score, type, JSON.stringify(details), now, id),
    setScoreCard: (id: number, columnNames: string[] | null, now: number) =>
      void s.setScoreCard.run(columnNames === null ? null : JSON.stringify(columnNames), now, id),
    touch: (id: number, now: number) => void s.touch.run(now, id),

    columns: (reportId: number) => s.columns.all(reportId).map(decodeColumn),
    column: (workspaceId: number, columnId: number) => {
      const row = s.column.get(columnId, workspaceId);
      return row === undefined ? undefined : decodeColumn(row);
    },
    insertColumn(reportId: number, column: NewColumn, now: number): number {
      return Number(s.insertColumn.run({ ...encodeColumn(column), report_id: reportId, created_at: now }).lastInsertRowid);
    },
    updateColumn: (id: number, column: Omit<NewColumn, 'column_type'>) => {
      const { position, name, configuration, is_part_of_score } = encodeColumn({ ...column, column_type: '' });
      s.updateColumn.run({ id, position, name, configuration, is_part_of_score });
    },
    deleteColumn: (id: number) => void s.deleteColumn.run(id),

    /** Stores a run's manifest once; a manifest is never rewritten. */
    setManifest: (id: number, manifest: unknown) => void s.setManifest.run(JSON.stringify(manifest), id),
    /** The run's manifest (decoded), or null for a pipeline or a run older than manifests. */
    manifest(id: number): unknown {
      const row = s.manifest.get(id);
      return row?.manifest ? (JSON.parse(row.manifest) as unknown) : null;
    },
  };
}

export type ReportStore = ReturnType<typeof createReportStore>;
