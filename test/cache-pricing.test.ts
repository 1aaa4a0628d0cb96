import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../src-server/store/migrate';
import { migrations } from '../src-server/store/migrations';
import { publishDataset, runOnePrompt } from './support/evaluations';
import { startMockLlm, type MockLlm, type MockUsage } from './support/mock-llm';
import { startServer, tempDir, type TestServer } from './support/server';

/**
 * Anthropic's prompt cache end to end: `input_tokens` in its usage leaves out the cache's reads
 * (billed at 0.1× input) and writes (1.25× input for the 5-minute cache), so a call that writes
 * and reads the cache is priced from all three counts, whichever way it reaches us.
 */
let t: TestServer;
let mock: MockLlm;

beforeAll(async () => {
  mock = await startMockLlm();
  t = await startServer({ env: { ANTHROPIC_BASE_URL: mock.rootUrl, ANTHROPIC_API_KEY: 'sk-ant-test' } });
});
afterAll(async () => {
  await t.close();
  await mock.close();
});

const get = async (id: number) => (await t.api(`/api/public/v2/requests/${id}`)).body;
/** A streamed playground run's `done` event. */
async function runStreamed(body: object) {
  const streamed = await fetch(`${t.url}/api/public/v2/playground/run`, {
    method: 'POST', headers: { 'x-api-key': t.key, 'content-type': 'application/json' }, body: JSON.stringify({ ...body, stream: true }),
  });
  return JSON.parse(/event: done\ndata: (.*)/.exec(await streamed.text())![1]);
}
/**
 * One Anthropic playground call, plain and then streamed (the counts then come in message_start and
 * message_delta), while the mock reports `usage`: both answers and the request each logged.
 */
async function playgroundWith(usage: MockUsage, content: string) {
  mock.setUsage(usage);
  try {
    const body = { provider: 'anthropic', model: 'claude-sonnet-4-5-20250929', messages: [{ role: 'user', content }] };
    const plain = await t.api('/api/public/v2/playground/run', { body });
    expect(plain.status, JSON.stringify(plain.body)).toBe(200);
    const streamed = await runStreamed(body);
    return { plain: plain.body, plainLogged: await get(plain.body.request_id), streamed, streamedLogged: await get(streamed.request_id) };
  } finally {
    mock.setUsage(null);
  }
}
/** A completed two-row run of one Anthropic prompt while the mock reports `usage`, and its calls' log entries. */
async function evaluateWith(usage: MockUsage, name: string) {
  mock.setUsage(usage);
  try {
    const { groupId } = await publishDataset(t, [{ q: 'first' }, { q: 'second' }]);
    const done = await runOnePrompt(t, groupId, { provider: 'anthropic', model: 'claude-sonnet-4-5' }, 'Answer {x}', name);
    expect(done.status).toBe('COMPLETED');
    const logged = (await t.api(`/api/public/v2/requests?tags=report:${done.report.id}`)).body.items;
    return { done, logged };
  } finally {
    mock.setUsage(null);
  }
}

const day = (d: number) => new Date(Date.UTC(2026, 9, d, 12)).toISOString();

// claude-sonnet-4-5: $3 input, $0.30 cache read, $3.75 cache write, $15 output per million.
// 200 uncached + 50,000 read + 10,000 written in, 100 out:
// 200 × 3 + 50,000 × 0.3 + 10,000 × 3.75 + 100 × 15 = 600 + 15,000 + 37,500 + 1,500 = $54,600 per million calls.
const CACHED_USAGE = { input_tokens: 200, output_tokens: 100, cache_creation_input_tokens: 10_000, cache_read_input_tokens: 50_000 };
const CACHED_PRICE = 0.0546;
const CACHED_INPUT = 60_200;

describe('the shipped price table', () => {
  it('has a cache-write rate: 1.25× input for Claude models, the input rate for OpenAI ones', async () => {
    const prices = (await t.api('/api/public/v2/prices')).body.prices as Array<Record<string, unknown>>;
    expect(prices.find((p) => p.model === 'claude-sonnet-4-5')).toMatchObject({ input_per_mtok: 3, cached_input_per_mtok: 0.3, cache_write_per_mtok: 3.75 });
    expect(prices.find((p) => p.model === 'claude-3-5-haiku')).toMatchObject({ input_per_mtok: 0.8, cache_write_per_mtok: 1 });
    expect(prices.find((p) => p.model === 'gpt-4o')).toMatchObject({ input_per_mtok: 2.5, cache_write_per_mtok: 2.5 });
  });

  it('a row saved without a cache-write rate gets 1.25× its input rate; one given is kept', async () => {
    const put = (body: Record<string, unknown>) => t.api('/api/public/v2/prices', { method: 'PUT', body });
    expect((await put({ provider: 'anthropic', model: 'claude-next', input_per_mtok: 4, output_per_mtok: 20 })).body).toEqual({
      provider: 'anthropic', model: 'claude-next', input_per_mtok: 4, output_per_mtok: 20, cached_input_per_mtok: 0, reasoning_per_mtok: 0, cache_write_per_mtok: 5, source: 'user',
    });
    expect((await put({ provider: 'anthropic', model: 'claude-next', input_per_mtok: 4, output_per_mtok: 20, cache_write_per_mtok: 8 })).body).toMatchObject({ cache_write_per_mtok: 8 });
    const bad = await put({ provider: 'anthropic', model: 'claude-next', input_per_mtok: 4, output_per_mtok: 20, cache_write_per_mtok: -1 });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'cache_write_per_mtok']);
  });
});

