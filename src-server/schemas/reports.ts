import { z } from 'zod';
import { columnTypeIds } from '../eval/columns/index';
import { IsoDateTime, PageFields, PositiveId, QueryInt, Success } from './common';

const Name = z.string().min(1).max(255);

/** `PATCH /api/public/v2/reports/{id}`: names follow create's rule (1–255; not required unique). */
export const RenameReportBody = z.object({ name: Name });

/** One evaluation column as `POST /reports` and `POST /report-columns` take it. */
export const ColumnInput = z.object({
  column_type: z.enum(columnTypeIds as [string, ...string[]]),
  name: Name,
  configuration: z.record(z.string(), z.unknown()).default({}),
  position: z.number().int().min(0).nullish(),
  is_part_of_score: z.boolean().default(false),
});
export type ColumnInput = z.output<typeof ColumnInput>;

/** `POST /reports`: the seed's body plus optional columns. */
export const CreateReportBody = z.object({
  dataset_group_id: PositiveId,
  name: Name.nullish(),
  folder_id: PositiveId.nullish(),
  dataset_version_number: z
    .number()
    .int()
    .nullish()
    .refine((v) => v !== -1, { message: 'The draft (-1) cannot be evaluated; use a published version or null for the latest' }),
  columns: z.array(ColumnInput).max(200).optional(),
});
export type CreateReportBody = z.output<typeof CreateReportBody>;

export const CreateColumnBody = ColumnInput.extend({ report_id: PositiveId });
export type CreateColumnBody = z.output<typeof CreateColumnBody>;

export const PatchColumnBody = z.object({
  name: Name.optional(),
  configuration: z.record(z.string(), z.unknown()).optional(),
  position: z.number().int().min(0).optional(),
  is_part_of_score: z.boolean().optional(),
});
export type PatchColumnBody = z.output<typeof PatchColumnBody>;

/** `POST /reports/{id}/run`: the seed's body; `concurrency` lowers the rows in flight for this run. */
export const RunReportBody = z.object({
  name: Name,
  dataset_id: PositiveId.nullish(),
  refresh_dataset: z.boolean().nullish(),
  concurrency: z.number().int().min(1).max(1000).nullish(),
  /** A published version number of the pipeline's group; -1 (the draft) only with `allow_draft`. */
  dataset_version_number: z.number().int().min(-1).max(2_147_483_647).refine((n) => n !== 0, 'Version numbers are -1 (the draft) or 1 and up').nullish(),
  allow_draft: z.boolean().nullish(),
  /** A final report of this pipeline to run again with exactly its manifest. */
  reproduce_report_id: PositiveId.nullish(),
});
export type RunReportBody = z.output<typeof RunReportBody>;

export const ScoreCardBody = z.object({ column_names: z.array(Name).max(200) });

export const SetCellBody = z.object({
  row_index: z.number().int().min(0),
  column_name: Name,
  value: z.union([z.string().max(1_000_000), z.number(), z.boolean(), z.null()]),
});
export type SetCellBody = z.output<typeof SetCellBody>;

export const ReportIdParam = z.object({ id: QueryInt(z.number().int().min(1)) });
export const ReportIdPathParam = z.object({ report_id: QueryInt(z.number().int().min(1)) });

export const RowsQuery = z.object({
  page: QueryInt(z.number().int().min(1)).default(1),
  per_page: QueryInt(z.number().int().min(1).max(100)).default(30),
});

// Responses

export const RunStatus = z.enum(['RUNNING', 'COMPLETED', 'FAILED', 'CANCELED']);
export const CellStatus = z.enum(['PASSED', 'FAILED', 'ERROR', 'QUEUED', 'RUNNING', 'SKIPPED']);

export const ReportColumn = z.object({
  id: z.number().int(),
  report_id: z.number().int(),
  column_type: z.string(),
  name: z.string(),
  configuration: z.record(z.string(), z.unknown()),
  position: z.number().int(),
  is_part_of_score: z.boolean(),
  /** The columns its configuration reads, by name (the UI flags one the dataset version lacks). */
  reads: z.array(z.string()),
});

export const CreatedReport = z.object({ success: Success, report_id: z.number().int(), report_columns: z.array(ReportColumn) });
export const ReportColumnResponse = z.object({ success: Success, report_column: ReportColumn });

/** `status` is null for a pipeline (a blueprint never runs); cell counts are of its run's cells. */
export const ReportDetail = z.object({
  success: Success,
  report: z.object({
    id: z.number().int(),
    name: z.string(),
    is_blueprint: z.boolean(),
    parent_report_id: z.number().int().nullable(),
    dataset_group_id: z.number().int(),
    dataset_id: z.number().int(),
    folder_id: z.number().int().nullable(),
    score: z.number().nullable(),
    score_card: z.array(z.string()).nullable(),
    created_at: IsoDateTime,
    updated_at: IsoDateTime,
    /** A run's manifest (API.md §6), fixed when it started; absent on pipelines, null on runs older than manifests. */
    manifest: z.looseObject({
      dataset: z.object({
        dataset_group_id: z.number().int(), dataset_id: z.number().int(), version_number: z.number().int(), row_count: z.number().int(), sha256: z.string(),
      }),
      columns: z.array(z.looseObject({
        name: z.string(), column_type: z.string(), position: z.number().int(), configuration: z.record(z.string(), z.unknown()),
        resolved: z.record(z.string(), z.unknown()),
      })),
      concurrency: z.number().int().nullable(),
      app_version: z.string(),
      started_at: IsoDateTime,
      /** The run this one repeats (`reproduce_report_id`); absent on other runs. */
      reproduces_report_id: z.number().int().optional(),
    }).nullable().optional(),
  }),
  status: RunStatus.nullable(),
  error: z.string().nullable(),
  stats: z.object({
    status_counts: z.object({ QUEUED: z.number().int(), RUNNING: z.number().int(), COMPLETED: z.number().int(), FAILED: z.number().int() }),
    cost: z.number(),
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    duration_ms: z.number().nullable(),
  }),
  report_columns: z.array(ReportColumn),
});

