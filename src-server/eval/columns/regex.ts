import { z } from 'zod';
import { asText, column } from '../cell-values';
import { columnType } from '../column-type';
import { ColumnRef, RegexPattern, withAliases } from '../config-fields';
import { testLinear } from '../linear-regex';

export const regex = columnType({
  id: 'REGEX',
  description: 'True when a column’s text matches a regular expression (JavaScript syntax, run in linear time: no backreferences or lookaround).',
  config: withAliases({ pattern: 'regex_pattern' }, z.object({ source: ColumnRef, regex_pattern: RegexPattern })),
  reads: (c) => [c.source],
  run: (c, ctx) => ({ value: testLinear(c.regex_pattern, asText(column(ctx.row, c.source))) }),
});
