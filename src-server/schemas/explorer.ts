import { z } from 'zod';
import { QueryInt, RequestStatus, Tag, Timestamp } from './common';

/** A query-string timestamp: epoch seconds when numeric, else ISO 8601. */
export const QueryTimestamp = z
  .string()
  .transform((v) => (/^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v))
  .pipe(Timestamp);

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
  limit: QueryInt(z.number().int().min(1).max(200)).default(50),
  cursor: z.string().max(200).optional(),
});
export type RequestListQuery = z.output<typeof RequestListQuery>;

export const RequestStatsQuery = z.object({
  start_time: QueryTimestamp.optional(),
  end_time: QueryTimestamp.optional(),
  provider: z.string().optional(),
  model: z.string().optional(),
});

export const IdParam = z.object({ id: QueryInt(z.number().int().min(1)) });