describe('an Anthropic call that writes and reads the prompt cache', () => {
  it('through the playground: input counts the cache, writes and reads priced at their rates', async () => {
    const { plain, plainLogged, streamed, streamedLogged } = await playgroundWith(CACHED_USAGE, 'the long shared context');
    expect(plain).toMatchObject({ input_tokens: CACHED_INPUT, output_tokens: 100 });
    expect(plain.price).toBeCloseTo(CACHED_PRICE, 12);
    expect(plainLogged).toMatchObject({ provider: 'anthropic', input_tokens: CACHED_INPUT, output_tokens: 100, price_source: 'table' });
    expect(plainLogged.price).toBeCloseTo(CACHED_PRICE, 12);
    expect(streamed).toMatchObject({ input_tokens: CACHED_INPUT, output_tokens: 100 });
    expect(streamed.price).toBeCloseTo(CACHED_PRICE, 12);
    expect(streamedLogged.price).toBeCloseTo(CACHED_PRICE, 12);
  });

  it('in an evaluation: each call and the run’s cost and tokens add the cache up', async () => {
    const { done, logged } = await evaluateWith(CACHED_USAGE, 'cached');
    expect(done.stats).toMatchObject({ input_tokens: 2 * CACHED_INPUT, output_tokens: 200 });
    expect(done.stats.cost).toBeCloseTo(2 * CACHED_PRICE, 9);
    expect(logged).toHaveLength(2);
    for (const r of logged) {
      expect(r).toMatchObject({ input_tokens: CACHED_INPUT, price_source: 'table' });
      expect(r.price).toBeCloseTo(CACHED_PRICE, 12);
    }
  });

  it('logged by the SDK (/track-request): the same total and price', async () => {
    const res = await t.api('/track-request', {
      body: {
        provider_type: 'anthropic', function_name: 'anthropic.messages.create',
        kwargs: { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 },
        request_response: { model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'yo' }], usage: CACHED_USAGE },
        request_start_time: day(3), request_end_time: day(3),
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const logged = await get(res.body.request_id);
    expect(logged).toMatchObject({ input_tokens: CACHED_INPUT, output_tokens: 100, price_source: 'table' });
    expect(logged.price).toBeCloseTo(CACHED_PRICE, 12);
  });

  it('traced (OTLP GenAI span): cache_creation.input_tokens priced as writes, whether input_tokens counts the cache or not', async () => {
    const attr = (key: string, value: string | number) => ({ key, value: typeof value === 'string' ? { stringValue: value } : { intValue: String(value) } });
    const traced = async (inputTokens: number) => {
      const span = {
        traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex'), name: 'chat claude-sonnet-4-5', kind: 'SPAN_KIND_CLIENT',
        startTimeUnixNano: '1790000000000000000', endTimeUnixNano: '1790000001000000000',
        attributes: [
          attr('gen_ai.provider.name', 'anthropic'), attr('gen_ai.request.model', 'claude-sonnet-4-5'),
          attr('gen_ai.usage.input_tokens', inputTokens), attr('gen_ai.usage.output_tokens', 100),
          attr('gen_ai.usage.cache_read.input_tokens', 50_000), attr('gen_ai.usage.cache_creation.input_tokens', 10_000),
        ],
      };
      expect((await t.api('/v1/traces', { body: { resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] } })).status).toBe(200);
      const view = await t.api(`/api/public/v2/traces/${span.traceId}`);
      const traces = (await t.api('/api/public/v2/traces?per_page=100')).body.traces as Array<{ trace_id: string; price: number; input_tokens: number }>;
      return { request: await get(view.body.spans[0].request_id), trace: traces.find((x) => x.trace_id === span.traceId)! };
    };
    // As the conventions say (input_tokens = Anthropic's input + cache reads + writes)…
    const conventional = await traced(CACHED_INPUT);
    expect(conventional.request).toMatchObject({ input_tokens: CACHED_INPUT, price_source: 'table' });
    expect(conventional.request.price).toBeCloseTo(CACHED_PRICE, 12);
    expect(conventional.trace).toMatchObject({ input_tokens: CACHED_INPUT, price: CACHED_PRICE });
    // …and as an instrumentation that copies Anthropic's own input_tokens sends it.
    const copied = await traced(200);
    expect(copied.request).toMatchObject({ input_tokens: CACHED_INPUT });
    expect(copied.request.price).toBeCloseTo(CACHED_PRICE, 12);
  });

  it('a recompute prices the writes with the table’s new write rate', async () => {
    await t.api('/api/public/v2/prices', { method: 'PUT', body: { provider: 'acme', model: 'cachey', input_per_mtok: 1, output_per_mtok: 1, cached_input_per_mtok: 0.1 } });
    const res = await t.api('/track-request', {
      body: {
        provider_type: 'acme', kwargs: { model: 'cachey', messages: [] },
        request_response: { model: 'cachey', content: [], usage: { input_tokens: 1_000_000, cache_creation_input_tokens: 1_000_000, cache_read_input_tokens: 1_000_000, output_tokens: 0 } },
        request_start_time: day(20), request_end_time: day(20),
      },
    });
    // $1 uncached + $0.10 read + $1.25 written (the default write rate, 1.25 × input).
    expect((await get(res.body.request_id)).price).toBeCloseTo(2.35, 12);
    await t.api('/api/public/v2/prices', { method: 'PUT', body: { provider: 'acme', model: 'cachey', input_per_mtok: 1, output_per_mtok: 1, cached_input_per_mtok: 0.1, cache_write_per_mtok: 2 } });
    const recomputed = await t.api('/api/public/v2/prices/recompute', { body: { start_time: day(20), end_time: day(20) } });
    expect(recomputed.body).toEqual({ updated: 1 });
    expect((await get(res.body.request_id)).price).toBeCloseTo(3.1, 12);
  });
});

