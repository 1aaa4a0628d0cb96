import { Readable } from 'node:stream';
import Papa from 'papaparse';
import type { DatasetStore } from '../store/datasets';
import { rowData, type DatasetVersion } from './datasets';

export type ExportFormat = 'csv' | 'jsonl';

/** Rows read per step: each step is a fresh query, so no cursor stays open while the client reads.
 * Small steps keep each yielded string under V8's large-object size, so it dies young. */
const CHUNK_ROWS = 100;

/** A CSV cell: text as is, empty for null, JSON for numbers, booleans, objects and arrays. */
export function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  return neutralised(typeof value === 'string' ? value : JSON.stringify(value));
}

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * A spreadsheet opening the CSV runs a cell that starts with `=`, `+`, `-`, `@`, tab or CR as a
 * formula (CSV injection: `=HYPERLINK(...)`, DDE `=cmd|...`). Such a cell gets a leading `'`, the
 * OWASP rule, which spreadsheets show as text. A plain number (`-5`, `+1.5e3`) is left alone: it
 * is read as a number, never a formula. The JSONL export is the lossless one (docs/security.md).
 */
export function neutralised(text: string): string {
  return FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}

/**
 * The version as a byte stream, produced chunk by chunk as the client reads it (Readable.from
 * pulls the generator only when the socket drains), so a 100,000-row export never sits whole in
 * memory.
 */
export function exportStream(store: DatasetStore, version: DatasetVersion, format: ExportFormat): Readable {
  const columns = version.column_names;
  async function* lines(): AsyncGenerator<string> {
    if (format === 'csv') yield `${Papa.unparse([columns.map(neutralised)], { newline: '\r\n' })}\r\n`;
    let from = 0;
    for (;;) {
      const chunk = store.rows(version.id, from, CHUNK_ROWS);
      if (chunk.length === 0) return;
      const rows = chunk.map((r) => rowData(columns, r.data));
      if (format === 'csv') {
        const data = rows.map((row) => columns.map((c) => cell(row[c])));
        yield `${Papa.unparse({ fields: columns, data }, { header: false, newline: '\r\n' })}\r\n`;
      } else {
        yield rows.map((row) => `${JSON.stringify(row)}\n`).join('');
      }
      if (chunk.length < CHUNK_ROWS) return;
      from = chunk[chunk.length - 1].row_index + 1;
    }
  }
  return Readable.from(lines(), { objectMode: false });
}
