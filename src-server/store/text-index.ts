// The full-text index of logged requests (`requests_fts`, migration 011): the one place that
// writes, deletes and queries it, so insert, delete and retention keep it in step.
//
// What is indexed: the words of message text (not JSON keys, roles or syntax), folded
// (case, Latin diacritics) by FTS5's unicode61 tokenizer, plus every pair of neighbouring
// characters of each Chinese/Japanese run (they have no spaces between words), so any substring of
// such a run is found. `detail=none` keeps only which request holds a token (no positions) and the
// rowid is the request's id (small deltas): ~450 bytes per ~2 KB request instead of the trigram
// index's ~5,100 (docs/performance.md). Prefix indexes of 3 and 4 characters make a word-prefix
// search one doclist read instead of a merge of every word it starts (179 ms for a 4-character
// prefix of 66% of 100,000 requests without one, 0.3 ms with).
import type { Db } from './db';
import { unpackJson } from './json-pack';

/**
 * The words a person would search for in a template: message and block text, tool-call arguments
 * — not JSON keys or roles, which would make every request match "user" or "content".
 */
export function searchText(...templates: unknown[]): string {
  const parts: string[] = [];
  for (const template of templates) {
    if (!template || typeof template !== 'object') continue;
    const t = template as { content?: unknown; messages?: unknown };
    pushBlockText(parts, t.content);
    if (!Array.isArray(t.messages)) continue;
    for (const message of t.messages as Array<Record<string, unknown>>) {
      pushBlockText(parts, message?.content);
      if (!Array.isArray(message?.tool_calls)) continue;
      for (const call of message.tool_calls as Array<{ function?: { name?: unknown; arguments?: unknown } }>) {
        if (typeof call?.function?.name === 'string') parts.push(call.function.name);
        if (typeof call?.function?.arguments === 'string') parts.push(call.function.arguments);
      }
    }
  }
  return parts.join('\n');
}

/**
 * A stored request's searchable text: its input's and output's (`searchText`) and its review note,
 * whose words a reviewer searches for like the messages' (API.md §7 Review). The note is written
 * after the request, so setting or changing it replaces the request's whole row in the index
 * (requests.ts `setNote`).
 */
export function storedSearchText(input: string, output: string, note: string | null): string {
  const text = searchText(JSON.parse(unpackJson(input)), JSON.parse(unpackJson(output)));
  return note ? `${text}\n${note}` : text;
}

/** A message's or template's content (a string, or blocks with `text`/`thinking`) into `parts`.
 * A function of its own, not a closure: searchText runs on the HTTP thread for every logged request. */
function pushBlockText(parts: string[], content: unknown): void {
  if (typeof content === 'string') return void parts.push(content);
  if (!Array.isArray(content)) return;
  for (const block of content) {
    if (typeof block === 'string') parts.push(block);
    else if (block && typeof block === 'object') {
      const { text, thinking } = block as Record<string, unknown>;
      if (typeof text === 'string') parts.push(text);
      if (typeof thinking === 'string') parts.push(thinking);
    }
  }
}

/** Runs of Chinese and Japanese characters (with the prolonged sound mark and the repetition mark). */
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30fc\u3005]+/gu;
/** unicode61's token characters (its default categories L*, N*, Co); everything else separates. */
const WORD = /[\p{L}\p{N}\p{Co}]+/gu;

/** A run as its overlapping pairs plus its last character, so every character starts a token. */
function bigrams(run: string): string[] {
  const chars = [...run];
  const out: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
  out.push(chars[chars.length - 1]);
  return out;
}

/**
 * Runs of code units from U+2E80 up: every Chinese/Japanese character is one of them (astral Han as
 * surrogates), so CJK_RUN is only tried inside these runs, with the same result. Tried at every
 * position of the text, its Unicode-property classes made indexDocument ~24 µs of the ingest
 * thread per ~1.5 KB corpus.ts request; now ~8 µs (docs/performance.md).
 */
const HIGH_RUN = /[\u2e80-\uffff]+/g;

/** The text as the index stores it: words as they are, Chinese/Japanese runs as character pairs. */
export function indexDocument(text: string): string {
  return text.normalize('NFC').replace(HIGH_RUN, (high) => high.replace(CJK_RUN, (run) => ` ${bigrams(run).join(' ')} `));
}

/** How a `q` is answered: an FTS5 query, substrings to confirm in the stored text, terms with no
 * indexable character (matched by a scan of the stored text, as `%` or `--` would be). */
export interface TextQuery {
  match: string | null;
  confirm: string[];
  scan: string[];
}

/** Shortest word matched as a prefix: the shortest prefix index (migration 011). */
const MIN_PREFIX = 3;

const phrase = (token: string) => `"${token.replaceAll('"', '""')}"`;

