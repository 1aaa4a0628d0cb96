import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src-server/store/db';
import { migrate } from '../src-server/store/migrate';
import { createRequestStore } from '../src-server/store/requests';
import { migrations } from '../src-server/store/migrations';
import { chat, logBody } from './support/factories';
import { startServer, tempDir, type TestServer } from './support/server';

let t: TestServer;
const ids: Record<string, number> = {};
const minute = (m: number) => new Date(Date.UTC(2026, 10, 1, 12, m)).toISOString();

beforeAll(async () => {
  t = await startServer();
  const rows: Array<[string, Record<string, unknown>]> = [
    ['french', chat('Un café crème à Besançon, s’il vous plaît', 'Très bien.')],
    ['russian', chat('Какая погода в Москве?', 'Солнечно и тепло.')],
    ['japanese', chat('東京タワーの高さは？', '東京タワーは333メートルです。')],
    ['chinese', chat('机器学习模型的训练数据', '数据库索引很重要')],
    ['english', chat('Summarize the quarterly invoices', 'The invoices total 1,200 EUR.')],
    ['json', chat('{"customer_id": 7, "plan": "gold"}', 'ok')],
  ];
  for (const [i, [name, body]] of rows.entries()) {
    const res = await t.api('/log-request', { body: logBody({ ...body, request_start_time: minute(i), request_end_time: minute(i) }) });
    expect(res.status).toBe(201);
    ids[name] = res.body.id;
  }
});
afterAll(() => t.close());

