import Papa from 'papaparse';
import { checkColumnName, FileError, MAX_COLUMNS, MAX_RECORD_BYTES, notUtf8 } from './dataset-file';
import { Utf8Check } from './utf8-check';
import type { RowBatch, RowSource } from './row-batch';

/**
 * CSV straight from UTF-8 bytes to each row's stored JSON text, with no string per field or row:
 * quoted fields with commas, quotes and newlines, `\n` `\r\n` or `\r` line ends, and `,` `;` or
 * tab delimiters (both detected by papaparse from the start of the file, as before). The first
 * row is the header; every later row must have exactly as many fields.
 *
 * It reads what papaparse read (the reader this replaced, whose rules it keeps: a quote opens a
 * field only as its first character; `""` inside quotes is a quote; spaces may follow a closing
 * quote; a blank line is no row) and writes what `JSON.stringify` wrote for the record. Through
 * papaparse, strings, records and texts were ~70% of an import's CPU and most of its garbage
 * (docs/performance.md, "Datasets"); test/dataset-csv.test.ts checks both against random files.
 */
export async function csvRows(bytes: AsyncIterable<Buffer>): Promise<RowSource> {
  const input = bytes[Symbol.asyncIterator]();
  // The start of the file, as text for papaparse to detect the delimiter and line ending from
  // several rows, and as bytes for the reader (chunks are copied: the caller reuses its buffer).
  const head: Buffer[] = [];
  let sample = '';
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let offset = 0;
  while (sample.length < 64 * 1024) {
    const next = await input.next();
    if (next.done) break;
    try {
      sample += decoder.decode(next.value, { stream: true });
    } catch {
      throw notUtf8(offset);
    }
    offset += next.value.length;
    head.push(Buffer.from(next.value));
  }
  if (sample.trim() === '') throw new FileError(1, 'the file is empty: a CSV needs a header row');
  const guess = Papa.parse<string[]>(sample.slice(0, 64 * 1024), { preview: 20, skipEmptyLines: true, delimitersToGuess: [',', ';', '\t'] });
  const reader = new CsvReader(guess.meta.delimiter, guess.meta.linebreak);
  const columns = new Set<string>();

  async function* writeRows(out: RowBatch): AsyncGenerator<void> {
    reader.out = out;
    reader.columns = columns;
    // The text decoder dropped a byte order mark at the start; so does the reader.
    const start = Buffer.concat(head.splice(0));
    reader.read(start[0] === 0xef && start[1] === 0xbb && start[2] === 0xbf ? start.subarray(3) : start);
    yield;
    for (;;) {
      const next = await input.next();
      if (next.done) break;
      reader.read(next.value);
      yield;
    }
    reader.end();
  }
  return { columns, writeRows };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const HEX = '0123456789abcdef';

// What a byte is to the reader, outside quotes (`outside`) and inside them (`inside`).
const PLAIN = 0;
/** Written escaped: control characters, `"` and `\`. */
const ESCAPE = 1;
const DELIMITER = 2;
/** The (first) byte of the line ending. */
const NEWLINE = 3;
const CLOSE = 4;

const enum State {
  /** At the start of a field (a quote here opens a quoted field). */
  FieldStart,
  Unquoted,
  Quoted,
  /** A quote inside a quoted field: a closing quote, or the first of `""`. */
  QuoteInQuoted,
  /** Spaces after a closing quote, before the delimiter or line end. */
  AfterClose,
}

/** Spaces papaparse allowed between a closing quote and what follows (its `trim()`; ASCII here, the rest in `checkSpaces`). */
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0b || c === 0x0c || c === 0x0d || c === 0x0a;

class CsvReader {
  out!: RowBatch;
  columns!: Set<string>;

  private readonly delimiter: number;
  private readonly newline: number;
  /** `\r\n` line ends: a `\r` waits for the next byte to know whether it ends the line. */
  private readonly crlf: boolean;
  private readonly outside = new Uint8Array(256);
  private readonly inside = new Uint8Array(256);

  private state = State.FieldStart;
  private pendingCr = false;
  /** The row being read, its field values written as JSON strings one after another. */
  private row = Buffer.allocUnsafe(64 * 1024);
  private at = 0;
  /** Where each of the row's first `starts.length` values begins and ends in `row`. */
  private starts: number[] = [];
  private ends: number[] = [];
  private fields = 0;
  private newlinesInRow = 0;
  private rowOffset = 0;
  private line = 1;
  private offset = 0;
  private readonly utf8 = new Utf8Check();

  private header: string[] | null = null;
  /** `{"name":` or `,"name":` for each column, in the order JSON.stringify lists the record's keys. */
  private keys: Buffer[] = [];
  private order: number[] = [];

  constructor(delimiter: string, newline: string) {
    this.delimiter = delimiter.charCodeAt(0);
    this.newline = newline === '\n' ? 0x0a : 0x0d;
    this.crlf = newline === '\r\n';
    for (let c = 0; c < 0x20; c++) this.outside[c] = this.inside[c] = ESCAPE;
    this.outside[QUOTE] = this.inside[QUOTE] = ESCAPE;
    this.outside[BACKSLASH] = this.inside[BACKSLASH] = ESCAPE;
    this.outside[this.delimiter] = DELIMITER;
    this.outside[this.newline] = NEWLINE;
    this.inside[QUOTE] = CLOSE;
  }

  read(chunk: Buffer): void {
    this.utf8.check(chunk, this.offset);
    let i = 0;
    // Worst case a byte becomes six (`\u001f`); the row buffer then needs no check per byte.
    this.roomInRow(6 * chunk.length + 16);
    const n = chunk.length;
    const row = this.row;
    let at = this.at;
    while (i < n) {
      if (this.pendingCr) {
        this.pendingCr = false;
        if (chunk[i] === 0x0a) {
          if (this.state === State.Unquoted) {
            row[at++] = QUOTE;
            this.endField(at);
          }
          this.at = at;
          this.endRow(this.offset + i + 1);
          at = this.at;
          this.state = State.FieldStart;
          i++;
          continue;
        }
        // A `\r` alone: data in an unquoted field, a space after a closing quote.
        if (this.state === State.Unquoted) at = escapeInto(row, at, 0x0d);
      }
      switch (this.state) {
        case State.FieldStart: {
          this.beginField(at);
          at++;
          row[at - 1] = QUOTE;
          if (chunk[i] === QUOTE) {
            this.state = State.Quoted;
            i++;
          } else this.state = State.Unquoted;
          break;
        }
        case State.Unquoted: {
          const outside = this.outside;
          for (; i < n; i++) {
            const c = chunk[i];
            const kind = outside[c];
            if (kind === PLAIN) row[at++] = c;
            else if (kind === ESCAPE) {
              if (c === 0x0a) this.newlinesInRow++;
              at = escapeInto(row, at, c);
            } else break;
          }
          if (i === n) break;
          const c = chunk[i++];
          if (c !== this.delimiter && this.crlf) {
            // The field ends here only if a `\n` follows.
            this.pendingCr = true;
            break;
          }
          row[at++] = QUOTE;
          this.endField(at);
          if (c === this.delimiter) this.state = State.FieldStart;
          else {
            this.at = at;
            this.endRow(this.offset + i);
            at = this.at;
            this.state = State.FieldStart;
          }
          break;
        }
        case State.Quoted: {
          const inside = this.inside;
          for (; i < n; i++) {
            const c = chunk[i];
            const kind = inside[c];
            if (kind === PLAIN) row[at++] = c;
            else if (kind === ESCAPE) {
              if (c === 0x0a) this.newlinesInRow++;
              at = escapeInto(row, at, c);
            } else break;
          }
          if (i === n) break;
          i++;
          this.state = State.QuoteInQuoted;
          break;
        }
        case State.QuoteInQuoted: {
          const c = chunk[i];
          if (c === QUOTE) {
            at = escapeInto(row, at, QUOTE);
            this.state = State.Quoted;
            i++;
            break;
          }
          row[at++] = QUOTE;
          this.endField(at);
          this.state = State.AfterClose;
          break;
        }
        case State.AfterClose: {
          const c = chunk[i++];
          if (c === this.delimiter || c === this.newline) this.checkSpaces();
          if (c === this.delimiter) this.state = State.FieldStart;
          else if (c === this.newline) {
            if (this.crlf) this.pendingCr = true;
            else {
              this.at = at;
              this.endRow(this.offset + i);
              at = this.at;
              this.state = State.FieldStart;
            }
          } else if (c >= 0x80) this.spaces.push(c);
          else if (!isSpace(c)) throw this.quoteError('Trailing quote on quoted field is malformed');
          break;
        }
      }
    }
    this.at = at;
    this.offset += n;
    if (this.offset - this.rowOffset > MAX_RECORD_BYTES) {
      throw new FileError(this.line, `a record runs on for more than ${MAX_RECORD_BYTES / 1024 / 1024} MB: is a quote not closed?`);
    }
  }

  /** The end of the file: the last row needs no line ending. */
  end(): void {
    this.utf8.end(this.offset);
    if (this.pendingCr) {
      this.pendingCr = false;
      if (this.state === State.Unquoted) this.at = escapeInto(this.row, this.at, 0x0d);
    }
    switch (this.state) {
      case State.FieldStart:
        // After a delimiter the row has one more (empty) field; after a line end there is no row.
        if (this.fields === 0) break;
        this.beginField(this.at);
        this.row[this.at++] = QUOTE;
        this.row[this.at++] = QUOTE;
        this.endField(this.at);
        this.endRow(this.offset);
        break;
      case State.Unquoted:
      case State.QuoteInQuoted:
        this.row[this.at++] = QUOTE;
        this.endField(this.at);
        this.endRow(this.offset);
        break;
      case State.Quoted:
        throw this.quoteError('Quoted field unterminated');
      case State.AfterClose:
        // papaparse: spaces after the last closing quote of the file are not a line end.
        throw this.quoteError('Trailing quote on quoted field is malformed');
    }
    if (this.header === null) throw new FileError(1, 'the file is empty: a CSV needs a header row');
  }

  /** Bytes past ASCII after a closing quote: spaces too if they spell Unicode spaces (papaparse's `trim()`). */
  private spaces: number[] = [];

  private checkSpaces(): void {
    if (this.spaces.length === 0) return;
    const text = Buffer.from(this.spaces).toString();
    this.spaces = [];
    if (text.trim() !== '') throw this.quoteError('Trailing quote on quoted field is malformed');
  }

  private quoteError(message: string): FileError {
    return new FileError(this.line, `${message.toLowerCase()} (check the quotes)`);
  }

  private beginField(at: number): void {
    if (this.fields < MAX_COLUMNS + 1) this.starts[this.fields] = at;
  }

  private endField(at: number): void {
    if (this.fields < MAX_COLUMNS + 1) this.ends[this.fields] = at;
    this.fields++;
  }

  /** A row ended just before `nextRowOffset` (a byte offset in the file). */
  private endRow(nextRowOffset: number): void {
    const fields = this.fields;
    const line = this.line;
    this.line += 1 + this.newlinesInRow;
    this.fields = 0;
    this.newlinesInRow = 0;
    this.rowOffset = nextRowOffset;
    const at = this.at;
    this.at = 0;
    // A blank line parses as one empty field; it is not a row. (`""` is a quoted empty value: 2 bytes.)
    if (fields === 1 && this.ends[0] - this.starts[0] === 2) return;
    if (this.header === null) {
      this.setHeader(fields, line);
      return;
    }
    const columns = this.order.length;
    if (fields !== columns) {
      throw new FileError(line, `${fields} field${fields === 1 ? '' : 's'}, but the header has ${columns} column${columns === 1 ? '' : 's'}`);
    }
    const out = this.out.room(at + this.keyBytes + 1);
    let o = this.out.used;
    for (let k = 0; k < columns; k++) {
      const key = this.keys[k];
      o += key.copy(out, o);
      const i = this.order[k];
      o += this.row.copy(out, o, this.starts[i], this.ends[i]);
    }
    out[o++] = 0x7d;
    this.out.endRow(o);
  }

  private keyBytes = 0;

  private setHeader(fields: number, line: number): void {
    if (fields > MAX_COLUMNS) throw new FileError(1, `the header has ${fields} columns; at most ${MAX_COLUMNS} are allowed`);
    const header: string[] = [];
    for (let i = 0; i < fields; i++) {
      const name = (JSON.parse(this.row.toString('utf8', this.starts[i], this.ends[i])) as string).trim();
      checkColumnName(name, line, `the header (column ${i + 1})`);
      if (header.includes(name)) throw new FileError(line, `the header names column '${name}' twice`);
      header.push(name);
    }
    this.header = header;
    for (const name of header) this.columns.add(name);
    // JSON.stringify lists an object's integer-like keys first, ascending, then the rest in order.
    const probe = Object.create(null) as Record<string, number>;
    header.forEach((name, i) => (probe[name] = i));
    this.order = Object.keys(probe).map((name) => probe[name]);
    this.keys = this.order.map((i, k) => Buffer.from(`${k === 0 ? '{' : ','}${JSON.stringify(header[i])}:`));
    this.keyBytes = this.keys.reduce((sum, key) => sum + key.length, 0);
  }

  private roomInRow(n: number): void {
    if (this.at + n <= this.row.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.row.length * 2, this.at + n));
    this.row.copy(bigger, 0, 0, this.at);
    this.row = bigger;
  }
}

/** Writes `c` (a control character, `"` or `\`) as JSON.stringify does inside a string. */
function escapeInto(out: Buffer, at: number, c: number): number {
  out[at++] = BACKSLASH;
  switch (c) {
    case QUOTE:
    case BACKSLASH:
      out[at++] = c;
      return at;
    case 0x08:
      out[at++] = 0x62; // b
      return at;
    case 0x09:
      out[at++] = 0x74; // t
      return at;
    case 0x0a:
      out[at++] = 0x6e; // n
      return at;
    case 0x0c:
      out[at++] = 0x66; // f
      return at;
    case 0x0d:
      out[at++] = 0x72; // r
      return at;
    default:
      out[at++] = 0x75; // u00XX
      out[at++] = 0x30;
      out[at++] = 0x30;
      out[at++] = HEX.charCodeAt(c >> 4);
      out[at++] = HEX.charCodeAt(c & 15);
      return at;
  }
}
