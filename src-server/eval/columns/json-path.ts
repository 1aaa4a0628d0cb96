import { z } from 'zod';
import { asJson, column } from '../cell-values';
import { columnType } from '../column-type';
import { ColumnRef, withAliases } from '../config-fields';
import { parseJsonPath, queryJsonPath } from '../json-path';

export const JsonPathExpression = z.string().min(1).max(1000).superRefine((p, ctx) => {
  try {
    parseJsonPath(p);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
  }
});

export const jsonPath = columnType({
  id: 'JSON_PATH',
  description: 'Picks values out of a column’s JSON with a JSONPath expression.',
  config: withAliases(
    { path: 'json_path' },
    z.object({ source: ColumnRef, json_path: JsonPathExpression, return_first_match: z.boolean().default(true) }),
  ),
  reads: (c) => [c.source],
  run(c, ctx) {
    const found = queryJsonPath(asJson(column(ctx.row, c.source), `Column '${c.source}'`), c.json_path);
    return { value: c.return_first_match ? found[0] ?? null : found };
  },
});
