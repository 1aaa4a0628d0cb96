import { z } from 'zod';
import { asNumber, column } from '../cell-values';
import { columnType } from '../column-type';
import { ColumnRef, sourcePairAlias, withAliases } from '../config-fields';

export const absoluteNumericDistance = columnType({
  id: 'ABSOLUTE_NUMERIC_DISTANCE',
  description: 'The absolute difference between two numeric columns.',
  config: withAliases(sourcePairAlias, z.object({ sources: z.array(ColumnRef).length(2) })),
  reads: (c) => c.sources,
  run(c, ctx) {
    const [a, b] = c.sources.map((name) => asNumber(column(ctx.row, name), `Column '${name}'`));
    return { value: Math.abs(a - b) };
  },
});
