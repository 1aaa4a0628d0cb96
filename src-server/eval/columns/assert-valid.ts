import { z } from 'zod';
import { openSqlite } from '../../store/sqlite';
import { asJson, asNumber, asText, column } from '../cell-values';
import { columnType } from '../column-type';
import { ColumnRef } from '../config-fields';

/**
 * SQL is checked by SQLite's own parser on an empty in-memory database: prepare() compiles without
 * running. Missing tables or columns are not syntax errors, since the text was written for some
 * other schema.
 */
function isValidSql(sql: string): boolean {
  if (sql.trim() === '') return false;
  const db = openSqlite(':memory:');
  try {
    db.prepare(sql);
    return true;
  } catch (error) {
    return /no such (table|column|function|collation|module)|more than one statement/i.test((error as Error).message);
  } finally {
    db.close();
  }
}

const valid = (check: () => unknown) => {
  try {
    return check() !== false;
  } catch {
    return false;
  }
};

export const assertValid = columnType({
  id: 'ASSERT_VALID',
  description: 'True when a column holds valid JSON (object or array), a number, or SQL that parses.',
  config: z.object({ source: ColumnRef, type: z.enum(['object', 'number', 'sql']) }),
  reads: (c) => [c.source],
  run(c, ctx) {
    const value = column(ctx.row, c.source);
    switch (c.type) {
      case 'object':
        return { value: valid(() => { const v = asJson(value, 'value'); return v !== null && typeof v === 'object'; }) };
      case 'number':
        return { value: valid(() => asNumber(value, 'value')) };
      case 'sql':
        return { value: isValidSql(asText(value)) };
    }
  },
});