const idsOf = async (q: string, extra = '') => {
  const res = await t.api(`/api/public/v2/requests?q=${encodeURIComponent(q)}${extra}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.items as Array<{ id: number }>).map((r) => r.id);
};

describe('text search (q)', () => {
  it('finds whole words and word prefixes, whatever the case', async () => {
    expect(await idsOf('invoices')).toEqual([ids.english]);
    expect(await idsOf('INVOICE')).toEqual([ids.english]);
    expect(await idsOf('quart')).toEqual([ids.english]);
    expect(await idsOf('qua')).toEqual([ids.english]);
    // One or two characters match that word only.
    expect(await idsOf('qu')).toEqual([]);
    expect(await idsOf('à')).toEqual([ids.french]);
    expect(await idsOf('summarize quarterly')).toEqual([ids.english]);
    // Every term must match.
    expect(await idsOf('invoices москве')).toEqual([]);
  });

  it('matches words, not the inside of words (outside Chinese and Japanese)', async () => {
    expect(await idsOf('voices')).toEqual([]);
    expect(await idsOf('arterly')).toEqual([]);
  });

  it('folds Latin accents both ways', async () => {
    expect(await idsOf('cafe')).toEqual([ids.french]);
    expect(await idsOf('café')).toEqual([ids.french]);
    expect(await idsOf('besancon')).toEqual([ids.french]);
    expect(await idsOf('CRÈME')).toEqual([ids.french]);
  });

  it('finds Cyrillic words and prefixes', async () => {
    expect(await idsOf('москве')).toEqual([ids.russian]);
    expect(await idsOf('Солн')).toEqual([ids.russian]);
  });

  it('finds any substring of Chinese and Japanese text, one character and up', async () => {
    expect(await idsOf('タワー')).toEqual([ids.japanese]);
    expect(await idsOf('京タ')).toEqual([ids.japanese]);
    expect(await idsOf('高')).toEqual([ids.japanese]);
    expect(await idsOf('333メートル')).toEqual([ids.japanese]);
    expect(await idsOf('学习模型')).toEqual([ids.chinese]);
    expect(await idsOf('索引很重要')).toEqual([ids.chinese]);
    expect(await idsOf('据')).toEqual([ids.chinese]);
    // Both characters pairs are present (模型, 数据), but not as one run.
    expect(await idsOf('模型数据')).toEqual([]);
  });

  it('does not match JSON keys or roles, only the text of messages', async () => {
    expect(await idsOf('assistant')).toEqual([]);
    expect(await idsOf('content')).toEqual([]);
    expect(await idsOf('messages')).toEqual([]);
    // Text that happens to be JSON is text: its words are found.
    expect(await idsOf('customer_id gold')).toEqual([ids.json]);
  });

  it('finds the text of thinking blocks and tool calls, not their other fields', async () => {
    const output = {
      type: 'chat',
      messages: [
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'Pondering zeppelins', signature: 'sigquokka' }, { type: 'text', text: 'Answered' }] },
        { role: 'assistant', content: '', tool_calls: [{ id: 'idwombat', type: 'function', function: { name: 'fetchnarwhal', arguments: '{"q":"okapi"}' } }] },
      ],
    };
    const res = await t.api('/log-request', { body: logBody({ output }) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    for (const word of ['zeppelins', 'fetchnarwhal', 'okapi']) expect(await idsOf(word), word).toEqual([res.body.id]);
    for (const word of ['sigquokka', 'idwombat']) expect(await idsOf(word), word).toEqual([]);
  });

  it('lists matches by start time even when a request is logged late', async () => {
    const s = await startServer();
    try {
      const logged: Record<string, number> = {};
      for (const [name, m] of [['new', 50], ['old', 10], ['middle', 30]] as const) {
        const res = await s.api('/log-request', { body: logBody({ ...chat(`lighthouse ${name}`, 'ok'), request_start_time: minute(m), request_end_time: minute(m) }) });
        logged[name] = res.body.id;
      }
      const page = async (cursor?: string) =>
        (await s.api(`/api/public/v2/requests?q=lighthouse&limit=1${cursor ? `&cursor=${cursor}` : ''}`)).body;
      const seen: number[] = [];
      let cursor: string | undefined;
      do {
        const body = await page(cursor);
        seen.push(...body.items.map((r: { id: number }) => r.id));
        cursor = body.next_cursor ?? undefined;
      } while (cursor);
      expect(seen).toEqual([logged.new, logged.middle, logged.old]);
      expect((await s.api('/api/public/v2/requests?q=lighthouse')).body.total_estimate).toBe(3);
    } finally {
      await s.close();
    }
  });
});

describe('migration 011', () => {
  it('rebuilds the text index of an existing database from its stored requests', async () => {
    const dataDir = tempDir();
    const db = new Database(join(dataDir, 'promptledger.db'));
    const before = migrations.filter((m) => m.id < '011');
    migrate(db, before);
    db.prepare("INSERT INTO workspaces (id, name, created_at) VALUES (1, 'Default', 0)").run();
    const insert = db.prepare(`INSERT INTO requests (workspace_id, provider, model, input, output, request_start_time,
      request_end_time, latency_ms, parameters, tags, metadata, prompt_input_variables, input_tokens, output_tokens, price,
      function_name, status, created_at, fts_key)
      VALUES (1, 'openai', 'gpt-4o', ?, ?, ?, ?, 0, '{}', '[]', '{}', '{}', 0, 0, 0, '', 'SUCCESS', 0, ?)`);
    const oldFts = db.prepare('INSERT INTO requests_fts (rowid, body) VALUES (?, ?)');
    const stored = [
      ['Where is the Eiffel tower?', 'In Paris.'],
      ['東京タワーの高さは？', '333メートル'],
      ['An empty answer', ''],
    ];
    for (const [i, [question, answer]] of stored.entries()) {
      const body = chat(question, answer) as { input: unknown; output: unknown };
      const key = BigInt(1_700_000_000_000 + i) * 1048576n;
      insert.run(JSON.stringify(body.input), JSON.stringify(body.output), 1_700_000_000_000 + i, 1_700_000_000_000 + i, key);
      oldFts.run(key, `${question}\n${answer}`);
    }
    db.close();

    const s = await startServer({ dataDir, apiKey: 'pl_migrated_key' });
    try {
      const found = async (q: string) =>
        (await s.api(`/api/public/v2/requests?q=${encodeURIComponent(q)}`)).body.items.map((r: { input: unknown }) => r.input);
      // Rows stored before json-pack are read as they were.
      expect(await found('eiff')).toEqual([(chat(stored[0][0], stored[0][1]) as { input: unknown }).input]);
      expect(await found('タワー')).toHaveLength(1);
      expect(await found('user')).toHaveLength(0);
      expect(await found('empty')).toHaveLength(1);
      // New requests go into the rebuilt index beside the migrated ones.
      await s.api('/log-request', { body: logBody(chat('Another tower question', 'yes')) });
      expect(await found('tower')).toHaveLength(2);
    } finally {
      await s.close();
    }
  });
});

describe('stored input and output (store/json-pack.ts)', () => {
  it('answers input and output exactly as logged, whatever JSON syntax their text holds', async () => {
    const s = await startServer();
    try {
      const input = {
        type: 'chat',
        messages: [
          { role: 'system', content: 'A plain string, with a \u0001 and a tab\t' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Quote: {"role":"user","content":[{"type":"text","text":"nested"}]} "}]}]} end' },
              { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
            ],
          },
          { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"city":"Paris"}' } }] },
          { role: 'tool', content: [{ type: 'text', text: '東京タワー' }], tool_call_id: 'call_1', extra: { z: 1, a: [null, true] } },
        ],
      };
      const output = { type: 'completion', content: 'Once upon a time', template_format: 'f-string' };
      const logged = await s.api('/log-request', { body: logBody({ input, output }) });
      expect(logged.status).toBe(201);
      const one = await s.api(`/api/public/v2/requests/${logged.body.id}`);
      expect(JSON.stringify(one.body.input)).toBe(JSON.stringify(input));
      expect(JSON.stringify(one.body.output)).toBe(JSON.stringify(output));
      const listed = await s.api('/api/public/v2/requests?q=nested');
      expect(JSON.stringify(listed.body.items[0].input)).toBe(JSON.stringify(input));
      expect(await s.api('/api/public/v2/requests?q=京タワ').then((r) => r.body.items.length)).toBe(1);
    } finally {
      await s.close();
    }
  });

  it('looks for a punctuation-only term in the JSON as logged, chat syntax included', async () => {
    const s = await startServer();
    try {
      const blocks = await s.api('/log-request', { body: logBody(chat('hello', 'world')) });
      await s.api('/log-request', { body: logBody({ input: { type: 'completion', content: 'hi' }, output: { type: 'completion', content: 'there' } }) });
      const found = async (q: string) =>
        (await s.api(`/api/public/v2/requests?q=${encodeURIComponent(q)}`)).body.items.map((r: { id: number }) => r.id);
      // `"}]}]}` closes a chat whose last message holds text blocks: stored packed, found as logged.
      expect(await found('"}]}]}')).toEqual([blocks.body.id]);
      expect(await found('{"')).toHaveLength(2);
    } finally {
      await s.close();
    }
  });
});

