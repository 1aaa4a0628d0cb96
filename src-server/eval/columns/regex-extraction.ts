import { z } from 'zod';
import { asText, column } from '../cell-values';
import { columnType } from '../column-type';
import { ColumnRef, RegexPattern, withAliases } from '../config-fields';
import { matchAllLinear } from '../linear-regex';

export const regexExtraction = columnType({
  id: 'REGEX_EXTRACTION',
  description: 'Every match of a regular expression in a column’s text (the first group when the pattern has one).',
  config: withAliases({ pattern: 'regex_pattern' }, z.object({ source: ColumnRef, regex_pattern: RegexPattern })),
  reads: (c) => [c.source],
  run(c, ctx) {
    const matches = matchAllLinear(c.regex_pattern, asText(column(ctx.row, c.source))).map((m) => (m.length > 1 ? m[1] : m[0]));
    return { value: matches };
  },
});
