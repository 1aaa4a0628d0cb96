import { open } from 'node:fs/promises';
import type { Context } from 'koa';
import { StringDecoder } from 'node:string_decoder';
import { AppError } from '../errors';
import { jsonTooDeep, tooDeepMessage } from '../json-depth';
import { discardBody, requireJsonContentType } from './body';

/** Past this many bytes of an oversized body we stop draining it and drop the connection. */
const MAX_DRAIN_BYTES = 256 * 1024 * 1024;
/** The fields other than the file are a few ids and names; more than this is not a real client. */
const MAX_OTHER_FIELD_CHARS = 1024 * 1024;

export interface JsonUpload {
  /** Every top-level field except the file, parsed. */
  fields: Record<string, unknown>;
  /** Set when the file field was a string: its decoded bytes are in `path`. */
  file: { bytes: number } | null;
}

/**
 * Decoded bytes go to the spool file in writes of up to this size, or of what has arrived when the
 * socket has nothing more buffered: in 48 KiB writes (a socket chunk's worth) the 46 MB file took
 * ~210 ms of awaited writes, in 1 MiB writes ~40–70 ms.
 */
const SPOOL_BYTES = 1024 * 1024;

/** For the < 4 characters a piece leaves for the next one's first group. */
const BASE64_CHARS = /^[A-Za-z0-9+/=_-]*$/;

const malformed = (msg: string) =>
  new AppError('invalid_input', `Invalid request body: Malformed JSON: ${msg}`, [{ loc: ['body'], msg: `Malformed JSON: ${msg}`, type: 'json_invalid' }]);

/**
 * Reads a JSON object body whose `fileField` holds a base64 file, without ever holding the body:
 * the base64 text is decoded as it arrives and written to `path`; the other fields are small and
 * parsed normally. A 67 MB upload then costs a few chunks of memory instead of several copies
 * (raw body, string, parsed string, decoded buffer). Malformed JSON is 422; over `limitBytes` of
 * body is 413, decided from Content-Length or while reading (the rest is drained so a client
 * still sending reads the answer).
 */
export async function readJsonUpload(
  ctx: Context,
  options: { fileField: string; path: string; limitBytes: number; maxFileBytes: number },
): Promise<JsonUpload> {
  try {
    requireJsonContentType(ctx);
  } catch (error) {
    discardBody(ctx.req);
    throw error;
  }
  const declared = Number(ctx.get('content-length') || 0);
  const file = await open(options.path, 'w', 0o600);
  const scanner = new UploadScanner(options.fileField, (bytes) => file.write(bytes));
  const decoder = new StringDecoder('utf8');
  let size = 0;
  // The first problem found; the rest of the body is then drained, not parsed, so a client still
  // sending a large upload reads our answer instead of a reset connection.
  let failure: unknown = declared > options.limitBytes ? tooLarge(options.limitBytes) : undefined;
  try {
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (failure === undefined && size > options.limitBytes) failure = tooLarge(options.limitBytes);
      if (failure !== undefined) {
        if (size > options.limitBytes + MAX_DRAIN_BYTES) {
          ctx.req.destroy();
          break;
        }
        continue;
      }
      try {
        await scanner.feed(decoder.write(chunk));
        // Whatever has arrived is on disk before we wait for more of the body.
        if (ctx.req.readableLength === 0) await scanner.flush();
        if (scanner.fileBytes > options.maxFileBytes) {
          failure = new AppError('payload_too_large', `The file is larger than the limit of ${options.maxFileBytes} bytes.`);
        }
      } catch (error) {
        failure = error;
      }
    }
    if (failure !== undefined) {
      if (failure instanceof AppError && failure.code === 'payload_too_large') ctx.set('Connection', 'close');
      throw failure;
    }
    await scanner.feed(decoder.end());
    return scanner.finish();
  } finally {
    await file.close();
  }
}

const tooLarge = (limit: number) => new AppError('payload_too_large', `Request body is larger than the limit of ${limit} bytes.`);

type State = 'start' | 'key' | 'colon' | 'value' | 'file' | 'other' | 'afterValue' | 'done';

/** A scanner for one flat JSON object, fed text as it arrives. */
class UploadScanner {
  private state: State = 'start';
  private key = '';
  private keyEscaped = false;
  private other: string[] = [];
  private otherChars = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private base64Tail = '';
  private fileEscape = false;
  private decoded = 0;
  private sawFile = false;
  /** Decoded bytes not yet written: `spool[0 .. spooled)`. Starts at 64 KiB and doubles up to
   * SPOOL_BYTES + 64 KiB as the file needs it: see row-batch.ts on why a small upload should not
   * allocate (and free) the full 1 MiB. */
  private spool = Buffer.allocUnsafe(64 * 1024);
  private spooled = 0;
  private readonly fields: Record<string, unknown> = {};