// The same call with 6,000 of its 10,000 writes to the 1-hour cache, billed 2× input ($6) where a
// 5-minute write is 1.25× ($3.75): 600 + 15,000 + 4,000 × 3.75 + 6,000 × 6 + 1,500
// = 600 + 15,000 + 15,000 + 36,000 + 1,500 = $68,100 per million calls (all at $3.75: $54,600).
const HOUR_USAGE = { ...CACHED_USAGE, cache_creation: { ephemeral_5m_input_tokens: 4_000, ephemeral_1h_input_tokens: 6_000 } };
const HOUR_PRICE = 0.0681;

describe('an Anthropic call that writes to the 1-hour prompt cache', () => {
  it('through the playground, plain and streamed: 1-hour writes at 2× input, the rest at 1.25×', async () => {
    const { plain, plainLogged, streamed, streamedLogged } = await playgroundWith(HOUR_USAGE, 'the long shared context');
    expect(plain).toMatchObject({ input_tokens: CACHED_INPUT, output_tokens: 100 });
    expect(plain.price).toBeCloseTo(HOUR_PRICE, 12);
    expect(plainLogged.price).toBeCloseTo(HOUR_PRICE, 12);
    expect(streamed.price).toBeCloseTo(HOUR_PRICE, 12);
    expect(streamedLogged.price).toBeCloseTo(HOUR_PRICE, 12);
  });

  it('in an evaluation: each call and the run’s cost', async () => {
    const { done, logged } = await evaluateWith(HOUR_USAGE, 'cached for an hour');
    expect(done.stats.cost).toBeCloseTo(2 * HOUR_PRICE, 9);
    expect(logged.map((r: { price: number }) => r.price)).toEqual([HOUR_PRICE, HOUR_PRICE]);
  });

  it('logged by the SDK (/track-request), and again after a recompute with a new input rate', async () => {
    const track = (model: string, usage: Record<string, unknown>) =>
      t.api('/track-request', {
        body: {
          provider_type: 'anthropic', kwargs: { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 },
          request_response: { model, content: [{ type: 'text', text: 'yo' }], usage },
          request_start_time: day(24), request_end_time: day(24),
        },
      });
    const res = await track('claude-sonnet-4-5', HOUR_USAGE);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await get(res.body.request_id)).toMatchObject({ input_tokens: CACHED_INPUT, price: HOUR_PRICE, price_source: 'table' });

    // A workspace row of its own: 1M uncached + 400k 5-minute and 600k 1-hour writes at $1 input,
    // $1.25 and $2 a million: 1 + 0.5 + 1.2 = $2.70.
    await t.api('/api/public/v2/prices', { method: 'PUT', body: { provider: 'anthropic', model: 'claude-hourly', input_per_mtok: 1, output_per_mtok: 1 } });
    const own = await track('claude-hourly', {
      input_tokens: 1_000_000, output_tokens: 0, cache_creation_input_tokens: 1_000_000,
      cache_creation: { ephemeral_5m_input_tokens: 400_000, ephemeral_1h_input_tokens: 600_000 },
    });
    expect((await get(own.body.request_id)).price).toBeCloseTo(2.7, 12);
    // Input at $2 and a 5-minute write rate of $2.50 given: 2 + 0.4 × 2.5 + 0.6 × 4 = $5.40.
    await t.api('/api/public/v2/prices', { method: 'PUT', body: { provider: 'anthropic', model: 'claude-hourly', input_per_mtok: 2, output_per_mtok: 1, cache_write_per_mtok: 2.5 } });
    // Only the claude-hourly request's price changes; the sonnet one is priced the same again.
    expect((await t.api('/api/public/v2/prices/recompute', { body: { start_time: day(24), end_time: day(24) } })).body).toEqual({ updated: 1 });
    expect((await get(own.body.request_id)).price).toBeCloseTo(5.4, 12);
    expect((await get(res.body.request_id)).price).toBeCloseTo(HOUR_PRICE, 12);
  });
});

