// Whether given requests match a text query, without walking the text index: the same document
// (text-index.ts indexDocument of the stored input, output and note) through the same tokenizer, in a
// private in-memory FTS5 table of the connection, a chunk of rows at a time. ~90 µs of CPU per row
// (mostly building the document) against ~4 µs per candidate the index walk costs, so the explorer
// uses it only where the index walk would read far more rows: a text query combined with a rare
// filter, or sorted by another column (store/requests.ts, docs/performance.md).
import type { Db } from './db';
import { indexDocument, storedSearchText } from './text-index';

export interface StoredText {
  id: number;
  input: string;
  output: string;
  note: string | null;
}

/**
 * Characters that cannot fold into an ASCII letter or digit under unicode61 remove_diacritics 2
 * (which folds Latin letters with diacritics, ligatures and the like): ASCII, Greek, Cyrillic, CJK
 * punctuation, Hiragana, Katakana, Han and Hangul syllables (UTF-16 ranges: a faster test than
 * Unicode script classes).
 * A stored text made only of these holds an ASCII token only if its lowercased JSON holds it
 * literally (JSON escapes add characters, never remove letters; json-pack replaces only syntax).
 */
const NO_ASCII_FOLDING = /^[\x00-\x7f\u0370-\u03ff\u0400-\u04ff\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]*$/;
const ASCII_TOKEN = /^"([a-z0-9]+)"\*?$/;

/** The ASCII word tokens every match must contain (lowercase), read back from textQuery's `match`. */
function asciiTokens(match: string): string[] {
  return match
    .split(' AND ')
    .map((part) => ASCII_TOKEN.exec(part.toLowerCase())?.[1])
    .filter((t): t is string => t !== undefined);
}

/** False only when the stored text certainly lacks one of `tokens` (a cheap test before tokenizing). */
function mayMatch(tokens: string[], r: StoredText): boolean {
  if (tokens.length === 0) return true;
  const text = `${r.input}\n${r.output}\n${r.note ?? ''}`;
  const lower = text.toLowerCase();
  return tokens.every((t) => lower.includes(t)) || !NO_ASCII_FOLDING.test(text);
}

/** Answers remembered for the last query (a page and its count check the same rows). */
const REMEMBERED = 20_000;

export function createTextCheck(db: Db) {
  // Created on first use: must tokenize exactly as requests_fts does (migration 011).
  const prepare = () => {
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.text_check USING fts5(body,
      tokenize = 'unicode61 remove_diacritics 2', detail = none, content = '')`);
    return {
      insert: db.prepare<[number, string]>('INSERT INTO temp.text_check (rowid, body) VALUES (?, ?)'),
      match: db.prepare<[string], number>('SELECT rowid FROM temp.text_check WHERE text_check MATCH ?').pluck(),
      clear: db.prepare<[]>("INSERT INTO temp.text_check (text_check) VALUES ('delete-all')"),
    };
  };
  let statements: ReturnType<typeof prepare> | undefined;
  let rememberedFor = '';
  const remembered = new Map<number, boolean>();

  /** For each row, whether its text matches the FTS5 query `match` (text-index.ts textQuery). */
  function matches(match: string, rows: StoredText[]): boolean[] {
    if (match !== rememberedFor || remembered.size > REMEMBERED) {
      remembered.clear();
      rememberedFor = match;
    }
    const tokens = asciiTokens(match);
    const unknown: StoredText[] = [];
    for (const r of rows) {
      if (remembered.has(r.id)) continue;
      if (mayMatch(tokens, r)) unknown.push(r);
      else remembered.set(r.id, false);
    }
    if (unknown.length > 0) {
      const s = (statements ??= prepare());
      const found = db.transaction(() => {
        for (const r of unknown) {
          const document = indexDocument(storedSearchText(r.input, r.output, r.note));
          s.insert.run(r.id, document);
        }
        const ids = new Set(s.match.all(match));
        s.clear.run();
        return ids;
      })();
      for (const r of unknown) remembered.set(r.id, found.has(r.id));
    }
    return rows.map((r) => remembered.get(r.id)!);
  }

  return {
    matches,
    /** Drops what is remembered of a request whose text changed (its note) or that was deleted
     * (a new request may reuse its id). */
    forget(id: number): void {
      remembered.delete(id);
    },
  };
}
