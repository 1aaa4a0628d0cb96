import { z } from 'zod';
import { CellError, columnType } from '../column-type';

/** The cell a run leaves for a person to fill in (`PATCH /api/public/v2/reports/{id}/cells`). */
export const AWAITING_INPUT = 'Awaiting human input';

export const human = columnType({
  id: 'HUMAN',
  description: 'A value a person enters for each row (number, text or yes/no).',
  config: z.object({
    data_type: z.enum(['number', 'string', 'boolean']),
    ui_element: z.record(z.string(), z.unknown()).nullish(),
  }),
  reads: () => [],
  run() {
    throw new CellError(AWAITING_INPUT, 'SKIPPED');
  },
});

/** Checks an entered value against the column's data type; returns an error message or null. */
export function humanValueProblem(dataType: 'number' | 'string' | 'boolean', value: unknown): string | null {
  if (value === null) return null;
  if (dataType === 'number' && (typeof value !== 'number' || !Number.isFinite(value))) return 'Expected a number';
  if (dataType === 'string' && typeof value !== 'string') return 'Expected a string';
  if (dataType === 'boolean' && typeof value !== 'boolean') return 'Expected true or false';
  return null;
}
