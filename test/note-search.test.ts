import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chat, logBody } from './support/factories';
import { startServer, type TestServer } from './support/server';

/**
 * A review note's words find its request in the explorer's text search, like its messages' words;
 * changing or removing the note re-indexes the request, and every way the explorer answers a text
 * query (the index, or checking a rare filter's rows) agrees.
 */
let t: TestServer;

beforeAll(async () => {
  t = await startServer();
});
afterAll(() => t.close());

let tags = 0;
/** A request with its own tag (a rare filter), saying `text`. */
async function logged(text: string): Promise<{ id: number; tag: string }> {
  const tag = `note-search-${++tags}`;
  const res = await t.api('/log-request', { body: logBody({ ...chat(text, 'Noted.'), tags: [tag] }) });
  expect(res.status).toBe(201);
  return { id: res.body.id, tag };
}

const note = async (id: number, value: string | null) => {
  const res = await t.api(`/api/public/v2/requests/${id}`, { method: 'PATCH', body: { note: value } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};

/** The ids a text search lists, through the index alone and through a rare tag filter (row check). */
async function found(q: string, tag: string): Promise<{ index: number[]; checked: number[] }> {
  const list = async (query: string) => {
    const res = await t.api(`/api/public/v2/requests?limit=200&${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return (res.body.items as Array<{ id: number }>).map((r) => r.id);
  };
  const encoded = encodeURIComponent(q);
  return { index: await list(`q=${encoded}`), checked: await list(`q=${encoded}&tags=${tag}`) };
}

describe('text search over review notes', () => {
  it('finds a request by a word only its note has; a changed note no longer finds it by the old word', async () => {
    const { id, tag } = await logged('Summarise the quarterly figures');
    const other = await logged('Summarise the weekly figures');
    expect(await found('zanzibar', tag)).toEqual({ index: [], checked: [] });

    await note(id, 'The customer mentions Zanzibar twice.');
    expect(await found('zanzibar', tag)).toEqual({ index: [id], checked: [id] });
    // A prefix of a note's word, as for messages; the messages' words still find it.
    expect(await found('zanzib', tag)).toEqual({ index: [id], checked: [id] });
    expect(await found('quarterly', tag)).toEqual({ index: [id], checked: [id] });
    // Note and message words together.
    expect(await found('quarterly zanzibar', tag)).toEqual({ index: [id], checked: [id] });
    expect((await found('zanzibar', other.tag)).checked).toEqual([]);

    await note(id, 'Now about Kilimanjaro instead.');
    expect(await found('zanzibar', tag)).toEqual({ index: [], checked: [] });
    expect(await found('kilimanjaro', tag)).toEqual({ index: [id], checked: [id] });
    expect(await found('quarterly', tag)).toEqual({ index: [id], checked: [id] });

    await note(id, null);
    expect(await found('kilimanjaro', tag)).toEqual({ index: [], checked: [] });
    expect(await found('quarterly', tag)).toEqual({ index: [id], checked: [id] });
  });

  it('a request noted at once after it is logged is found by both its message and its note', async () => {
    // The note may land before or after the ingest thread indexes the request's messages: either
    // way the index holds both (the note's write takes the request off the ingest thread's queue).
    const { id, tag } = await logged('Translate the brochure about Lisbon');
    await note(id, 'Reviewer flagged Porto wording');
    expect(await found('lisbon porto', tag)).toEqual({ index: [id], checked: [id] });
    expect(await found('porto', tag)).toEqual({ index: [id], checked: [id] });
  });

  it('punctuation and Chinese/Japanese in a note are found like in messages', async () => {
    const { id, tag } = await logged('Plain request text');
    await note(id, 'ticket #42 --> 東京タワーの件');
    expect(await found('-->', tag)).toEqual({ index: [id], checked: [id] });
    expect(await found('東京タワー', tag)).toEqual({ index: [id], checked: [id] });
    expect(await found('タワー', tag)).toEqual({ index: [id], checked: [id] });
  });

  it('a deleted request is not found by its note', async () => {
    const { id, tag } = await logged('Something to delete');
    await note(id, 'ephemeral marmalade');
    expect(await found('marmalade', tag)).toEqual({ index: [id], checked: [id] });
    expect((await t.api(`/api/public/v2/requests/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await found('marmalade', tag)).toEqual({ index: [], checked: [] });
  });

  it('notes written before the note was indexed are indexed at the next start (migration 019)', async () => {
    const { id, tag } = await logged('Older request about Valparaiso');
    await note(id, 'older note on Antofagasta');
    // As a data file noted before this version: the index row holds the messages only.
    const db = t.server.db;
    db.prepare('DELETE FROM requests_fts WHERE rowid = ?').run(id);
    db.prepare('INSERT INTO requests_fts (rowid, body) SELECT id, search_document(input, output) FROM requests WHERE id = ?').run(id);
    db.prepare("DELETE FROM schema_migrations WHERE id = '019-note-text'").run();
    expect(await found('antofagasta', tag)).toEqual({ index: [], checked: [id] });

    await t.restart();
    expect(await found('antofagasta', tag)).toEqual({ index: [id], checked: [id] });
    expect(await found('valparaiso', tag)).toEqual({ index: [id], checked: [id] });
  });
});
