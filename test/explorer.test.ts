import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chat, logBody } from './support/factories';
import { startServer, type TestServer } from './support/server';

let t: TestServer;
const ids: Record<string, number> = {};

/** Start times one minute apart so "newest first" is unambiguous. */
const at = (minute: number, latencyMs = 1000) => ({
  request_start_time: new Date(Date.UTC(2026, 10, 1, 12, minute)).toISOString(),
  request_end_time: new Date(Date.UTC(2026, 10, 1, 12, minute) + latencyMs).toISOString(),
});

beforeAll(async () => {
  t = await startServer();
  const rows: Array<[string, Record<string, unknown>]> = [
    ['weather', { ...chat('What is the weather in Paris?', 'Sunny, 21°C.'), ...at(1, 800), tags: ['geo', 'prod'], metadata: { env: 'prod', user: 'ann' }, model: 'gpt-4o', score: 90, price: 0.01, input_tokens: 10, output_tokens: 5 }],
    ['tokyo', { ...chat('東京タワーの高さは？', '東京タワーは333メートルです。'), ...at(2, 1200), tags: ['geo'], metadata: { env: 'dev' }, model: 'gpt-4o-mini', score: 40 }],
    ['beijing', { ...chat('北京是中国的首都吗？', '是的，北京是首都。'), ...at(3, 400), tags: ['prod'], provider: 'anthropic', model: 'claude-sonnet-4', status: 'ERROR', error_type: 'Overloaded' }],
    ['code', { ...chat('Write a haiku about SQLite', 'Pages in a b-tree'), ...at(4, 2000), tags: ['poetry', 'prod'], metadata: { env: 'prod' }, model: 'gpt-4o', score: 70 }],
  ];
  for (const [name, body] of rows) {
    const res = await t.api('/log-request', { body: logBody(body) });
    expect(res.status).toBe(201);
    ids[name] = res.body.id;
  }
  const { body: group } = await t.api('/create-group', { body: {} });
  await t.api('/rest/track-group', { body: { request_id: ids.code, group_id: group.id } });
  ids.group = group.id;
});
afterAll(() => t.close());

