import { z } from 'zod';
import { asJson, asNumber, column } from '../cell-values';
import { CellError, columnType } from '../column-type';
import { ColumnRef, withAliases } from '../config-fields';
import { queryJsonPath } from '../json-path';
import { JsonPathExpression } from './json-path';

export const minMax = columnType({
  id: 'MIN_MAX',
  description: 'The smallest or largest number in a column’s list (optionally picked out with a JSONPath).',
  config: withAliases({ path: 'json_path' }, z.object({ source: ColumnRef, type: z.enum(['min', 'max']), json_path: JsonPathExpression.nullish() })),
  reads: (c) => [c.source],
  run(c, ctx) {
    const document = asJson(column(ctx.row, c.source), `Column '${c.source}'`);
    const found = c.json_path ? queryJsonPath(document, c.json_path) : document;
    const list = (Array.isArray(found) ? found : [found]).flat();
    if (list.length === 0) throw new CellError(`Column '${c.source}' has no numbers.`);
    const numbers = list.map((v) => asNumber(v, 'An item'));
    return { value: c.type === 'min' ? Math.min(...numbers) : Math.max(...numbers) };
  },
});
