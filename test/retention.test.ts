import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { publishDataset } from './support/evaluations';
import { chat, logBody } from './support/factories';
import { dataFiles } from '../src-server/data-dir';
import { migrate } from '../src-server/store/migrate';
import { openSqlite } from '../src-server/store/sqlite';
import { startServer, tempDir, type TestServer } from './support/server';

const DAY = 86_400_000;
/** API.md §7: a new setting takes effect within 10 s. */
const TAKES_EFFECT_MS = 10_000;

const daysAgo = (days: number) => new Date(Date.now() - days * DAY).toISOString();

async function logAt(t: TestServer, when: string, text: string, extra: Record<string, unknown> = {}): Promise<number> {
  const res = await t.api('/log-request', { body: logBody({ ...chat(text), request_start_time: when, request_end_time: when, ...extra }) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as number;
}

/** An OTLP/JSON span whose trace began `days` ago. */
function otlpTrace(days: number, name: string) {
  const startNs = BigInt(Date.now() - days * DAY) * 1_000_000n;
  return {
    resourceSpans: [{ scopeSpans: [{ spans: [{
      traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex'), name, kind: 'SPAN_KIND_INTERNAL',
      startTimeUnixNano: String(startNs), endTimeUnixNano: String(startNs + 1_000_000n), attributes: [],
    }] }] }],
  };
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = TAKES_EFFECT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not done after ${timeoutMs} ms: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('storage and retention settings', () => {
  let t: TestServer;
  let otherKey: string;
  beforeAll(async () => {
    t = await startServer({ env: {} });
    otherKey = (await t.api('/api/public/v2/workspaces', { body: { name: 'other' } })).body.api_key;
    await logAt(t, daysAgo(0), 'hello storage');
  });
  afterAll(() => t.close());

  test('GET /system/storage: sizes, counts, bytes per table (indexes counted with their table), the setting', async () => {
    const res = await t.api('/api/public/v2/system/storage');
    expect(res.status).toBe(200);
    const body = res.body;
    expect(Object.keys(body).sort()).toEqual(['db_bytes', 'free_bytes', 'requests', 'retention', 'spans', 'tables', 'wal_bytes']);
    expect(body.requests).toBe(1);
    expect(body.spans).toBe(0);
    expect(body.retention).toEqual({ keep_days: null, max_bytes: null });
    expect(body.db_bytes + body.wal_bytes).toBeGreaterThan(0);
    const names = body.tables.map((table: { name: string }) => table.name);
    expect(names).toEqual(expect.arrayContaining(['requests', 'requests_fts', 'datasets', 'spans']));
    // Index and shadow-table names are folded into their owners.
    expect(names.some((name: string) => name.startsWith('requests_by_') || name.startsWith('requests_fts_') || name.startsWith('sqlite_autoindex'))).toBe(false);
    for (const table of body.tables) expect(table.bytes).toBeGreaterThan(0);
    const bytes = body.tables.map((table: { bytes: number }) => table.bytes);
    expect(bytes).toEqual([...bytes].sort((a, b) => b - a));
  });

  test('storage and retention are the data file owner\'s: another workspace gets 403', async () => {
    expect((await t.api('/api/public/v2/system/storage', { key: otherKey })).status).toBe(403);
    expect((await t.api('/api/public/v2/system/retention', { method: 'PUT', key: otherKey, body: { keep_days: 1 } })).status).toBe(403);
    expect((await t.api('/api/public/v2/system/retention/preview?keep_days=1', { key: otherKey })).status).toBe(403);
    expect((await t.api('/api/public/v2/system/storage')).body.retention).toEqual({ keep_days: null, max_bytes: null });
  });

  test.each([
    [{ keep_days: 0 }, 'keep_days'],
    [{ keep_days: 36_501 }, 'keep_days'],
    [{ keep_days: 1.5 }, 'keep_days'],
    [{ keep_days: '30' }, 'keep_days'],
    [{ max_bytes: 999_999 }, 'max_bytes'],
    [{ max_bytes: 1e15 + 1 }, 'max_bytes'],
    [{ keep_days: 30, max_bytes: -1 }, 'max_bytes'],
  ])('PUT /system/retention %j → 422 naming %s, and nothing changes', async (body, field) => {
    const res = await t.api('/api/public/v2/system/retention', { method: 'PUT', body });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain(field);
    expect(res.body.detail[0].loc).toEqual(['body', field]);
    expect((await t.api('/api/public/v2/system/storage')).body.retention).toEqual({ keep_days: null, max_bytes: null });
  });

  test('PUT /system/retention at the bounds; a key left out is off; null turns a limit off', async () => {
    const put = (body: unknown) => t.api('/api/public/v2/system/retention', { method: 'PUT', body });
    // Far beyond any request logged here, so nothing is pruned by these.
    expect((await put({ keep_days: 36_500, max_bytes: 1e15 })).body).toEqual({ keep_days: 36_500, max_bytes: 1e15 });
    expect((await t.api('/api/public/v2/system/storage')).body.retention).toEqual({ keep_days: 36_500, max_bytes: 1e15 });
    expect((await put({ keep_days: 36_500 })).body).toEqual({ keep_days: 36_500, max_bytes: null });
    expect((await put({ keep_days: null, max_bytes: null })).body).toEqual({ keep_days: null, max_bytes: null });
    // The lower bounds are accepted too (checked by preview, which saves nothing).
    expect((await t.api('/api/public/v2/system/retention/preview?keep_days=1&max_bytes=1000000')).status).toBe(200);
  });

  test('preview validates like PUT: at and past the bounds', async () => {
    const preview = (query: string) => t.api(`/api/public/v2/system/retention/preview?${query}`);
    expect((await preview('keep_days=36500')).body).toEqual({ requests: 0, spans: 0 });
    expect((await preview('')).body).toEqual({ requests: 0, spans: 0 });
    for (const [query, field] of [['keep_days=0', 'keep_days'], ['keep_days=36501', 'keep_days'], ['keep_days=abc', 'keep_days'], ['max_bytes=999999', 'max_bytes']]) {
      const res = await preview(query);
      expect(res.status, query).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['query', field]);
    }
  });
});

describe('prune by age', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer({ env: {} });
  });
  afterAll(() => t.close());

  test('requests and traces older than keep_days go within 10 s; datasets, prompts and reports stay', async () => {
    const old = [];
    for (let i = 0; i < 3; i++) old.push(await logAt(t, daysAgo(40 + i), `ancient walrus ${i}`, { tags: ['old'], metadata: { age: 'old' } }));
    const recent = await logAt(t, daysAgo(1), 'recent walrus');
    // A dataset copied from an old request, a dataset from a file, a prompt and a pipeline.
    const group = await t.api('/api/public/v2/dataset-groups', { body: { name: 'from old requests' } });
    const fromRequests = await t.api('/api/public/v2/dataset-versions/from-filter-params', {
      body: { dataset_group_id: group.body.dataset_group.id, request_log_ids: old },
    });
    expect(fromRequests.status).toBe(201);
    const { groupId } = await publishDataset(t, [{ question: 'q1' }]);
    const prompt = await t.api('/rest/prompt-templates', {
      body: { prompt_template: { prompt_name: 'kept' }, prompt_version: { prompt_template: { type: 'completion', content: [{ type: 'text', text: 'Hi' }], input_variables: [] } } },
    });
    expect(prompt.status).toBe(201);
    const report = await t.api('/reports', { body: { dataset_group_id: groupId, columns: [] } });
    expect(report.status).toBe(201);
    expect((await t.api('/v1/traces', { body: otlpTrace(40, 'old trace') })).status).toBe(200);
    expect((await t.api('/v1/traces', { body: otlpTrace(1, 'new trace') })).status).toBe(200);

    const preview = await t.api('/api/public/v2/system/retention/preview?keep_days=30');
    expect(preview.body).toEqual({ requests: 3, spans: 1 });

    const put = await t.api('/api/public/v2/system/retention', { method: 'PUT', body: { keep_days: 30 } });
    expect(put.body).toEqual({ keep_days: 30, max_bytes: null });
    const storage = await until(() => t.api('/api/public/v2/system/storage'), (res) => res.body.requests === 1 && res.body.spans === 1);
    expect(storage.body.retention).toEqual({ keep_days: 30, max_bytes: null });

    for (const id of old) expect((await t.api(`/api/public/v2/requests/${id}`)).status).toBe(404);
    expect((await t.api(`/api/public/v2/requests/${recent}`)).status).toBe(200);
    // The text index, tags and metadata lost them too.
    expect((await t.api('/api/public/v2/requests?q=walrus')).body.items.map((r: { id: number }) => r.id)).toEqual([recent]);
    expect((await t.api('/api/public/v2/requests?tags=old')).body.items).toEqual([]);
    expect((await t.api('/api/public/v2/requests?metadata[age]=old')).body.items).toEqual([]);
    const traces = (await t.api('/api/public/v2/traces')).body.traces.map((trace: { name: string }) => trace.name);
    expect(traces).toEqual(['new trace']);

    const rows = await t.api(`/api/public/v2/datasets/${fromRequests.body.dataset_id}/rows`);
    expect(rows.body.total ?? rows.body.rows?.length ?? rows.body.items?.length).toBe(3);
    expect((await t.api(`/api/public/v2/dataset-groups/${groupId}`)).status).toBe(200);
    expect((await t.api('/prompt-templates/kept')).status).toBe(200);
    expect((await t.api(`/reports/${report.body.report_id}`)).status).toBe(200);
  });
});

