import { z } from 'zod';
import { IsoDateTime, PageQuery, SpanId, Success, TraceId } from './common';
import { QueryTimestamp } from './explorer';

export const SpanStatus = z.enum(['OK', 'ERROR', 'UNSET']);

/** `GET /api/public/v2/traces`. */
export const TraceListQuery = PageQuery.extend({
  start_time: QueryTimestamp.optional(),
  end_time: QueryTimestamp.optional(),
  name: z.string().max(1000).optional(),
  status: SpanStatus.optional(),
  q: z.string().min(1).max(1000).optional(),
});
export type TraceListQuery = z.output<typeof TraceListQuery>;

/** An unknown id and a malformed one answer the same 404, as for any id not in the workspace. */
export const TraceIdParam = z.object({ trace_id: z.string().max(64) });

const NANOS = /^\d{1,19}$/;
/** Zod still runs an object's refinements after a field failed, so they must not trust the field. */
const nanosOrNull = (v: unknown) => (typeof v === 'string' && NANOS.test(v) ? BigInt(v) : null);

/** Epoch nanoseconds as the PromptLayer JS SDK writes them: a decimal string (a number is accepted). */
const Nanos = z
  .union([z.string(), z.number().int().min(0)])
  .transform((v) => String(v))
  .refine((v) => nanosOrNull(v) !== null && nanosOrNull(v)! < 2n ** 63n, 'Expected epoch nanoseconds as a decimal string')
  .transform((v) => BigInt(v).toString());

const Attributes = z.record(z.string(), z.unknown());

/** One span of `POST /spans-bulk`, as the PromptLayer JS SDK's exporter sends it. */
export const BulkSpan = z
  .looseObject({
    name: z.string().max(10_000),
    context: z.looseObject({ trace_id: TraceId, span_id: SpanId, trace_state: z.string().nullish() }),
    kind: z.string().max(64).nullish(),
    parent_id: SpanId.nullish(),
    start_time: Nanos,
    end_time: Nanos,
    status: z.looseObject({ status_code: z.string().max(64).nullish(), description: z.string().nullish() }).nullish(),
    attributes: Attributes.nullish(),
    events: z.array(z.looseObject({ name: z.string(), timestamp: Nanos.nullish(), attributes: Attributes.nullish() })).nullish(),
    links: z.array(z.unknown()).nullish(),
    resource: z.looseObject({ attributes: Attributes.nullish(), schema_url: z.string().nullish() }).nullish(),
  })
  .refine((s) => (nanosOrNull(s.end_time) ?? 0n) >= (nanosOrNull(s.start_time) ?? 0n), { message: 'end_time is before start_time', path: ['end_time'] });
export type BulkSpan = z.output<typeof BulkSpan>;

export const SpansBulkBody = z.object({ spans: z.array(BulkSpan).max(10_000) });

// Responses

/** One trace in `GET /api/public/v2/traces`, from the rollup kept at insert time. */
export const TraceSummary = z.object({
  trace_id: z.string(),
  name: z.string(),
  start_time: IsoDateTime,
  end_time: IsoDateTime,
  duration_ms: z.number(),
  status: SpanStatus,
  span_count: z.number().int(),
  error_count: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  price: z.number(),
  request_count: z.number().int(),
});
export const TraceList = z.object({
  traces: z.array(TraceSummary),
  page: z.number().int(),
  per_page: z.number().int(),
  total: z.number().int(),
  pages: z.number().int(),
});

export const TraceSpan = z.object({
  span_id: z.string(),
  parent_span_id: z.string().nullable(),
  name: z.string(),
  kind: z.string(),
  start_time: IsoDateTime,
  end_time: IsoDateTime,
  start_time_unix_nano: z.string().meta({ description: 'Exact start in nanoseconds since the epoch, as a decimal string' }),
  end_time_unix_nano: z.string(),
  duration_ms: z.number(),
  status: z.object({ code: SpanStatus, message: z.string() }),
  attributes: z.record(z.string(), z.unknown()),
  events: z.array(z.unknown()),
  resource: z.record(z.string(), z.unknown()),
  request_id: z.number().int().nullable(),
});
export const TraceDetail = z.object({ trace_id: z.string(), spans: z.array(TraceSpan) });

export const SpansBulkAnswer = z.object({
  success: Success,
  spans: z.array(z.object({ span_id: z.string(), trace_id: z.string() })),
});