/**
 * Every whitespace-separated term must match. A word of 3+ characters matches as a prefix
 * (`weath` finds "weather"); one of 1–2 characters only that word (no prefix index covers it, and
 * merging every word starting with `a` would read most of the index); a
 * Chinese/Japanese run matches anywhere inside a run: its character pairs all present, then the
 * run itself confirmed in the stored text (the index holds no positions).
 */
export function textQuery(q: string): TextQuery {
  const tokens: string[] = [];
  const confirm: string[] = [];
  const scan: string[] = [];
  for (const term of q.normalize('NFC').split(/\s+/).filter(Boolean)) {
    const before = tokens.length;
    for (const part of term.split(CJK_RUN)) {
      for (const [word] of part.matchAll(WORD)) tokens.push([...word].length >= MIN_PREFIX ? `${phrase(word)}*` : phrase(word));
    }
    for (const [run] of term.matchAll(CJK_RUN)) {
      const chars = [...run];
      if (chars.length === 1) tokens.push(`${phrase(run)}*`);
      else tokens.push(...bigrams(run).slice(0, -1).map(phrase));
      if (chars.length > 2) confirm.push(run);
    }
    if (tokens.length === before) scan.push(term);
  }
  return { match: tokens.length > 0 ? [...new Set(tokens)].join(' AND ') : null, confirm, scan };
}

/** Ids are grouped in blocks of 2^BLOCK_BITS for the newest-start bound (see createTextIndex). */
export const BLOCK_BITS = 10;

/**
 * Registers `search_document(input, output[, note])`, the index document of a stored request, for
 * the rebuilds of migrations 011 and 019; call on every connection before migrating.
 */
export function registerTextFunctions(db: Db): void {
  db.function('search_document', { deterministic: true, varargs: true }, (input: unknown, output: unknown, note: unknown) =>
    indexDocument(storedSearchText(String(input), String(output), typeof note === 'string' ? note : null)),
  );
}

/**
 * FTS5 merges its segments as it writes: once `automerge` segments of a level exist, it merges them
 * into one of the next level, a slice of that work in each transaction that writes a segment. At
 * 16 (not FTS5's default 4, which rewrote each request's tokens at every level: 766 → 601 µs per
 * row on 1,000,000 requests) a slice could still hold the write lock for ~300–500 ms there
 * (docs/performance.md), and an ingest batch arriving meanwhile waited for it. So writes merge
 * nothing themselves (`automerge` 0): the ingest thread merges between batches, in steps of
 * MERGE_STEP pages (`createTextQueue` `mergeSome`), levels of USERMERGE segments as before, and a
 * level reaching CRISISMERGE (writers that are not the ingest thread, or merges falling behind) is
 * merged whole by the write that gets it there, as FTS5 does.
 */
const USERMERGE = 16;
const CRISISMERGE = 64;
/** Leaf pages (~4 KB each) merged per step: measured 8.4–21.8 ms of write lock at most on 1,000,000 requests. */
export const MERGE_STEP = 32;
/**
 * Pages of merging owed per text chunk written, done in MERGE_STEP steps between batches. 128 kept
 * up with 200-request chunks on 1,000,000 requests (the steps found nothing left to merge before
 * it ran out) at a longest step of 8.4–21.8 ms, where FTS5's own merging inside a chunk held the
 * lock up to ~290–390 ms.
 */
export const MERGE_PER_CHUNK = 128;

/** The index's merge policy, set by the ingest thread (its writer) when it opens; stored in the
 * index's own config, so every connection writes with it. Writes only what differs. */
export function configureTextIndexWrites(db: Db): void {
  const config = db.prepare<[string], { v: number }>('SELECT v FROM requests_fts_config WHERE k = ?');
  for (const [key, value] of [['automerge', 0], ['usermerge', USERMERGE], ['crisismerge', CRISISMERGE]] as const) {
    if (config.get(key)?.v !== value) db.exec(`INSERT INTO requests_fts (requests_fts, rank) VALUES ('${key}', ${value})`);
  }
}

