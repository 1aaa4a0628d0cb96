import { z } from 'zod';
import { column } from '../cell-values';
import { columnType } from '../column-type';
import { ColumnRef } from '../config-fields';

export const combineColumns = columnType({
  id: 'COMBINE_COLUMNS',
  description: 'One JSON object holding several columns by name.',
  config: z.object({ sources: z.array(ColumnRef).min(1).max(100) }),
  reads: (c) => c.sources,
  run: (c, ctx) => ({ value: Object.fromEntries(c.sources.map((name) => [name, column(ctx.row, name)])) }),
});