describe('text search combined with a rare filter (rows checked against the text, store/text-check.ts)', () => {
  it('finds what the index finds, in the same order, with the same count', async () => {
    const s = await startServer();
    try {
      const texts: Array<[string, string]> = [
        ['Un café crème à Besançon', 'Très bien, CAFÉ.'],
        ['Какая погода в Москве?', 'Солнечно.'],
        ['東京タワーの高さは？', '333メートルです。'],
        ['Summarize the quarterly invoices', 'The invoices total 1,200 EUR.'],
        ['ΚΑΛΗΜΕΡΑ café', 'naïve résumé'],
        ['Plain ascii about invoices', 'nothing else'],
      ];
      for (const [i, [question, answer]] of texts.entries()) {
        const at = minute(i);
        const res = await s.api('/log-request', {
          body: logBody({ ...chat(question, answer), tags: ['all'], request_start_time: at, request_end_time: at, latency_ms: undefined }),
        });
        expect(res.status).toBe(201);
      }
      const page = async (query: string) => {
        const res = await s.api(`/api/public/v2/requests?${query}`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return { ids: (res.body.items as Array<{ id: number }>).map((r) => r.id), total: res.body.total_estimate as number };
      };
      for (const q of ['cafe', 'CAFÉ', 'besancon', 'resume', 'naive', 'москве', 'Солн', 'タワー', '333メートル', 'invoice', 'INVOICES', 'qua', 'ascii invoices', 'καλημερα']) {
        const byIndex = await page(`q=${encodeURIComponent(q)}`);
        const checked = await page(`q=${encodeURIComponent(q)}&tags=all`);
        expect(checked, q).toEqual(byIndex);
        expect(byIndex.ids.length, q).toBeGreaterThan(0);
        for (const sort of ['sort=latency', 'sort=time&order=asc']) {
          expect(await page(`q=${encodeURIComponent(q)}&tags=all&${sort}`), `${q} ${sort}`).toEqual(await page(`q=${encodeURIComponent(q)}&${sort}`));
        }
      }
      // Paging through the checked rows: one per page, every match once, newest first.
      const seen: number[] = [];
      let cursor = '';
      for (;;) {
        const res = await s.api(`/api/public/v2/requests?q=invoices&tags=all&limit=1${cursor}`);
        seen.push(...res.body.items.map((r: { id: number }) => r.id));
        if (!res.body.next_cursor) break;
        cursor = `&cursor=${res.body.next_cursor}`;
      }
      expect(seen).toEqual((await page('q=invoices')).ids);
    } finally {
      await s.close();
    }
  });
});

describe('6,000 requests: counting a text search with other filters, sorting with a common tag', () => {
  it('counts exactly up to 1,000 within the newest 2,000 text matches and scales past them; sorts with a common tag as without it', async () => {
    const s = await startServer();
    try {
      // 6,000 requests through the store's insert path (the code /log-request uses), ids 1–6,000.
      const db = openDatabase(join(s.dataDir, 'promptledger.db'));
      const store = createRequestStore(db);
      db.transaction(() => {
        for (let i = 0; i < 6_000; i++) {
          const body = chat(`lighthouse keeper ${i}`, 'ok') as { input: unknown; output: unknown };
          store.insert({
            workspace_id: 1, provider: 'openai', model: 'gpt-4o', input: JSON.stringify(body.input), output: JSON.stringify(body.output),
            request_start_time: 1_700_000_000_000 + i * 1000, request_end_time: 1_700_000_000_000 + i * 1000, latency_ms: (i * 7919) % 1000,
            parameters: '{}', tags: i % 2 === 0 ? ['all', 'even'] : ['all'], metadata: {}, scores: i % 10 === 0 ? { default: 90 + (i % 7) } : {},
            prompt_id: null, prompt_name: null, prompt_version_number: null, prompt_version_id: null, prompt_input_variables: '{}',
            input_tokens: 0, output_tokens: 0, price: 0, price_source: 'none', function_name: '', status: 'SUCCESS',
            error_type: null, error_message: null, api_type: null, group_id: null, created_at: 0, span_id: null, trace_id: null,
            searchText: `lighthouse keeper ${i}`,
          });
        }
      })();
      db.close();
      const total = async (query: string) => {
        const res = await s.api(`/api/public/v2/requests?${query}`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return res.body.total_estimate as number;
      };
      // 3,000 matches, 1,000 of them among the newest: "1,000 or more", exactly as before.
      expect(await total('q=lighthouse&tags=even')).toBe(1_000);
      // 600 scored requests, one in ten: the newest 2,000 text matches hold 200 of them, scaled to
      // the 6,000 ids: 600.
      expect(await total('q=lighthouse&score_min=90')).toBe(600);
      // Text alone still counts exactly up to 1,000.
      expect(await total('q=lighthouse')).toBe(1_000);
      expect(await total('q=5999')).toBe(1);

      // Sorted by another column, a tag on more than 5,000 requests is checked per row of the
      // column's index instead of driving: same pages as without the tag (which every row has).
      const ids = async (query: string) => {
        const res = await s.api(`/api/public/v2/requests?${query}`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return { ids: (res.body.items as Array<{ id: number }>).map((r) => r.id), next: res.body.next_cursor as string | null };
      };
      for (const sort of ['sort=latency', 'sort=score&order=asc', 'sort=score', 'sort=cost&order=asc', 'q=keeper&sort=latency&order=asc']) {
        const plain = await ids(`${sort}&limit=20`);
        const tagged = await ids(`${sort}&tags=all&limit=20`);
        expect(tagged.ids, sort).toEqual(plain.ids);
        expect(tagged.ids, sort).toHaveLength(20);
        expect((await ids(`${sort}&tags=all&limit=20&cursor=${tagged.next}`)).ids, sort).toEqual((await ids(`${sort}&limit=20&cursor=${plain.next}`)).ids);
      }
    } finally {
      await s.close();
    }
  });
});
