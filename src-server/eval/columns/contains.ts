import { z } from 'zod';
import { asText, column } from '../cell-values';
import { columnType } from '../column-type';
import { ColumnRef } from '../config-fields';

export const contains = columnType({
  id: 'CONTAINS',
  description: 'True when a column’s text contains a value (case-insensitive).',
  config: z
    .object({ source: ColumnRef, value: z.string().max(100_000).optional(), value_source: ColumnRef.optional() })
    .refine((c) => (c.value === undefined) !== (c.value_source === undefined), { message: 'Give exactly one of value or value_source', path: ['value'] }),
  reads: (c) => [c.source, ...(c.value_source ? [c.value_source] : [])],
  run(c, ctx) {
    const needle = c.value ?? asText(column(ctx.row, c.value_source!));
    return { value: asText(column(ctx.row, c.source)).toLowerCase().includes(needle.toLowerCase()) };
  },
});