const list = async (query: string) => {
  const res = await t.api(`/api/public/v2/requests?${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { items: Array<{ id: number }>; next_cursor: string | null; total_estimate: number };
};
const idsOf = async (query: string) => (await list(query)).items.map((r) => r.id);

describe('GET /api/public/v2/requests', () => {
  it('lists newest request_start_time first', async () => {
    expect(await idsOf('')).toEqual([ids.code, ids.beijing, ids.tokyo, ids.weather]);
    expect((await list('')).total_estimate).toBe(4);
  });

  it('finds text in input and output, including Chinese and Japanese substrings', async () => {
    expect(await idsOf('q=weather')).toEqual([ids.weather]);
    expect(await idsOf('q=sunny')).toEqual([ids.weather]);
    expect(await idsOf(`q=${encodeURIComponent('タワー')}`)).toEqual([ids.tokyo]);
    expect(await idsOf(`q=${encodeURIComponent('東京')}`)).toEqual([ids.tokyo]);
    expect(await idsOf(`q=${encodeURIComponent('首都')}`)).toEqual([ids.beijing]);
    expect(await idsOf(`q=${encodeURIComponent('333メートル')}`)).toEqual([ids.tokyo]);
    expect(await idsOf('q=haiku%20sqlite')).toEqual([ids.code]);
    expect(await idsOf('q=nowhere-to-be-found')).toEqual([]);
    // Roles and JSON keys are not text: searching them must not match every row.
    expect(await idsOf('q=assistant')).toEqual([]);
  });

  it('treats search text as text, not query syntax', async () => {
    expect(await idsOf(`q=${encodeURIComponent('"weather OR')}`)).toEqual([]);
    expect(await idsOf(`q=${encodeURIComponent('NEAR(a b)')}`)).toEqual([]);
    expect(await idsOf(`q=${encodeURIComponent('%')}`)).toEqual([]);
  });

  it('filters by tags (all of them), metadata, provider, model, status, score, time and group', async () => {
    expect(await idsOf('tags=prod')).toEqual([ids.code, ids.beijing, ids.weather]);
    expect(await idsOf('tags=prod&tags=geo')).toEqual([ids.weather]);
    expect(await idsOf('metadata[env]=prod')).toEqual([ids.code, ids.weather]);
    expect(await idsOf('metadata[env]=prod&metadata[user]=ann')).toEqual([ids.weather]);
    expect(await idsOf('tags=prod&metadata[env]=prod')).toEqual([ids.code, ids.weather]);
    expect(await idsOf('provider=anthropic')).toEqual([ids.beijing]);
    expect(await idsOf('model=gpt-4o')).toEqual([ids.code, ids.weather]);
    expect(await idsOf('status=ERROR')).toEqual([ids.beijing]);
    expect(await idsOf('score_min=70')).toEqual([ids.code, ids.weather]);
    expect(await idsOf('score_min=40&score_max=70')).toEqual([ids.code, ids.tokyo]);
    expect(await idsOf(`start_time=${encodeURIComponent(at(2).request_start_time)}&end_time=${encodeURIComponent(at(3).request_start_time)}`)).toEqual([ids.beijing, ids.tokyo]);
    expect(await idsOf(`start_time=${Date.UTC(2026, 10, 1, 12, 3) / 1000}`)).toEqual([ids.code, ids.beijing]);
    expect(await idsOf(`group_id=${ids.group}`)).toEqual([ids.code]);
    expect(await idsOf(`q=${encodeURIComponent('東京')}&tags=prod`)).toEqual([]);
  });

  it('pages with an opaque cursor, without gaps or repeats', async () => {
    const first = await list('limit=3');
    expect(first.items.map((r) => r.id)).toEqual([ids.code, ids.beijing, ids.tokyo]);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await list(`limit=3&cursor=${first.next_cursor}`);
    expect(second.items.map((r) => r.id)).toEqual([ids.weather]);
    expect(second.next_cursor).toBeNull();
    const tagged = await list('tags=prod&limit=1');
    const next = await list(`tags=prod&limit=1&cursor=${tagged.next_cursor}`);
    expect([...tagged.items, ...next.items].map((r) => r.id)).toEqual([ids.code, ids.beijing]);
  });

  it('keeps pages stable for requests sharing one start time', async () => {
    const s = await startServer();
    try {
      const same = [];
      for (let i = 0; i < 5; i++) same.push((await s.api('/log-request', { body: logBody(at(30)) })).body.id);
      const seen: number[] = [];
      let cursor = '';
      for (;;) {
        const res = await s.api(`/api/public/v2/requests?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        seen.push(...res.body.items.map((r: { id: number }) => r.id));
        if (!res.body.next_cursor) break;
        cursor = res.body.next_cursor;
      }
      expect(seen).toEqual([...same].reverse());
    } finally {
      await s.close();
    }
  });

  it.each([
    ['limit=201', 'limit'],
    ['limit=0', 'limit'],
    ['limit=abc', 'limit'],
    ['score_min=101', 'score_min'],
    ['status=OK', 'status'],
    ['start_time=not-a-date', 'start_time'],
    ['cursor=garbage', 'cursor'],
    [`tags=${'t'.repeat(513)}`, 'tags'],
  ])('rejects %s with 422 naming %s', async (query, field) => {
    const res = await t.api(`/api/public/v2/requests?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc.slice(0, 2)).toEqual(['query', field]);
  });

  it('accepts limit=200', async () => {
    expect((await t.api('/api/public/v2/requests?limit=200')).status).toBe(200);
  });
});

describe('GET /api/public/v2/requests/{id}', () => {
  it('returns the full record with scores, metadata and prompt version', async () => {
    await t.api('/rest/track-score', { body: { request_id: ids.weather, score: 55, name: 'relevance' } });
    await t.api('/rest/track-metadata', { body: { request_id: ids.weather, metadata: { session: 's1' } } });
    const { body } = await t.api(`/api/public/v2/requests/${ids.weather}`);
    expect(body).toMatchObject({
      id: ids.weather,
      scores: { default: 90, relevance: 55 },
      metadata: { env: 'prod', user: 'ann', session: 's1' },
      latency_ms: 800,
      prompt_version: { commit_message: null, metadata: { model: { provider: 'openai', name: 'gpt-4o' } } },
    });
    expect(await idsOf('metadata[session]=s1')).toEqual([ids.weather]);
  });

  it('answers 404 for an unknown id and 422 for a non-numeric one', async () => {
    expect((await t.api('/api/public/v2/requests/999999')).status).toBe(404);
    expect((await t.api('/api/public/v2/requests/abc')).status).toBe(422);
  });
});

describe('GET /api/public/v2/requests/stats', () => {
  it('sums counts, cost and tokens per day and per model, with latency percentiles', async () => {
    const { status, body } = await t.api('/api/public/v2/requests/stats');
    expect(status).toBe(200);
    expect(body.totals).toMatchObject({ requests: 4, errors: 1, input_tokens: 10, output_tokens: 5 });
    expect(body.totals.cost).toBeCloseTo(0.01);
    expect(body.by_day).toEqual([expect.objectContaining({ day: '2026-11-01', requests: 4 })]);
    const gpt4o = body.by_model.find((m: { model: string }) => m.model === 'gpt-4o');
    expect(gpt4o).toMatchObject({ provider: 'openai', requests: 2 });
    // Latencies 800 and 2000 ms: percentiles come from 5% buckets, so allow that error.
    expect(gpt4o.latency_ms.p50).toBeGreaterThan(800 * 0.97);
    expect(gpt4o.latency_ms.p50).toBeLessThan(800 * 1.03);
    expect(gpt4o.latency_ms.p99).toBeGreaterThan(2000 * 0.97);
    expect(gpt4o.latency_ms.p99).toBeLessThan(2000 * 1.03);
    expect(gpt4o.latency_ms.avg).toBe(1400);
  });

  it('narrows by model and by time range', async () => {
    expect((await t.api('/api/public/v2/requests/stats?model=gpt-4o-mini')).body.totals.requests).toBe(1);
    expect((await t.api('/api/public/v2/requests/stats?start_time=2026-11-02T00:00:00Z')).body.totals.requests).toBe(0);
  });
});
