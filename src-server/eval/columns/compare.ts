import { z } from 'zod';
import { asJson, asText, column } from '../cell-values';
import { CellError, columnType } from '../column-type';
import { ColumnRef, sourcePairAlias, withAliases } from '../config-fields';
import { parseJsonPath, queryJsonPath } from '../json-path';

const JsonPath = z.string().min(1).max(1000).superRefine((p, ctx) => {
  try {
    parseJsonPath(p);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
  }
});

const Config = withAliases(
  sourcePairAlias,
  z
    .object({
      sources: z.array(ColumnRef).min(1).max(2),
      target: z.unknown().optional(),
      comparison_type: z.object({ type: z.enum(['STRING', 'JSON']), json_path: JsonPath.nullish() }).default({ type: 'STRING' }),
    })
    .refine((c) => c.sources.length === 2 || c.target !== undefined, { message: 'Give two sources, or one source and a target', path: ['sources'] }),
);

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  }
  return value;
}

export const compare = columnType({
  id: 'COMPARE',
  description: 'True when two columns (or a column and a target) are equal, as text or as JSON.',
  config: Config,
  reads: (c) => c.sources,
  run(c, ctx) {
    const left = column(ctx.row, c.sources[0]);
    const right = c.sources.length === 2 ? column(ctx.row, c.sources[1]) : c.target;
    if (c.comparison_type.type === 'STRING') return { value: asText(left).trim() === asText(right).trim() };
    let a = asJson(left, `Column '${c.sources[0]}'`);
    let b = asJson(right, c.sources.length === 2 ? `Column '${c.sources[1]}'` : 'The target');
    if (c.comparison_type.json_path) {
      const path = c.comparison_type.json_path;
      const pick = (doc: unknown) => {
        const found = queryJsonPath(doc, path);
        if (found.length === 0) throw new CellError(`JSONPath ${path} matches nothing`);
        return found.length === 1 ? found[0] : found;
      };
      a = pick(a);
      b = pick(b);
    }
    return { value: JSON.stringify(canonical(a)) === JSON.stringify(canonical(b)) };
  },
});
