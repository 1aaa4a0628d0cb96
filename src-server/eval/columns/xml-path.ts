import { z } from 'zod';
import { asText, column } from '../cell-values';
import { CellError, columnType } from '../column-type';
import { ColumnRef, withAliases } from '../config-fields';
import { findAll, parseXml, serializeXml, textOf } from '../xml-path';

export const xmlPath = columnType({
  id: 'XML_PATH',
  description: 'Picks elements out of a column’s XML with an ElementTree path (find or findall).',
  config: withAliases(
    { path: 'xml_path' },
    z.object({
      source: ColumnRef,
      xml_path: z.string().min(1).max(1000),
      type: z.enum(['find', 'findall']).default('find'),
      return_text: z.boolean().default(true),
    }),
  ),
  reads: (c) => [c.source],
  run(c, ctx) {
    let found;
    try {
      found = findAll(parseXml(asText(column(ctx.row, c.source))), c.xml_path);
    } catch (error) {
      throw new CellError((error as Error).message);
    }
    const shape = (e: (typeof found)[number]) => (c.return_text ? textOf(e) : serializeXml(e));
    return { value: c.type === 'find' ? (found[0] ? shape(found[0]) : null) : found.map(shape) };
  },
});
