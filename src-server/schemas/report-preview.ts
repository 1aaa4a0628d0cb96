import { z } from 'zod';
import { Success } from './common';
import { ReportCell } from './reports';

/** Rows a preview may compute: enough to check the columns, few enough to answer in seconds. */
export const PREVIEW_MAX_ROWS = 20;

/** `POST /api/public/v2/reports/{id}/preview` (docs/decisions.md, "Pipeline preview"). */
export const PreviewBody = z.object({
  rows: z.number().int().min(1).max(PREVIEW_MAX_ROWS).default(3),
  /** A published version number of the pipeline's group, or -1 for the draft; default the latest published. */
  dataset_version_number: z.number().int().min(-1).max(2_147_483_647).refine((n) => n !== 0, 'Version numbers are -1 (the draft) or 1 and up').nullish(),
});
export type PreviewBody = z.output<typeof PreviewBody>;

export const PreviewAnswer = z.object({
  success: Success,
  dataset: z.object({ dataset_id: z.number().int(), version_number: z.number().int(), row_count: z.number().int() }),
  columns: z.array(z.object({ name: z.string(), column_type: z.string() })),
  rows: z.array(z.object({ row_index: z.number().int(), cells: z.record(z.string(), ReportCell) })),
  cost: z.number(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  duration_ms: z.number().int(),
  /** The time limit stopped it: cells still computing then are ERROR cells saying so. */
  timed_out: z.boolean(),
});
