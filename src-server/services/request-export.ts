import { Readable } from 'node:stream';
import Papa from 'papaparse';
import { cell } from './dataset-export';
import type { RequestView } from './requests';

export type RequestExportFormat = 'jsonl' | 'csv';

/** API.md §7 details: one row per request, in this order. */
export const REQUEST_CSV_COLUMNS = [
  'id', 'request_start_time', 'request_end_time', 'provider', 'model', 'status', 'input_tokens', 'output_tokens', 'price',
  'latency_ms', 'tags', 'metadata', 'scores', 'note', 'prompt_name', 'prompt_version', 'input', 'output',
] as const;

/** Excel reads a CSV without a byte order mark in the system's legacy code page (docs/decisions.md). */
const UTF8_BOM = '\uFEFF';

function csvValues(r: RequestView): unknown[] {
  // Records carry `note` once review notes exist (issue 14, item 3); until then the column is empty.
  const note = 'note' in r ? r.note : null;
  const byColumn: Record<(typeof REQUEST_CSV_COLUMNS)[number], unknown> = {
    id: r.id,
    request_start_time: r.request_start_time,
    request_end_time: r.request_end_time,
    provider: r.provider,
    model: r.model,
    status: r.status,
    input_tokens: r.input_tokens,
    output_tokens: r.output_tokens,
    price: r.price,
    latency_ms: r.latency_ms,
    tags: r.tags,
    metadata: r.metadata,
    scores: r.scores,
    note,
    prompt_name: r.prompt_name,
    // The version number: the record's `prompt_version` object (the whole template) is in the JSONL.
    prompt_version: r.prompt_version_number,
    input: r.input,
    output: r.output,
  };
  return REQUEST_CSV_COLUMNS.map((c) => cell(byColumn[c]));
}

/**
 * The matching requests as a byte stream, one page at a time as the client reads it: Readable.from
 * pulls the next page only when the socket has drained, so a million-row export holds one page in
 * memory, never the log (test/export-delete.test.ts measures it).
 */
export function requestExportStream(pages: Iterable<RequestView[]>, format: RequestExportFormat, bom: boolean): Readable {
  async function* chunks(): AsyncGenerator<string> {
    if (format === 'csv') yield `${bom ? UTF8_BOM : ''}${Papa.unparse([[...REQUEST_CSV_COLUMNS]], { newline: '\r\n' })}\r\n`;
    for (const page of pages) {
      if (format === 'csv') {
        yield `${Papa.unparse({ fields: [...REQUEST_CSV_COLUMNS], data: page.map(csvValues) }, { header: false, newline: '\r\n' })}\r\n`;
      } else {
        yield page.map((r) => `${JSON.stringify(r)}\n`).join('');
      }
    }
  }
  return Readable.from(chunks(), { objectMode: false });
}
