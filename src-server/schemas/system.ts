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
