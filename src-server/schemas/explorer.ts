import { z } from 'zod';
import { IsoDateTime, PositiveId, QueryInt, RequestStatus, Success, Tag, Timestamp } from './common';
import { PriceSource } from './prices';

/** A query-string timestamp: epoch seconds when numeric, else ISO 8601. */
export const QueryTimestamp = z
  .string()
  .transform((v) => (/^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v))
  .pipe(Timestamp);

const QueryBool = z.enum(['true', 'false']).transform((v) => v === 'true');

const OneOrMany = <T extends z.ZodType>(item: T) =>
  z.union([item, z.array(item)]).transform((v) => (Array.isArray(v) ? v : [v]) as z.output<T>[]);

/** `GET /api/public/v2/requests`. `metadata[key]=value` pairs are gathered by the route. */
export const RequestListQuery = z.object({
  q: z.string().max(1000).optional(),
  tags: OneOrMany(Tag).optional(),
  metadata: z.record(z.string().max(1024), z.string()).optional(),
  provider: z.string().optional(),
  model: z.string().optional(),
  prompt_id: QueryInt(z.number().int().min(1)).optional(),
  prompt_version_number: QueryInt(z.number().int().gt(0)).optional(),
  status: RequestStatus.optional(),
  score_min: QueryInt(z.number().int().min(0).max(100)).optional(),
  score_max: QueryInt(z.number().int().min(0).max(100)).optional(),
  start_time: QueryTimestamp.optional(),
  end_time: QueryTimestamp.optional(),
  group_id: QueryInt(z.number().int().min(1)).optional(),
  has_note: QueryBool.optional(),
  scored: QueryBool.optional(),
  score_name: z.string().min(1).max(255).optional(),
  /** The column the list is ordered by; ties go by id in the same direction (see docs/decisions.md). */
  sort: z.enum(['time', 'latency', 'cost', 'tokens', 'score']).default('time'),
  order: z.enum(['desc', 'asc']).default('desc'),
  limit: QueryInt(z.number().int().min(1).max(200)).default(50),
  cursor: z.string().max(200).optional(),
});
export type RequestListQuery = z.output<typeof RequestListQuery>;

/** The explorer's filters alone: what an export streams and a bulk delete removes. */
export const ExplorerFilters = RequestListQuery.omit({ limit: true, cursor: true });
export type ExplorerFilters = z.output<typeof ExplorerFilters>;

export const EXPORT_FORMATS = ['jsonl', 'csv'] as const;

/** `GET /api/public/v2/requests/export`; `bom=true` starts a CSV with a UTF-8 byte order mark
 * (docs/decisions.md: Excel reads a CSV without one in the system's legacy code page). */
export const RequestExportQuery = ExplorerFilters.extend({
  format: z.enum(EXPORT_FORMATS).default('jsonl'),
  bom: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
}).superRefine((q, ctx) => {
  if (q.bom && q.format !== 'csv') ctx.addIssue({ code: 'custom', path: ['bom'], message: 'A byte order mark applies to CSV only' });
});

/** Ids per `POST …/requests/delete` with `ids`; larger sets go by `filters`. */
export const MAX_DELETE_IDS = 10_000;

/** Filters written as in the explorer's query string; JSON numbers are read as their text. */
const FiltersInBody = z.preprocess(
  (v) => (v !== null && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, typeof x === 'number' ? String(x) : x]))
    : v),
  ExplorerFilters.strict(),
);

/** `POST /api/public/v2/requests/delete`: exactly one of `ids` or `filters`. */
export const DeleteRequestsBody = z.object({
  ids: z.array(PositiveId).min(1).max(MAX_DELETE_IDS).optional(),
  filters: FiltersInBody.optional(),
}).superRefine((b, ctx) => {
  if ((b.ids === undefined) === (b.filters === undefined)) {
    ctx.addIssue({ code: 'custom', path: ['ids'], message: 'Give exactly one of ids or filters' });
  }
});

export const RequestStatsQuery = z.object({
  start_time: QueryTimestamp.optional(),
  end_time: QueryTimestamp.optional(),
  provider: z.string().optional(),
  model: z.string().optional(),
});

export const IdParam = z.object({ id: QueryInt(z.number().int().min(1)) });

// Responses

/** A registry version as a logged request shows it (or the request's own input when unlinked). */
export const LinkedVersion = z.object({
  prompt_template: z.unknown(),
  commit_message: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
});

/** API.md "A logged request": the log body's own field names. */
export const RequestItem = z.object({
  id: z.number().int(),
  provider: z.string(),
  model: z.string(),
  input: z.unknown(),
  output: z.unknown(),
  request_start_time: IsoDateTime,
  request_end_time: IsoDateTime,
  latency_ms: z.number(),
  parameters: z.record(z.string(), z.unknown()),
  tags: z.array(z.string()),
  metadata: z.record(z.string(), z.string()),
  prompt_id: z.number().int().nullable(),
  prompt_name: z.string().nullable(),
  prompt_version_number: z.number().int().nullable(),
  prompt_input_variables: z.record(z.string(), z.unknown()),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  price: z.number(),
  function_name: z.string(),
  status: RequestStatus,
  error_type: z.string().nullable(),
  error_message: z.string().nullable(),
  api_type: z.string().nullable(),
  group_id: z.number().int().nullable(),
  /** The `default` score; 0 when none was given, as the seed specifies (see `scored`). */
  score: z.number(),
  /** Whether any score was given explicitly (log body, tracking endpoints, review). */
  scored: z.boolean(),
  scores: z.record(z.string(), z.number()),
  /** A reviewer's note (`PATCH …/requests/{id}`). */
  note: z.string().nullable(),
  price_source: PriceSource,
  /** The span this request belongs to (OTLP, `/spans-bulk`, or `span_id` on the log body). */
  span_id: z.string().nullable(),
  trace_id: z.string().nullable(),
  prompt_version: LinkedVersion,
  created_at: IsoDateTime,
});

/** Keyset pages: pass `next_cursor` back as `cursor`; `total_estimate` is exact when small. */
export const RequestPage = z.object({
  items: z.array(RequestItem),
  next_cursor: z.string().nullable(),
  total_estimate: z.number().int(),
});

const Totals = z.object({
  requests: z.number().int(),
  errors: z.number().int(),
  cost: z.number(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  latency_ms: z.object({ avg: z.number(), p50: z.number(), p95: z.number(), p99: z.number() }),
});

export const RequestStats = z.object({
  totals: Totals,
  by_day: z.array(Totals.extend({ day: z.string() })),
  by_model: z.array(Totals.extend({ provider: z.string(), model: z.string() })),
});

export const Deleted = z.object({ success: Success, deleted: z.number().int() });
