import { z } from 'zod';

// Responses of the routes that take no input: health, this document, the data folder, column types.

export const Health = z.object({ status: z.literal('ok'), version: z.string() });

/** An OpenAPI 3.1 document (described loosely: it describes itself). */
export const OpenApiDocument = z.looseObject({ openapi: z.string(), info: z.object({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) });

export const SystemInfo = z.object({
  version: z.string(),
  data_dir: z.string(),
  database_file: z.string(),
  database_bytes: z.number().int(),
  wal_bytes: z.number().int(),
});

/** Each type's `configuration` as JSON Schema: the UI derives its column form from it. */
export const ColumnTypeList = z.object({
  column_types: z.array(z.object({ id: z.string(), description: z.string(), config_schema: z.record(z.string(), z.unknown()) })),
});

// Retention (API.md §7 "Storage"): one setting for the whole data file.
export const KEEP_DAYS_MAX = 36_500;
/** 1 MB: below that a budget could not hold the schema itself. */
export const MAX_BYTES_MIN = 1_000_000;
/** 1 PB. */
export const MAX_BYTES_MAX = 1e15;

const keepDays = z.number().int().min(1, 'keep_days must be at least 1 day').max(KEEP_DAYS_MAX, `keep_days must be at most ${KEEP_DAYS_MAX} days`);
const maxBytes = z.number().int().min(MAX_BYTES_MIN, `max_bytes must be at least ${MAX_BYTES_MIN} bytes`).max(MAX_BYTES_MAX, `max_bytes must be at most ${MAX_BYTES_MAX} bytes`);

export const RetentionSetting = z.object({ keep_days: keepDays.nullable(), max_bytes: maxBytes.nullable() });

/** PUT replaces the setting: a key left out is null (that limit off). */
export const RetentionBody = z.object({ keep_days: keepDays.nullable().default(null), max_bytes: maxBytes.nullable().default(null) });

/** The setting to preview, as query parameters; absent or empty means off. */
const queryNumber = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === undefined || value === '' ? null : /^\d+$/.test(String(value)) ? Number(value) : value), schema.nullable());
export const RetentionPreviewQuery = z.object({ keep_days: queryNumber(keepDays), max_bytes: queryNumber(maxBytes) });

export const RetentionPreview = z.object({ requests: z.number().int(), spans: z.number().int() });

export const StorageInfo = z.object({
  db_bytes: z.number().int(),
  wal_bytes: z.number().int(),
  /** Pages inside the file that hold nothing (given back by the next sweep's incremental vacuum). */
  free_bytes: z.number().int(),
  requests: z.number().int(),
  spans: z.number().int(),
  tables: z.array(z.object({ name: z.string(), bytes: z.number().int() })),
  retention: RetentionSetting,
});
