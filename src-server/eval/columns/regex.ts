import { z } from 'zod';
import { asText, column } from '../cell-values';
import { columnType } from '../column-type';
import { ColumnRef, RegexPattern, withAliases } from '../config-fields';

export const regex = columnType({
  id: 'REGEX',
  description: 'True when a column’s text matches a regular expression (JavaScript syntax).',
  config: withAliases({ pattern: 'regex_pattern' }, z.object({ source: ColumnRef, regex_pattern: RegexPattern })),
  reads: (c) => [c.source],
  run: (c, ctx) => ({ value: new RegExp(c.regex_pattern).test(asText(column(ctx.row, c.source))) }),
});
