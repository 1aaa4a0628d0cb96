import Papa from 'papaparse';
import { jsonTooDeep, tooDeepMessage } from '../json-depth';

/**
 * Streaming readers for dataset files. Each turns a byte stream into records one at a time, so
 * an import holds one chunk and one batch in memory however large the file is; a problem is
 * thrown as a FileError naming the line.
 */

export type FileFormat = 'csv' | 'json' | 'jsonl';

export interface FileRecord {
  /** 1-based line of the file where the record starts. */
  line: number;
  data: Record<string, unknown>;
}

export interface ParsedFile {
  /** Known before any record for CSV (its header); discovered as records arrive otherwise. */
  columns: string[];
  /** Records in file order, a chunk's worth at a time (one await per chunk, not per record). */
  records: AsyncIterable<FileRecord[]>;
}

export class FileError extends Error {
  constructor(
    readonly line: number | null,
    readonly problem: string,
  ) {
    super(line === null ? problem : `line ${line}: ${problem}`);
  }
}

export const MAX_COLUMNS = 1000;
const MAX_COLUMN_NAME = 255;
/** A record longer than this is almost always an unclosed quote or bracket running to the end. */
export const MAX_RECORD_CHARS = 8 * 1024 * 1024;

export function formatOf(fileName: string): FileFormat {
  const ext = /\.(csv|jsonl|json)$/i.exec(fileName)?.[1]?.toLowerCase();
  if (ext === 'csv' || ext === 'json' || ext === 'jsonl') return ext;
  throw new Error(`unsupported file name ${fileName}`);
}

export async function parseFile(format: FileFormat, bytes: AsyncIterable<Buffer>): Promise<ParsedFile> {
  const text = decodeUtf8(bytes);
  switch (format) {
    case 'csv':
      return parseCsv(text);
    case 'json':
      return { columns: [], records: jsonArrayRecords(text) };
    case 'jsonl':
      return { columns: [], records: jsonLineRecords(text) };
  }
}

/** UTF-8 with a BOM or without; invalid bytes are an error rather than silent U+FFFD. */
async function* decodeUtf8(bytes: AsyncIterable<Buffer>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let offset = 0;
  try {
    for await (const chunk of bytes) {
      const text = decoder.decode(chunk, { stream: true });
      offset += chunk.length;
      if (text) yield text;
    }
    const rest = decoder.decode();
    if (rest) yield rest;
  } catch (error) {
    if (error instanceof TypeError) throw new FileError(null, `the file is not valid UTF-8 text (near byte ${offset})`);
    throw error;
  }
}

function checkColumnName(name: string, line: number, where: string): void {
  if (name === '') throw new FileError(line, `${where} has an empty column name`);
  if (name.length > MAX_COLUMN_NAME) throw new FileError(line, `${where} has a column name longer than ${MAX_COLUMN_NAME} characters`);
}

const newlines = (s: string) => {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
};

/**
 * CSV through papaparse's incremental parser: quoted fields with commas, quotes and newlines,
 * `\n` or `\r\n` line ends, and `,` `;` or tab delimiters (detected from the start of the file).
 * The first row is the header; every later row must have exactly as many fields.
 */
