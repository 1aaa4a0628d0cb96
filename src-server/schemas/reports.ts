import { z } from 'zod';
import { columnTypeIds } from '../eval/columns/index';
import { PositiveId, QueryInt } from './common';

const Name = z.string().min(1).max(255);

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

export const CompareParams = z.object({
  baseline_id: QueryInt(z.number().int().min(1)),
  candidate_id: QueryInt(z.number().int().min(1)),
});

export const CompareQuery = z.object({
  verdict: z.enum(['regressed', 'improved', 'changed']).optional(),
  page: QueryInt(z.number().int().min(1)).default(1),
  per_page: QueryInt(z.number().int().min(1).max(100)).default(30),
});
