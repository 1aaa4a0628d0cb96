import { jsonTooDeep, tooDeepMessage } from '../json-depth';
import { csvRows } from './dataset-csv';
import { checkColumnName, FileError, MAX_COLUMNS, MAX_RECORD_CHARS, notUtf8 } from './dataset-file';
import type { RowBatch, RowSource } from './row-batch';

/**
 * Streaming readers for dataset files. Each turns a byte stream into rows one at a time, so
 * an import holds one chunk and one batch in memory however large the file is; a problem is
 * thrown as a FileError naming the line.
 */

export type FileFormat = 'csv' | 'json' | 'jsonl';

export function formatOf(fileName: string): FileFormat {
  const ext = /\.(csv|jsonl|json)$/i.exec(fileName)?.[1]?.toLowerCase();
  if (ext === 'csv' || ext === 'json' || ext === 'jsonl') return ext;
  throw new Error(`unsupported file name ${fileName}`);
}

export async function parseFile(format: FileFormat, bytes: AsyncIterable<Buffer>): Promise<RowSource> {
  if (format === 'csv') return csvRows(bytes);
  const columns = new Set<string>();
  const rows = format === 'json' ? jsonArrayRows : jsonLineRows;
  async function* writeRows(out: RowBatch): AsyncGenerator<void> {
    for await (const chunk of rows(decodeUtf8(bytes), columns)) {
      for (const text of chunk) out.add(text);
      yield;
    }
  }
  return { columns, writeRows };
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
    if (error instanceof TypeError) throw notUtf8(offset);
    throw error;
  }
}

/** A record's stored text, once it is known to be an object with acceptable keys (added to `columns`). */
function recordText(value: unknown, line: number, what: string, columns: Set<string>): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new FileError(line, `${what} is ${kind}, not an object`);
  }
  const keys = Object.keys(value);
  if (keys.length > MAX_COLUMNS) throw new FileError(line, `${what} has ${keys.length} keys; at most ${MAX_COLUMNS} columns are allowed`);
  for (const key of keys) {
    checkColumnName(key, line, what);
    columns.add(key);
  }
  return JSON.stringify(value);
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
async function* jsonLineRows(text: AsyncIterable<string>, columns: Set<string>): AsyncGenerator<string[]> {
  let partial = '';
  let line = 0;
  for await (const chunk of text) {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    const out: string[] = [];
    for (const raw of lines) {
      line++;
      const body = raw.trim();
      if (body) out.push(recordText(parseJsonText(body, line, 'the line'), line, 'the line', columns));
    }
    if (out.length > 0) yield out;
    if (partial.length > MAX_RECORD_CHARS) throw new FileError(line + 1, `the line is longer than ${MAX_RECORD_CHARS / 1024 / 1024} MB`);
  }
  line++;
  const body = partial.trim();
  if (body) yield [recordText(parseJsonText(body, line, 'the line'), line, 'the line', columns)];
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * A top-level JSON array of objects, cut into elements by a small scanner (strings, escapes and
 * nesting) and each element parsed on its own: memory holds one element, not the file.
 */
async function* jsonArrayRows(text: AsyncIterable<string>, columns: Set<string>): AsyncGenerator<string[]> {
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
    const out: string[] = [];
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
            out.push(recordText(parseJsonText(element, elementLine, what()), elementLine, what(), columns));
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