export function createTextIndex(db: Db) {
  const insert = db.prepare('INSERT INTO requests_fts (rowid, body) VALUES (?, ?)');
  const remove = db.prepare('DELETE FROM requests_fts WHERE rowid = ?');
  // The newest request_start_time among ids up to each block: the index yields matches by id, the
  // explorer lists by start time, and this bound says when no older id can still make the page.
  const noteStart = db.prepare(`
    INSERT INTO request_time_blocks (block, max_start) VALUES (?, ?)
    ON CONFLICT (block) DO UPDATE SET max_start = max(max_start, excluded.max_start)`);
  const blocks = db.prepare<[], { block: number; max_start: number }>(
    'SELECT block, max_start FROM request_time_blocks ORDER BY block',
  );
  return {
    /** Indexes a new request's text: inside the transaction that inserts it, or (the ingest thread's
     * `createTextQueue`) the one that takes its id off `text_unindexed`; `noteStart` its start with the insert. */
    add(id: number, text: string): void {
      const document = indexDocument(text);
      if (document.trim()) insert.run(id, document);
    },
    /** Raises block `block`'s newest start (ids `block << BLOCK_BITS` onwards) to at least `startTime`. */
    noteStart(block: number, startTime: number): void {
      noteStart.run(block, startTime);
    },
    /** Drops a request's tokens; call inside the transaction that deletes the request. */
    remove(id: number): void {
      remove.run(id);
    },

    /**
     * For each block, the newest start time among all ids up to its end. Deleting requests leaves
     * the bound as it was, which keeps it an upper bound.
     */
    newestStartUpTo(): (id: number) => number {
      const rows = blocks.all();
      const keys = rows.map((r) => r.block);
      const bound: number[] = [];
      for (const r of rows) bound.push(Math.max(bound.at(-1) ?? -Infinity, r.max_start));
      return (id) => {
        const block = Math.floor(id / 2 ** BLOCK_BITS);
        let lo = 0;
        let hi = keys.length - 1;
        let found = -1;
        while (lo <= hi) {
          const mid = (lo + hi) >> 1;
          if (keys[mid] <= block) (found = mid), (lo = mid + 1);
          else hi = mid - 1;
        }
        return found < 0 ? -Infinity : bound[found];
      };
    },
  };
}

export type TextIndex = ReturnType<typeof createTextIndex>;

/**
 * The ingest thread's text to index later (docs/decisions.md, "Text search after an
 * acknowledgement"). A request's transaction stores its row and an id in `text_unindexed`
 * (requests.ts, with `textLater`); once it commits, its text is `add`ed here, and `indexSome`
 * later writes a chunk of them to the index in one transaction, each only if its id is still in
 * `text_unindexed` — the request may have been deleted meanwhile (the delete removes the id in its
 * own transaction), and a new request may then reuse its id, which `add` keeps by replacing the
 * older text. `recover` reads what a crash left in `text_unindexed` from the stored JSON.
 */
export function createTextQueue(db: Db) {
  const text = createTextIndex(db);
  const take = db.prepare<[number]>('DELETE FROM text_unindexed WHERE id = ?');
  const leftovers = db.prepare<[], { id: number; input: string | null; output: string | null; note: string | null }>(
    'SELECT u.id AS id, r.input AS input, r.output AS output, r.note AS note FROM text_unindexed u LEFT JOIN requests r ON r.id = u.id ORDER BY u.id',
  );
  const merge = db.prepare<[number]>("INSERT INTO requests_fts (requests_fts, rank) VALUES ('merge', ?)");
  const totalChanges = db.prepare<[], number>('SELECT total_changes()').pluck();
  const pending = new Map<number, string>();
  const add = (id: number, body: string) => {
    pending.delete(id);
    pending.set(id, body);
  };
  const write = db.transaction((entries: Array<[number, string]>) => {
    for (const [id, body] of entries) if (take.run(id).changes > 0) text.add(id, body);
  });
  return {
    /** Text of a committed request, to index later; a reused id's newer text replaces the older. */
    add,
    get size(): number {
      return pending.size;
    },
    /**
     * Indexes up to `limit` of the oldest entries in one transaction (`commit` wraps it, say to
     * skip the fsync: a lost index transaction leaves its ids in `text_unindexed`). On failure the
     * entries stay queued. Returns how many were taken.
     */
    indexSome(limit: number, commit: (work: () => void) => void = (work) => work()): number {
      const entries: Array<[number, string]> = [];
      for (const entry of pending) {
        if (entries.length === limit) break;
        entries.push(entry);
      }
      if (entries.length === 0) return 0;
      commit(() => write(entries));
      for (const [id] of entries) pending.delete(id);
      return entries.length;
    },
    /**
     * Up to `pages` leaf pages of merging where a level holds USERMERGE segments or a merge is under
     * way, in one transaction (`commit` as for indexSome: a lost merge leaves the segments as they
     * were). False when there was nothing to merge (FTS5 then changes fewer than two rows).
     */
    mergeSome(pages: number, commit: (work: () => void) => void = (work) => work()): boolean {
      const before = totalChanges.get()!;
      commit(() => merge.run(pages));
      return totalChanges.get()! - before >= 2;
    },
    /** Queues what a previous run left unindexed (a crash, a failed index write), from the stored JSON. */
    recover(): number {
      const orphans: Array<[number, string]> = [];
      let queued = 0;
      for (const row of leftovers.all()) {
        if (row.input === null || row.output === null) {
          orphans.push([row.id, '']);
          continue;
        }
        add(row.id, storedSearchText(row.input, row.output, row.note));
        queued++;
      }
      // Ids whose request is gone: nothing to index (deletes remove them too; belt and braces).
      if (orphans.length > 0) write(orphans);
      return queued;
    },
  };
}

export type TextQueue = ReturnType<typeof createTextQueue>;
