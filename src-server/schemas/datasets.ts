import { z } from 'zod';
import { IsoDateTime, Metadata, PageFields, PageQuery, PositiveId, QueryInt, RequestStatus, Success, Tag, Timestamp } from './common';
import { RequestListQuery } from './explorer';

const GroupName = z.string().trim().min(1).max(255);
const FolderId = PositiveId.nullish();
const GroupId = PositiveId;

export const CreateDatasetGroupBody = z.object({ name: GroupName, folder_id: FolderId });
export const RenameDatasetGroupBody = z.object({ name: GroupName });

export const DatasetGroupListQuery = PageQuery.extend({
  folder_id: QueryInt(z.number().int().min(1)).optional(),
  name: z.string().max(255).optional(),
});

export const DatasetListQuery = PageQuery.extend({
  dataset_group_id: QueryInt(z.number().int().min(1)).optional(),
  include_draft: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
});

export const DatasetRowsQuery = PageQuery.extend({ q: z.string().max(1000).optional() });

export const ExportQuery = z.object({ format: z.enum(['csv', 'jsonl']).default('csv') });

const ColumnName = z.string().min(1).max(255);

/**
 * One row: any JSON object whose keys are column names. Not `z.record`: it builds its output with
 * plain assignment, which drops a column named `__proto__` (issue 10, item 13); the parsed object
 * (JSON.parse keeps such a key as an own property) is validated and passed on as it is.
 */
const Row = z.custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), 'Expected an object').superRefine((row, ctx) => {
  for (const key of Object.keys(row)) {
    const problem = ColumnName.safeParse(key);
    if (!problem.success) ctx.addIssue({ code: 'custom', path: [key], message: `Invalid column name: ${problem.error.issues[0].message}` });
  }
});

export const ReplaceRowsBody = z.object({
  rows: z.array(Row).max(100_000),
  /** Optional column order (and columns no row fills yet); keys the rows add come after. */
  column_names: z.array(ColumnName).max(1000).optional(),
});

export const FileName = z
  .string()
  .min(1)
  .max(255)
  .regex(/\.(csv|json|jsonl)$/i, 'Expected a file name ending in .csv, .json or .jsonl');

/** The fields besides the file, validated once the upload has streamed in. */
export const FromFileFields = z.object({
  dataset_group_id: GroupId,
  file_name: FileName,
});

/** Documents the whole body in OpenAPI; the route streams it rather than parse it with this. */
export const FromFileBody = FromFileFields.extend({
  file_content_base64: z.string().meta({ description: 'The file, base64-encoded (UTF-8 text, BOM allowed)' }),
});

/** The explorer's filters (GET /api/public/v2/requests), as JSON body fields. */
const RequestFilterFields = {
  q: RequestListQuery.shape.q,
  tags: z.array(Tag).optional(),
  metadata: Metadata.optional(),
  provider: RequestListQuery.shape.provider,
  model: RequestListQuery.shape.model,
  prompt_id: PositiveId.optional(),
  prompt_version_number: z.number().int().gt(0).optional(),
  status: RequestStatus.optional(),
  score_min: z.number().int().min(0).max(100).optional(),
  score_max: z.number().int().min(0).max(100).optional(),
  start_time: Timestamp.optional(),
  end_time: Timestamp.optional(),
  group_id: PositiveId.optional(),
};

export const MAX_ROWS_FROM_REQUESTS = 100_000;

export const FromRequestsBody = z.object({
  dataset_group_id: GroupId,
  request_log_ids: z.array(PositiveId).min(1).max(MAX_ROWS_FROM_REQUESTS).optional(),
  ...RequestFilterFields,
  variables_to_parse: z.array(ColumnName).max(1000).optional(),
  limit: z.number().int().min(1).max(MAX_ROWS_FROM_REQUESTS).default(1000),
});
export type FromRequestsBody = z.output<typeof FromRequestsBody>;

export const CreateDraftBody = z.object({ dataset_group_id: GroupId, source_dataset_id: PositiveId.nullish() });
export const AddRequestLogBody = z.object({ dataset_group_id: GroupId, request_log_id: PositiveId });
export const SaveDraftBody = z.object({ dataset_group_id: GroupId });

// Responses

const Group = z.object({
  id: z.number().int(),
  name: z.string(),
  workspace_id: z.number().int(),
  folder_id: z.number().int().nullable(),
  created_at: IsoDateTime,
});

/** One version of a group: >= 1 published (immutable), -1 the draft. */
export const DatasetVersion = z.object({
  id: z.number().int(),
  dataset_group_id: z.number().int(),
  version_number: z.number().int(),
  column_names: z.array(z.string()),
  row_count: z.number().int(),
  created_at: IsoDateTime,
});

export const DatasetGroup = Group.extend({
  version_count: z.number().int(),
  latest_version: DatasetVersion.nullable(),
  draft_dataset_id: z.number().int().nullable(),
});

export const CreatedDatasetGroup = z.object({
  success: Success,
  dataset_group: Group,
  dataset: z.object({ id: z.number().int(), version_number: z.number().int() }),
});
export const DatasetGroupPage = PageFields.extend({ items: z.array(DatasetGroup) });
export const DatasetGroupResponse = z.object({ success: Success, dataset_group: DatasetGroup });
export const DatasetVersionPage = PageFields.extend({ datasets: z.array(DatasetVersion) });
export const DatasetVersionResponse = z.object({ success: Success, dataset: DatasetVersion });
export const DatasetRows = PageFields.extend({
  columns: z.array(z.string()),
  rows: z.array(z.object({ row_index: z.number().int(), data: z.record(z.string(), z.unknown()) })),
});
export const PublishedDataset = z.object({ success: Success, dataset_id: z.number().int(), version_number: z.number().int() });
export const PublishedFromRequests = PublishedDataset.extend({ row_count: z.number().int() });
export const DraftResponse = z.object({ success: Success, draft_dataset_id: z.number().int() });