// Anthropic's cache fields may come as null (the Usage type allows it): no reads or writes, so
// 200 × $3 + 100 × $15 = $2,100 per million calls, on our calls and on SDK-logged ones alike.
const NULL_CACHE_USAGE = { input_tokens: 200, output_tokens: 100, cache_creation_input_tokens: null, cache_read_input_tokens: null, cache_creation: null };
const NULL_CACHE_PRICE = 0.0021;

describe('an Anthropic call whose usage gives the cache fields as null', () => {
  it('counts the prompt as input_tokens alone, through the playground (plain and streamed) and /track-request', async () => {
    const { plain, plainLogged, streamed, streamedLogged } = await playgroundWith(NULL_CACHE_USAGE, 'no cache here');
    expect(plain).toMatchObject({ input_tokens: 200, output_tokens: 100 });
    expect(plain.price).toBeCloseTo(NULL_CACHE_PRICE, 12);
    expect(plainLogged.price).toBeCloseTo(NULL_CACHE_PRICE, 12);
    expect(streamed).toMatchObject({ input_tokens: 200, output_tokens: 100 });
    expect(streamed.price).toBeCloseTo(NULL_CACHE_PRICE, 12);
    expect(streamedLogged.price).toBeCloseTo(NULL_CACHE_PRICE, 12);
    const res = await t.api('/track-request', {
      body: {
        provider_type: 'anthropic', kwargs: { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 },
        request_response: { model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'yo' }], usage: NULL_CACHE_USAGE },
        request_start_time: day(5), request_end_time: day(5),
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const logged = await get(res.body.request_id);
    expect(logged).toMatchObject({ input_tokens: 200, output_tokens: 100, price_source: 'table' });
    expect(logged.price).toBeCloseTo(NULL_CACHE_PRICE, 12);
  });
});

describe('an OpenAI call made by the playground', () => {
  it('prices its cached and reasoning tokens at their rates', async () => {
    await t.api('/api/public/v2/providers', { body: { name: 'openai-local', client: 'openai', base_url: mock.baseUrl, api_key: 'sk-local' } });
    mock.setUsage({ prompt_tokens: 1000, completion_tokens: 500, prompt_tokens_details: { cached_tokens: 400 }, completion_tokens_details: { reasoning_tokens: 200 } });
    try {
      const res = await t.api('/api/public/v2/playground/run', { body: { provider: 'openai-local', model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      // gpt-4o: 600 × $2.50 + 400 cached × $1.25 + 300 × $10 + 200 reasoning × $10 per million.
      expect(res.body).toMatchObject({ input_tokens: 1000, output_tokens: 500 });
      expect(res.body.price).toBeCloseTo(0.007, 12);
    } finally {
      mock.setUsage(null);
    }
  });
});

describe('migration 018', () => {
  it('gives a workspace’s price rows saved before it a write rate of 1.25× their input rate', () => {
    const dir = tempDir();
    const db = new Database(join(dir, 'before-018.db'));
    const upTo017 = migrations.findIndex((m) => m.id === '018-cache-writes');
    migrate(db, migrations.slice(0, upTo017));
    db.prepare("INSERT INTO workspaces (id, name, created_at) VALUES (1, 'w', 0)").run();
    db.prepare(
      `INSERT INTO prices (workspace_id, provider, model, input_per_mtok, output_per_mtok, cached_input_per_mtok, reasoning_per_mtok, updated_at)
       VALUES (1, 'anthropic', 'claude-x', 2, 10, 0.2, 10, 0)`,
    ).run();
    migrate(db, migrations);
    expect(db.prepare('SELECT cache_write_per_mtok FROM prices').get()).toEqual({ cache_write_per_mtok: 2.5 });
    db.close();
  });
});