  constructor(
    private readonly fileField: string,
    private readonly write: (bytes: Buffer) => Promise<unknown>,
  ) {}

  /** Bytes of the file decoded so far. */
  get fileBytes(): number {
    return this.decoded;
  }

  async feed(text: string): Promise<void> {
    let i = 0;
    while (i < text.length) {
      if (this.state === 'file') i = await this.scanFile(text, i);
      else if (this.state === 'other') i = this.scanOther(text, i);
      else i = this.scanStructure(text, i);
    }
  }

  /** Inside the file's string: decodes up to its closing quote or the end of this text. */
  private async scanFile(text: string, i: number): Promise<number> {
    // Base64 has no quotes or backslashes, so the string ends at the first unescaped quote.
    let end = i;
    let piece = '';
    while (end < text.length) {
      const c = text[end];
      if (this.fileEscape) {
        this.fileEscape = false;
        if (c === '/') piece += '/';
        else if (!'nrt'.includes(c)) throw malformed(`unsupported escape "\\${c}" in ${this.fileField}`);
        end++;
        continue;
      }
      const q = text.indexOf('"', end);
      const b = text.indexOf('\\', end);
      const stop = q === -1 ? (b === -1 ? text.length : b) : b === -1 ? q : Math.min(q, b);
      piece += text.slice(end, stop);
      end = stop;
      if (stop === text.length) break;
      if (text[stop] === '\\') {
        this.fileEscape = true;
        end++;
        continue;
      }
      break;
    }
    await this.decode(piece);
    if (end < text.length && text[end] === '"') {
      await this.decode('', true);
      this.sawFile = true;
      this.state = 'afterValue';
      end++;
    }
    return end;
  }

  finish(): JsonUpload {
    if (this.state === 'start') throw malformed('expected a JSON object');
    if (this.state !== 'done') throw malformed('unexpected end of the body');
    return { fields: this.fields, file: this.sawFile ? { bytes: this.decoded } : null };
  }

  private async decode(chars: string, final = false): Promise<void> {
    if (await this.tryDecode(chars, final)) return;
    // Whitespace (line-wrapped base64) is dropped; looked for only when the plain text fails.
    const stripped = chars.replace(/\s+/g, '');
    if (stripped === chars || !(await this.tryDecode(stripped, final))) throw invalidBase64(this.fileField);
  }

  /**
   * Decodes `chars`' whole base64 groups (after the last piece's tail) into one reused buffer,
   * written out once it holds SPOOL_BYTES; false, having written nothing, if they are not base64. Node's decoder skips a
   * character outside the alphabet and stops at a `=` inside the text, so a piece is base64 iff it
   * is ASCII and decodes to as many bytes as its length says: a native length check where a regex
   * over every character cost ~160 ms of a 62 MB upload (docs/performance.md, importfast). The
   * last piece's tail (< 4 characters) completes a group with the start of this one; the rest
   * decodes from a slice of the piece, never a concatenated copy of it.
   */
  private async tryDecode(chars: string, final: boolean): Promise<boolean> {
    if (Buffer.byteLength(chars, 'utf8') !== chars.length) return false;
    const tail = this.base64Tail;
    const need = tail.length > 0 ? 4 - tail.length : 0;
    if (need > 0 && chars.length < need && !final) {
      if (!BASE64_CHARS.test(chars)) return false;
      this.base64Tail += chars;
      return true;
    }
    const head = need > 0 ? tail + chars.slice(0, need) : '';
    const body = need > 0 ? chars.slice(need) : chars;
    const usable = final ? body.length : body.length - (body.length % 4);
    const rest = body.slice(usable);
    if (!BASE64_CHARS.test(rest)) return false;
    const groups = usable === body.length ? body : body.slice(0, usable);
    const most = Math.ceil(head.length / 4) * 3 + Math.ceil(usable / 4) * 3;
    if (this.spooled + most > this.spool.length && this.spool.length >= SPOOL_BYTES) await this.flush();
    if (this.spooled + most > this.spool.length) this.growSpool(this.spooled + most);
    const at = this.spooled;
    let length = head.length > 0 ? this.spool.write(head, at, 'base64') : 0;
    if (length !== decodedLength(head)) return false;
    if (usable > 0) {
      const written = this.spool.write(groups, at + length, 'base64');
      if (written !== decodedLength(groups)) return false;
      length += written;
    }
    this.base64Tail = rest;
    this.decoded += length;
    this.spooled += length;
    if (final || this.spooled >= SPOOL_BYTES) await this.flush();
    return true;
  }