describe('prune by bytes', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer({ env: {} });
  });
  afterAll(() => t.close());

  test('past max_bytes the oldest requests go first and the file gives the space back', async () => {
    const filler = 'lorem ipsum dolor sit amet '.repeat(80);
    const ids: number[] = [];
    for (let batch = 0; batch < 4; batch++) {
      const logged = await Promise.all(Array.from({ length: 40 }, (_, i) => logAt(t, daysAgo(5 - (batch * 40 + i) / 1000), `${filler} ${batch}-${i}`)));
      ids.push(...logged);
    }
    const { groupId } = await publishDataset(t, [{ question: 'never pruned' }]);
    const before = (await t.api('/api/public/v2/system/storage')).body;
    expect(before.requests).toBe(160);
    const maxBytes = 1_000_000;

    const preview = (await t.api(`/api/public/v2/system/retention/preview?max_bytes=${maxBytes}`)).body;
    expect(preview.requests).toBeGreaterThan(0);
    expect(preview.requests).toBeLessThan(160);

    await t.api('/api/public/v2/system/retention', { method: 'PUT', body: { max_bytes: maxBytes } });
    const after = await until(() => t.api('/api/public/v2/system/storage'), (res) => res.body.requests < 160 && res.body.free_bytes === 0);
    const kept = after.body.requests as number;
    // Oldest first: what is left is exactly the newest `kept`.
    const oldestKept = ids[ids.length - kept];
    expect((await t.api(`/api/public/v2/requests/${oldestKept}`)).status).toBe(200);
    expect((await t.api(`/api/public/v2/requests/${ids[ids.length - kept - 1]}`)).status).toBe(404);
    // Incremental vacuum returned the pages and a checkpoint let the file shrink (its WAL keeps
    // its length for reuse).
    expect(after.body.db_bytes).toBeLessThan(before.db_bytes + before.wal_bytes - (before.requests - kept) * 2_000);
    expect((await t.api(`/api/public/v2/dataset-groups/${groupId}`)).status).toBe(200);
  });
});

describe('incremental vacuum', () => {
  test('a new data file uses it; an older small file without it is converted at start, its data kept', async () => {
    const fresh = await startServer({ env: {} });
    try {
      expect(fresh.server.db.pragma('auto_vacuum', { simple: true })).toBe(2);
    } finally {
      await fresh.close();
    }

    // A file as earlier versions made it: auto_vacuum NONE, schema and a row in place.
    const dataDir = tempDir();
    const old = openSqlite(dataFiles(dataDir).database);
    old.pragma('journal_mode = WAL');
    migrate(old);
    old.prepare("INSERT INTO workspaces (id, name, created_at) VALUES (1, 'Default', 0)").run();
    expect(old.pragma('auto_vacuum', { simple: true })).toBe(0);
    old.close();
    const t = await startServer({ dataDir, env: {}, apiKey: 'pl_retention_test_key' });
    try {
      expect(t.server.db.pragma('auto_vacuum', { simple: true })).toBe(2);
      expect((await t.api('/api/public/v2/system/storage')).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