async function parseCsv(text: AsyncGenerator<string>): Promise<ParsedFile> {
  let pending = '';
  // Enough of the file to detect the delimiter and line ending from several rows.
  while (pending.length < 64 * 1024) {
    const next = await text.next();
    if (next.done) break;
    pending += next.value;
  }
  if (pending.trim() === '') throw new FileError(1, 'the file is empty: a CSV needs a header row');
  const sample = Papa.parse<string[]>(pending.slice(0, 64 * 1024), { preview: 20, skipEmptyLines: true, delimitersToGuess: [',', ';', '\t'] });
  const parser = new Papa.Parser({ delimiter: sample.meta.delimiter, newline: sample.meta.linebreak as '\n' | '\r' | '\r\n' });

  let line = 1;

  async function* rows(): AsyncGenerator<Array<{ line: number; fields: string[] }>> {
    let partial = '';
    let baseIndex = 0;
    let chunk: string | null = pending;
    pending = '';
    for (;;) {
      const next: IteratorResult<string> | null = chunk === null ? await text.next() : null;
      const last = next?.done === true;
      const input = partial + (chunk ?? (next!.done ? '' : next!.value));
      chunk = null;
      const result = parser.parse(input, baseIndex, !last) as Papa.ParseResult<string[]>;
      const quoteError = result.errors.find((e) => e.type === 'Quotes');
      const out: Array<{ line: number; fields: string[] }> = [];
      for (let i = 0; i < result.data.length; i++) {
        const fields = result.data[i];
        const start = line;
        line += 1;
        for (const f of fields) if (f.includes('\n')) line += newlines(f);
        if (quoteError && quoteError.row === i) throw new FileError(start, `${quoteError.message.toLowerCase()} (check the quotes)`);
        // A blank line parses as one empty field; it is not a row.
        if (fields.length === 1 && fields[0] === '') continue;
        out.push({ line: start, fields });
      }
      if (out.length > 0) yield out;
      if (last) return;
      const cursor = (result.meta as { cursor: number }).cursor;
      partial = input.slice(cursor - baseIndex);
      baseIndex = cursor;
      if (partial.length > MAX_RECORD_CHARS) {
        throw new FileError(line, `a record runs on for more than ${MAX_RECORD_CHARS / 1024 / 1024} MB: is a quote not closed?`);
      }
    }
  }

  const source = rows();
  const firstChunk = await source.next();
  if (firstChunk.done) throw new FileError(1, 'the file is empty: a CSV needs a header row');
  const [headerRow, ...firstRows] = firstChunk.value;
  const first = { value: headerRow };
  const header = headerRow.fields.map((name) => name.trim());
  if (header.length > MAX_COLUMNS) throw new FileError(1, `the header has ${header.length} columns; at most ${MAX_COLUMNS} are allowed`);
  const seen = new Set<string>();
  header.forEach((name, i) => {
    checkColumnName(name, first.value.line, `the header (column ${i + 1})`);
    if (seen.has(name)) throw new FileError(first.value.line, `the header names column '${name}' twice`);
    seen.add(name);
  });
  const columns = header;

  const toRecords = (chunk: Array<{ line: number; fields: string[] }>): FileRecord[] =>
    chunk.map(({ line: at, fields }) => {
      if (fields.length !== columns.length) {
        throw new FileError(at, `${fields.length} field${fields.length === 1 ? '' : 's'}, but the header has ${columns.length} column${columns.length === 1 ? '' : 's'}`);
      }
      // Null prototype: a header named `__proto__` is a column, not the record's prototype.
      const data = Object.create(null) as Record<string, unknown>;
      for (let i = 0; i < columns.length; i++) data[columns[i]] = fields[i];
      return { line: at, data };
    });
  async function* records(): AsyncGenerator<FileRecord[]> {
    if (firstRows.length > 0) yield toRecords(firstRows);
    for await (const chunk of source) yield toRecords(chunk);
  }
  return { columns, records: records() };
}

function recordFrom(value: unknown, line: number, what: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new FileError(line, `${what} is ${kind}, not an object`);
  }
  const keys = Object.keys(value);
  if (keys.length > MAX_COLUMNS) throw new FileError(line, `${what} has ${keys.length} keys; at most ${MAX_COLUMNS} columns are allowed`);
  for (const key of keys) checkColumnName(key, line, what);
  return value as Record<string, unknown>;
}

function parseJsonText(text: string, line: number, what: string): unknown {
  if (jsonTooDeep(text)) throw new FileError(line, `${what} is ${tooDeepMessage}`);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new FileError(line, `${what} is not valid JSON (${(error as Error).message})`);
  }
}

