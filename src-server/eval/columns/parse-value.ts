import { z } from 'zod';
import { asJson, asNumber, asText, column, preview } from '../cell-values';
import { CellError, columnType } from '../column-type';
import { ColumnRef } from '../config-fields';

const TRUE = new Set(['true', 'yes', 'y', '1', 'pass', 'passed']);
const FALSE = new Set(['false', 'no', 'n', '0', 'fail', 'failed']);

export const parseValue = columnType({
  id: 'PARSE_VALUE',
  description: 'Converts a column’s value to a string, number, boolean or JSON object.',
  config: z.object({ source: ColumnRef, type: z.enum(['string', 'number', 'boolean', 'object']) }),
  reads: (c) => [c.source],
  run(c, ctx) {
    const value = column(ctx.row, c.source);
    switch (c.type) {
      case 'string':
        return { value: asText(value) };
      case 'number':
        return { value: asNumber(value, `Column '${c.source}'`) };
      case 'boolean': {
        if (typeof value === 'boolean') return { value };
        const word = asText(value).trim().toLowerCase();
        if (TRUE.has(word)) return { value: true };
        if (FALSE.has(word)) return { value: false };
        throw new CellError(`Column '${c.source}' is not a boolean: ${preview(value)}`);
      }
      case 'object':
        return { value: asJson(value, `Column '${c.source}'`) };
    }
  },
});
