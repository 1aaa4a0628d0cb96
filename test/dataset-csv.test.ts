import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { FileError } from '../src-server/services/dataset-file';
import { parseFile } from '../src-server/services/dataset-parse';
import { RowBatch } from '../src-server/services/row-batch';

// The CSV reader works on bytes, without papaparse's strings. It must read every file as the
// papaparse reader it replaced did: same rows, same stored text, same error on the same line.

/** The reader it replaced: papaparse over the text, records stringified, lines counted the same way. */
function reference(bytes: Buffer): { rows: string[]; columns: string[] } | { error: string } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { error: 'utf8' };
  }
  if (text.trim() === '') return { error: 'line 1: the file is empty: a CSV needs a header row' };
  const guess = Papa.parse<string[]>(text.slice(0, 64 * 1024), { preview: 20, skipEmptyLines: true, delimitersToGuess: [',', ';', '\t'] });
  const parsed = Papa.parse<string[]>(text, { delimiter: guess.meta.delimiter, newline: guess.meta.linebreak as '\n' });
  const quoteError = parsed.errors.find((e) => e.type === 'Quotes');
  let line = 1;
  let header: string[] | null = null;
  const rows: string[] = [];
  for (let i = 0; i < parsed.data.length; i++) {
    const fields = parsed.data[i];
    const start = line;
    line += 1;
    for (const f of fields) line += f.split('\n').length - 1;
    if (quoteError && quoteError.row === i) return { error: `line ${start}: ${quoteError.message.toLowerCase()} (check the quotes)` };
    if (fields.length === 1 && fields[0] === '') continue;
    if (!header) {
      header = fields.map((f) => f.trim());
      if (header.some((h) => h === '') || new Set(header).size !== header.length) return { error: 'header' };
      continue;
    }
    if (fields.length !== header.length) {
      return { error: `line ${start}: ${fields.length} field${fields.length === 1 ? '' : 's'}, but the header has ${header.length} column${header.length === 1 ? '' : 's'}` };
    }
    const record = Object.create(null) as Record<string, string>;
    header.forEach((name, k) => (record[name] = fields[k]));
    rows.push(JSON.stringify(record));
  }
  if (!header) return { error: 'line 1: the file is empty: a CSV needs a header row' };
  return { rows, columns: header };
}

async function read(bytes: Buffer, cuts: number[]): Promise<{ rows: string[]; columns: string[] } | { error: string }> {
  async function* chunks() {
    let at = 0;
    for (const cut of [...cuts, bytes.length]) {
      if (cut > at) yield bytes.subarray(at, cut);
      at = Math.max(at, cut);
    }
  }
  try {
    const source = await parseFile('csv', chunks());
    const batch = new RowBatch();
    for await (const _ of source.writeRows(batch));
    const rows = Array.from({ length: batch.count }, (_, i) => batch.bytes.toString('utf8', i === 0 ? 0 : batch.ends[i - 1], batch.ends[i]));
    return { rows, columns: [...source.columns] };
  } catch (error) {
    if (!(error instanceof FileError)) throw error;
    if (/UTF-8/.test(error.message)) return { error: 'utf8' };
    if (/column name|names column/.test(error.message)) return { error: 'header' };
    return { error: error.message };
  }
}

/** A small seeded generator, so a failure names a file that can be made again. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const PIECES = ['a', 'b', 'xyz', ' ', '  ', ',', ';', '\t', '"', '""', '\n', '\r\n', '\r', '東京', 'é', '😀', '\\', '\u0001', '\u001f', '\u007f', '\u00a0', '\u2028', '\u3000', '1', '"q"'];

function randomCsv(next: () => number): string {
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)];
  const delimiter = pick([',', ',', ';', '\t']);
  const newline = pick(['\n', '\n', '\r\n', '\r']);
  const columns = 1 + Math.floor(next() * 4);
  const names = Array.from({ length: columns }, (_, i) => pick(['id', 'name', ' text ', '2', '10', '__proto__', 'a b', `c${i}`]) + (i > 0 ? String(i) : ''));
  const lines = [names.map((n) => (next() < 0.3 ? `"${n}"` : n)).join(delimiter)];
  const rows = Math.floor(next() * 8);
  for (let r = 0; r < rows; r++) {
    if (next() < 0.1) {
      lines.push('');
      continue;
    }
    const count = next() < 0.9 ? columns : 1 + Math.floor(next() * 5);
    const fields = Array.from({ length: count }, () => {
      const text = Array.from({ length: Math.floor(next() * 5) }, () => pick(PIECES)).join('');
      const kind = next();
      // Well-formed quoting mostly, sometimes raw pieces that may break it, sometimes spaces after the quote.
      if (kind < 0.45) return `"${text.replaceAll('"', '""')}"`;
      if (kind < 0.5) return `"${text.replaceAll('"', '""')}"${pick([' ', '  ', '\t', 'x'])}`;
      if (kind < 0.9) return text.replace(/["\n\r,;\t]/g, '');
      return text;
    });
    lines.push(fields.join(delimiter));
  }
  return (next() < 0.1 ? '\uFEFF' : '') + lines.join(newline) + (next() < 0.5 ? newline : '');
}

describe('CSV reader', () => {
  it('reads 400 random files as papaparse did, whatever the chunk boundaries', async () => {
    for (let seed = 1; seed <= Number(process.env.CSV_FUZZ_FILES ?? 400); seed++) {
      const next = random(seed);
      const bytes = Buffer.from(randomCsv(next));
      const cuts = Array.from({ length: Math.floor(next() * 6) }, () => Math.floor(next() * bytes.length)).sort((a, b) => a - b);
      const expected = reference(bytes);
      const got = await read(bytes, cuts);
      expect({ seed, ...got }).toEqual({ seed, ...expected });
    }
  });

  it('reads a character cut in two by a chunk boundary, and rejects bytes that are not UTF-8', async () => {
    const bytes = Buffer.from('name,city\nA,東京\nB,😀\n');
    for (let cut = 1; cut < bytes.length; cut++) expect(await read(bytes, [cut])).toEqual(reference(bytes));
    expect(await read(Buffer.from([0x61, 0x0a, 0xff, 0x0a]), [])).toEqual({ error: 'utf8' });
    expect(await read(Buffer.from([0x61, 0x0a, 0xe6, 0x9d]), [3])).toEqual({ error: 'utf8' });
  });

  it('writes control characters, quotes and backslashes as JSON.stringify does', async () => {
    const value = 'a\u0000\u0008\t\u000b\u000c\u001f"\\\u007f\u2028東';
    const bytes = Buffer.from(`v\n"${value.replaceAll('"', '""')}"\n`);
    expect(await read(bytes, [])).toEqual({ rows: [JSON.stringify({ v: value })], columns: ['v'] });
  });
});
