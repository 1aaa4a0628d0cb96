import { AppError, type ErrorDetail } from '../errors';
import type { ColumnTypeId } from '../eval/column-type';
import { columnTypes } from '../eval/columns/index';
import type { ReportColumn } from '../store/reports';

/** A column as a report holds it, before or after it is stored. */
export interface ColumnDraft {
  id?: number;
  name: string;
  column_type: string;
  configuration: Record<string, unknown>;
  is_part_of_score: boolean;
}

type Loc = ErrorDetail['loc'];

/** Validates one column's configuration against its type's schema; 422 names the bad key. */
export function parseConfiguration(type: ColumnTypeId, configuration: unknown, loc: Loc): Record<string, unknown> {
  const result = columnTypes[type].config.safeParse(configuration);
  if (result.success) return result.data as Record<string, unknown>;
  const detail = result.error.issues.map((issue) => ({
    loc: [...loc, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
    msg: issue.message,
    type: issue.code,
  }));
  const first = detail[0];
  throw new AppError('invalid_input', `Invalid field '${first.loc.slice(1).join('.')}': ${first.msg}`, detail);
}

/** The names a column's configuration reads. */
export function readsOf(column: ColumnDraft): string[] {
  if (column.column_type === 'DATASET') return [];
  const type = columnTypes[column.column_type as ColumnTypeId];
  return type.reads(type.config.parse(column.configuration));
}

/**
 * Every reference must name a column to the left (dataset columns are always leftmost).
 * `locOf` says where a column's configuration came from in the request, for the 422.
 */
export function checkReferences(columns: ColumnDraft[], locOf: (index: number) => Loc): void {
  const position = new Map(columns.map((c, i) => [c.name, i]));
  columns.forEach((column, index) => {
    for (const ref of readsOf(column)) {
      const at = position.get(ref);
      if (at === undefined) {
        throw referenceError(locOf(index), `Column '${column.name}' reads column '${ref}', which does not exist in this report`);
      }
      if (at >= index) {
        throw referenceError(locOf(index), `Column '${column.name}' reads column '${ref}', which is not to its left`);
      }
    }
  });
}

function referenceError(loc: Loc, msg: string): AppError {
  return new AppError('invalid_input', `${msg}.`, [{ loc, msg, type: 'reference_error' }]);
}

export function checkUniqueNames(columns: ColumnDraft[], locOf: (index: number) => Loc): void {
  const seen = new Set<string>();
  columns.forEach((column, index) => {
    if (seen.has(column.name)) {
      const msg = `A column named '${column.name}' already exists in this report`;
      throw new AppError('invalid_input', `Invalid field 'name': ${msg}.`, [{ loc: [...locOf(index).slice(0, -1), 'name'], msg, type: 'value_error' }]);
    }
    seen.add(column.name);
  });
}

export function columnView(column: ReportColumn) {
  const { id, report_id, column_type, name, configuration, position, is_part_of_score } = column;
  return { id, report_id, column_type, name, configuration, position, is_part_of_score, reads: readsOf(column) };
}