  /** A spool of at least `bytes`, twice the current one up to SPOOL_BYTES + 64 KiB, with what is spooled copied over. */
  private growSpool(bytes: number): void {
    const bigger = Buffer.allocUnsafe(Math.max(bytes, Math.min(this.spool.length * 2, SPOOL_BYTES + 64 * 1024)));
    this.spool.copy(bigger, 0, 0, this.spooled);
    this.spool = bigger;
  }

  /** Writes what is decoded and not yet written. */
  async flush(): Promise<void> {
    if (this.spooled === 0) return;
    const bytes = this.spool.subarray(0, this.spooled);
    this.spooled = 0;
    await this.write(bytes);
  }

  /** Between values: braces, keys, colons, commas. Returns the index after what it consumed. */
  private scanStructure(text: string, i: number): number {
    const c = text[i];
    if (this.state === 'key') {
      for (let j = i; j < text.length; j++) {
        if (this.keyEscaped) this.keyEscaped = false;
        else if (text[j] === '\\') this.keyEscaped = true;
        else if (text[j] === '"') {
          this.key += text.slice(i, j);
          this.state = 'colon';
          return j + 1;
        }
      }
      this.key += text.slice(i);
      if (this.key.length > MAX_OTHER_FIELD_CHARS) throw malformed('a key is too long');
      return text.length;
    }
    if (c === ' ' || c === '\n' || c === '\r' || c === '\t') return i + 1;
    switch (this.state) {
      case 'start':
        if (c !== '{') throw malformed('expected a JSON object');
        this.state = 'afterValue';
        this.key = '';
        this.expectKeyOrEnd = true;
        return i + 1;
      case 'colon':
        if (c !== ':') throw malformed(`expected ":" after a key`);
        this.state = 'value';
        return i + 1;
      case 'value':
        if (c === '"' && this.parsedKey() === this.fileField) {
          this.state = 'file';
          return i + 1;
        }
        this.state = 'other';
        this.other = [];
        this.otherChars = 0;
        this.depth = 0;
        this.inString = false;
        return i;
      case 'afterValue':
        if (c === '}' ) {
          this.state = 'done';
          return i + 1;
        }
        if (this.expectKeyOrEnd && c === '"') {
          this.expectKeyOrEnd = false;
          this.key = '';
          this.state = 'key';
          return i + 1;
        }
        if (!this.expectKeyOrEnd && c === ',') {
          this.expectKeyOrEnd = true;
          return i + 1;
        }
        throw malformed(`unexpected "${c}"`);
      case 'done':
        throw malformed('unexpected content after the object');
      case 'file':
      case 'other':
        throw new Error(`scanStructure called in state ${this.state}`);
    }
  }

  private expectKeyOrEnd = false;

  private parsedKey(): string {
    try {
      return JSON.parse(`"${this.key}"`) as string;
    } catch {
      throw malformed('a key is not a valid JSON string');
    }
  }

  /** A value we keep: gathered until it ends, then parsed with JSON.parse. */
  private scanOther(text: string, i: number): number {
    let j = i;
    let ended = false;
    for (; j < text.length; j++) {
      const c = text[j];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === '\\') this.escaped = true;
        else if (c === '"') {
          this.inString = false;
          if (this.depth === 0) {
            j++;
            ended = true;
            break;
          }
        }
        continue;
      }
      if (c === '"') this.inString = true;
      else if (c === '{' || c === '[') this.depth++;
      else if (c === '}' || c === ']') {
        if (this.depth === 0) {
          ended = true;
          break;
        }
        this.depth--;
        if (this.depth === 0) {
          j++;
          ended = true;
          break;
        }
      } else if (c === ',' && this.depth === 0) {
        ended = true;
        break;
      }
    }
    this.other.push(text.slice(i, j));
    this.otherChars += j - i;
    if (this.otherChars > MAX_OTHER_FIELD_CHARS) throw malformed(`field '${this.parsedKey()}' is larger than ${MAX_OTHER_FIELD_CHARS} characters`);
    if (ended) {
      const raw = this.other.join('').trim();
      if (jsonTooDeep(raw)) throw malformed(tooDeepMessage);
      try {
        this.fields[this.parsedKey()] = JSON.parse(raw);
      } catch (error) {
        throw malformed((error as Error).message);
      }
      this.state = 'afterValue';
    }
    return j;
  }
}

/**
 * Bytes that base64 text (standard or URL-safe alphabet, padded or not) decodes to; -1 when no
 * base64 text has its length (one character past whole groups).
 */
function decodedLength(text: string): number {
  let chars = text.length;
  while (chars > 0 && text.charCodeAt(chars - 1) === 0x3d) chars--;
  return chars % 4 === 1 ? -1 : Math.floor((chars * 3) / 4);
}

function invalidBase64(field: string): AppError {
  const msg = 'Not valid base64';
  return new AppError('invalid_input', `Invalid field '${field}': ${msg}`, [{ loc: ['body', field], msg, type: 'value_error' }]);
}