export const ScoreUnit = z.enum(['percent', 'mean', 'mixed']).nullable().meta({
  description: 'How the score reads: percent (0–100, % passing; every score column boolean), mean (the numeric columns’ own scale), mixed (an average of both); null without a score',
});

/** A run's status is set when it starts (only a pipeline's is null). */
export const RunSummary = z.object({
  id: z.number().int(),
  name: z.string(),
  status: RunStatus,
  score: z.number().nullable(),
  score_unit: ScoreUnit,
  dataset_id: z.number().int(),
  created_at: IsoDateTime,
  finished_at: IsoDateTime.nullable(),
});

export const PipelineSummary = z.object({
  id: z.number().int(),
  name: z.string(),
  folder_id: z.number().int().nullable(),
  dataset_group_id: z.number().int(),
  dataset_id: z.number().int(),
  column_count: z.number().int(),
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
  runs: z.array(RunSummary),
});
export const PipelinePage = PageFields.extend({ items: z.array(PipelineSummary) });

export const RunStarted = z.object({ success: Success, report_id: z.number().int() });
export const RunCanceled = RunStarted.extend({ status: RunStatus.nullable() });

/** `boolean` columns score the % of true cells, `number` columns their mean. */
export const Score = z.object({
  overall_score: z.number().nullable(),
  unit: ScoreUnit,
  score_type: z.enum(['single_column', 'multi_column', 'none']),
  details: z.object({
    columns: z.array(z.object({
      column_name: z.string(),
      type: z.enum(['boolean', 'number']),
      score: z.number(),
      counted: z.number().int(),
      passed: z.number().int().optional(),
    })),
    column_names: z.array(z.string()),
  }),
});
export const ScoreResponse = z.object({ success: Success, score: Score });
/** `score` is null until the report has run. */
export const ScoreCardResponse = z.object({ success: Success, score_card: z.array(z.string()).nullable(), score: Score.nullable() });

export const SetCellResponse = z.object({
  success: Success,
  cell: z.object({ row_index: z.number().int(), column_name: z.string(), value: z.union([z.string(), z.number(), z.boolean(), z.null()]), status: CellStatus }),
});

export const ReportCell = z.object({
  value: z.unknown(),
  status: CellStatus,
  error: z.string().optional(),
  cost: z.number().optional(),
  latency_ms: z.number().nullable().optional(),
});

export const ReportRows = PageFields.extend({
  columns: z.array(z.object({ id: z.number().int(), name: z.string(), column_type: z.string() })),
  rows: z.array(z.object({ row_index: z.number().int(), cells: z.record(z.string(), ReportCell) })),
});

/** The `data` of each `progress` and `done` event on `GET /api/public/v2/reports/{id}/events`. */
export const RunProgress = z.object({
  report_id: z.number().int(),
  status: RunStatus.nullable(),
  total_cells: z.number().int(),
  done_cells: z.number().int(),
  running_cells: z.number().int(),
  errors: z.number().int(),
  cost: z.number(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
});

export const CompareParams = z.object({
  baseline_id: QueryInt(z.number().int().min(1)),
  candidate_id: QueryInt(z.number().int().min(1)),
});

export const CompareQuery = z.object({
  verdict: z.enum(['regressed', 'improved', 'changed']).optional(),
  page: QueryInt(z.number().int().min(1)).default(1),
  per_page: QueryInt(z.number().int().min(1).max(100)).default(30),
});

const ComparedRun = z.object({ id: z.number().int(), name: z.string(), score: z.number().nullable(), score_unit: ScoreUnit });
const Verdict = z.enum(['improved', 'regressed', 'changed', 'same']);

/** `GET /reports/{baseline_id}/compare/{candidate_id}` (API.md §6). */
export const CompareAnswer = PageFields.pick({ page: true, per_page: true, total: true, pages: true }).extend({
  success: Success,
  baseline: ComparedRun,
  candidate: ComparedRun,
  columns: z.array(z.object({
    name: z.string(),
    column_type: z.string(),
    kind: z.enum(['boolean', 'number', 'text']),
    baseline_mean: z.number().nullable(),
    candidate_mean: z.number().nullable(),
    delta: z.number().nullable(),
    improved: z.number().int(),
    regressed: z.number().int(),
    unchanged: z.number().int(),
    p_value: z.number().optional(),
    ci95: z.tuple([z.number(), z.number()]).nullable().optional(),
    summary: z.string().meta({ description: 'Plain words: a real difference, or within noise' }),
  })),
  score_delta: z.number().nullable(),
  score_ci95: z.tuple([z.number(), z.number()]).optional(),
  summary: z.string(),
  rows: z.array(z.object({
    row_index: z.number().int(),
    cells: z.record(z.string(), z.object({ baseline: z.unknown(), candidate: z.unknown(), verdict: Verdict })),
  })),
});
