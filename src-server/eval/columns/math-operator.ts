import { z } from 'zod';
import { asNumber, column } from '../cell-values';
import { columnType } from '../column-type';
import { ColumnRef, sourcePairAlias, withAliases } from '../config-fields';

const operators = { lt: (a: number, b: number) => a < b, le: (a: number, b: number) => a <= b, gt: (a: number, b: number) => a > b, ge: (a: number, b: number) => a >= b };

export const mathOperator = columnType({
  id: 'MATH_OPERATOR',
  description: 'Compares a column with a number or another column (<, <=, >, >=); true or false.',
  config: withAliases(
    sourcePairAlias,
    z
      .object({ sources: z.array(ColumnRef).min(1).max(2), value: z.union([z.number(), z.string()]).optional(), operator: z.enum(['lt', 'le', 'gt', 'ge']) })
      .refine((c) => (c.sources.length === 2) !== (c.value !== undefined), { message: 'Give two sources, or one source and a value', path: ['sources'] })
      .refine((c) => c.value === undefined || Number.isFinite(Number(c.value)), { message: 'Must be a number', path: ['value'] }),
  ),
  reads: (c) => c.sources,
  run(c, ctx) {
    const a = asNumber(column(ctx.row, c.sources[0]), `Column '${c.sources[0]}'`);
    const b = c.sources.length === 2 ? asNumber(column(ctx.row, c.sources[1]), `Column '${c.sources[1]}'`) : Number(c.value);
    return { value: operators[c.operator](a, b) };
  },
});