/** One JSON object per line; blank lines are skipped. */
async function* jsonLineRecords(text: AsyncIterable<string>): AsyncGenerator<FileRecord[]> {
  let partial = '';
  let line = 0;
  for await (const chunk of text) {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    const out: FileRecord[] = [];
    for (const raw of lines) {
      line++;
      const body = raw.trim();
      if (body) out.push({ line, data: recordFrom(parseJsonText(body, line, 'the line'), line, 'the line') });
    }
    if (out.length > 0) yield out;
    if (partial.length > MAX_RECORD_CHARS) throw new FileError(line + 1, `the line is longer than ${MAX_RECORD_CHARS / 1024 / 1024} MB`);
  }
  line++;
  const body = partial.trim();
  if (body) yield [{ line, data: recordFrom(parseJsonText(body, line, 'the line'), line, 'the line') }];
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * A top-level JSON array of objects, cut into elements by a small scanner (strings, escapes and
 * nesting) and each element parsed on its own: memory holds one element, not the file.
 */
async function* jsonArrayRecords(text: AsyncIterable<string>): AsyncGenerator<FileRecord[]> {
  type State = 'start' | 'first' | 'element' | 'after' | 'comma' | 'done';
  let state = 'start' as State;
  let line = 1;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let pieces: string[] = [];
  let pieceChars = 0;
  let elementLine = 0;
  let index = 0;
  const what = () => `element ${index + 1} of the array`;

  for await (const chunk of text) {
    const out: FileRecord[] = [];
    let start = state === 'element' ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (state === 'element') {
        if (c === 0x0a) line++;
        if (inString) {
          if (escaped) escaped = false;
          else if (c === 0x5c) escaped = true;
          else if (c === 0x22) inString = false;
          continue;
        }
        if (c === 0x22) inString = true;
        else if (c === 0x7b || c === 0x5b) depth++;
        else if (c === 0x7d || c === 0x5d) {
          depth--;
          if (depth === 0) {
            pieces.push(chunk.slice(start, i + 1));
            const element = pieces.join('');
            pieces = [];
            pieceChars = 0;
            out.push({ line: elementLine, data: recordFrom(parseJsonText(element, elementLine, what()), elementLine, what()) });
            index++;
            state = 'after';
          }
        }
        continue;
      }
      if (WS.has(c)) {
        if (c === 0x0a) line++;
        continue;
      }
      const ch = chunk[i];
      if (state === 'start') {
        if (ch !== '[') throw new FileError(line, 'a .json dataset must be an array of objects (it should start with "[")');
        state = 'first';
      } else if ((state === 'first' || state === 'after') && ch === ']') {
        state = 'done';
      } else if (state === 'after') {
        if (ch !== ',') throw new FileError(line, `expected "," or "]" after ${what()}, found "${ch}"`);
        state = 'comma';
      } else if (state === 'first' || state === 'comma') {
        if (ch !== '{') {
          const kind = ch === '[' ? 'an array' : ch === '"' ? 'a string' : 'not an object';
          throw new FileError(line, `element ${index + 1} of the array is ${kind}: every element must be an object`);
        }
        state = 'element';
        depth = 1;
        start = i;
        elementLine = line;
      } else {
        throw new FileError(line, `unexpected "${ch}" after the end of the array`);
      }
    }
    if (out.length > 0) yield out;
    if (state === 'element') {
      const piece = chunk.slice(start);
      pieces.push(piece);
      pieceChars += piece.length;
      if (pieceChars > MAX_RECORD_CHARS) throw new FileError(elementLine, `${what()} is longer than ${MAX_RECORD_CHARS / 1024 / 1024} MB`);
    }
  }
  if (state === 'start') throw new FileError(1, 'the file is empty: a .json dataset must be an array of objects');
  if (state !== 'done') throw new FileError(line, 'the file ends before the array is closed with "]"');
}
