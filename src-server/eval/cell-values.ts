import { CellError } from './column-type';

/** Text of a value as a template or a comparison sees it: strings as is, the rest as JSON. */
export function asText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** A number from a number or numeric text; anything else is the cell's error. */
export function asNumber(value: unknown, what: string): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value.trim());
    if (Number.isFinite(n)) return n;
  }
  throw new CellError(`${what} is not a number: ${preview(value)}`);
}

/** JSON text is parsed; other values are taken as they are (a dataset cell may already be JSON). */
export function asJson(value: unknown, what: string): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    throw new CellError(`${what} is not valid JSON: ${preview(value)}`);
  }
}

export function preview(value: unknown, max = 80): string {
  const text = value === undefined ? 'undefined' : typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export function column(row: Record<string, unknown>, name: string): unknown {
  return Object.prototype.hasOwnProperty.call(row, name) ? row[name] : null;
}
