import { z } from 'zod';
import { column } from '../cell-values';
import { columnType } from '../column-type';
import { ColumnRef } from '../config-fields';

export const coalesce = columnType({
  id: 'COALESCE',
  description: 'The first of several columns that has a value (not null and not empty text).',
  config: z.object({ sources: z.array(ColumnRef).min(1).max(100) }),
  reads: (c) => c.sources,
  skipsOnFailedInput: false,
  run(c, ctx) {
    for (const name of c.sources) {
      const value = column(ctx.row, name);
      if (value !== null && value !== undefined && value !== '') return { value };
    }
    return { value: null };
  },
});
