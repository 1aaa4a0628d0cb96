import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishDataset, runOnePrompt } from './support/evaluations';
import { logBody } from './support/factories';
import { startMockLlm, type MockLlm } from './support/mock-llm';
import { startServer, type TestServer } from './support/server';

let t: TestServer;
let mock: MockLlm;
let otherKey: string;

beforeAll(async () => {
  mock = await startMockLlm();
  t = await startServer({ env: { OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: 'sk-test' } });
  otherKey = (await t.api('/api/public/v2/workspaces', { body: { name: 'Other' } })).body.api_key;
});
afterAll(async () => {
  await t.close();
  await mock.close();
});

/** USD for token counts at per-million rates. */
const usd = (...parts: Array<[number, number]>) => parts.reduce((sum, [tokens, rate]) => sum + tokens * rate, 0) / 1_000_000;
const get = async (id: number) => (await t.api(`/api/public/v2/requests/${id}`)).body;
const prices = async (key?: string) => (await t.api('/api/public/v2/prices', { key })).body.prices as Array<Record<string, unknown>>;
const put = (body: Record<string, unknown>, key?: string) => t.api('/api/public/v2/prices', { method: 'PUT', body, key });
const remove = (provider: string, model: string) =>
  t.api(`/api/public/v2/prices?provider=${encodeURIComponent(provider)}&model=${encodeURIComponent(model)}`, { method: 'DELETE' });

const day = (d: number) => new Date(Date.UTC(2026, 9, d, 12)).toISOString();

/** `/track-request` as the SDK's OpenAI wrapper sends it. */
async function track(model: string, usage: Record<string, unknown>, extra: Record<string, unknown> = {}, provider = 'openai') {
  const res = await t.api('/track-request', {
    body: {
      provider_type: provider,
      function_name: 'openai.chat.completions.create',
      kwargs: { model, messages: [{ role: 'user', content: 'hi' }] },
      request_response: { model, choices: [{ message: { role: 'assistant', content: 'hello' } }], usage },
      request_start_time: day(1),
      request_end_time: day(1),
      ...extra,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return get(res.body.request_id);
}

describe('the price table', () => {
  it('ships list prices for common OpenAI and Anthropic models', async () => {
    const list = await prices();
    for (const [provider, model] of [['openai', 'gpt-4o'], ['openai', 'gpt-4o-mini'], ['openai', 'gpt-4.1'], ['openai', 'o3'], ['openai', 'o4-mini'],
      ['anthropic', 'claude-sonnet-4'], ['anthropic', 'claude-opus-4-1'], ['anthropic', 'claude-3-5-haiku'], ['anthropic', 'claude-haiku-4-5']]) {
      expect(list).toContainEqual(expect.objectContaining({ provider, model, source: 'built-in' }));
    }
    expect(list.find((p) => p.model === 'gpt-4o')).toEqual({
      provider: 'openai', model: 'gpt-4o', input_per_mtok: 2.5, output_per_mtok: 10, cached_input_per_mtok: 1.25, reasoning_per_mtok: 10, cache_write_per_mtok: 2.5,
      source: 'built-in',
    });
  });

  it('PUT adds a row (cached and reasoning default 0), replaces a built-in; DELETE returns it to its shipped price', async () => {
    const added = await put({ provider: 'Ollama', model: 'Llama3.1:8b', input_per_mtok: 0, output_per_mtok: 0.5 });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body).toEqual({
      provider: 'ollama', model: 'llama3.1:8b', input_per_mtok: 0, output_per_mtok: 0.5, cached_input_per_mtok: 0, reasoning_per_mtok: 0, cache_write_per_mtok: 0,
      source: 'user',
    });
    expect(await prices()).toContainEqual(added.body);

    expect((await put({ provider: 'openai', model: 'gpt-4.1-nano', input_per_mtok: 9, output_per_mtok: 9, cached_input_per_mtok: 1, reasoning_per_mtok: 2 })).status).toBe(200);
    const nano = (await prices()).filter((p) => p.model === 'gpt-4.1-nano');
    expect(nano).toEqual([expect.objectContaining({ input_per_mtok: 9, reasoning_per_mtok: 2, source: 'user' })]);

    const reset = await remove('openai', 'gpt-4.1-nano');
    expect(reset.status).toBe(200);
    expect(reset.body.price).toMatchObject({ input_per_mtok: 0.1, source: 'built-in' });
    expect((await prices()).filter((p) => p.model === 'gpt-4.1-nano')).toEqual([expect.objectContaining({ input_per_mtok: 0.1, source: 'built-in' })]);

    expect((await remove('ollama', 'llama3.1:8b')).body).toEqual({ success: true, price: null });
    expect((await prices()).some((p) => p.provider === 'ollama')).toBe(false);
    expect((await remove('ollama', 'llama3.1:8b')).status).toBe(404);
  });

  it('is per workspace', async () => {
    await put({ provider: 'local', model: 'mine', input_per_mtok: 1, output_per_mtok: 1 });
    expect((await prices(otherKey)).some((p) => p.provider === 'local')).toBe(false);
    expect((await prices(otherKey)).some((p) => p.model === 'gpt-4o')).toBe(true);
  });

  it('accepts rates of 0 and 1,000,000 and names of 255 characters', async () => {
    const res = await put({ provider: 'p'.repeat(255), model: 'm'.repeat(255), input_per_mtok: 0, output_per_mtok: 1_000_000, cached_input_per_mtok: 1_000_000, reasoning_per_mtok: 0 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it.each([
    ['no provider', { model: 'm', input_per_mtok: 1, output_per_mtok: 1 }, ['body', 'provider']],
    ['no output rate', { provider: 'p', model: 'm', input_per_mtok: 1 }, ['body', 'output_per_mtok']],
    ['a negative rate', { provider: 'p', model: 'm', input_per_mtok: -0.01, output_per_mtok: 1 }, ['body', 'input_per_mtok']],
    ['a rate past 1,000,000', { provider: 'p', model: 'm', input_per_mtok: 1, output_per_mtok: 1, reasoning_per_mtok: 1_000_000.01 }, ['body', 'reasoning_per_mtok']],
    ['a rate as text', { provider: 'p', model: 'm', input_per_mtok: 1, output_per_mtok: 1, cached_input_per_mtok: '1' }, ['body', 'cached_input_per_mtok']],
    ['a model of 256 characters', { provider: 'p', model: 'm'.repeat(256), input_per_mtok: 1, output_per_mtok: 1 }, ['body', 'model']],
    ['a blank model', { provider: 'p', model: '  ', input_per_mtok: 1, output_per_mtok: 1 }, ['body', 'model']],
  ])('PUT refuses %s with 422 naming the field, and stores nothing', async (_name, body, loc) => {
    const before = await prices();
    const res = await put(body);
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    expect(await prices()).toEqual(before);
  });

  it('DELETE without provider or model is a 422', async () => {
    const res = await t.api('/api/public/v2/prices?provider=openai', { method: 'DELETE' });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['query', 'model']);
  });
});

describe('price on /log-request', () => {
  it('keeps the body’s price: client when given (0 included), none when absent', async () => {
    const log = async (body: Record<string, unknown>) => get((await t.api('/log-request', { body: logBody(body) })).body.id);
    expect(await log({ model: 'gpt-4o', input_tokens: 1000, output_tokens: 1000, price: 0.5 })).toMatchObject({ price: 0.5, price_source: 'client' });
    expect(await log({ model: 'gpt-4o', input_tokens: 1000, output_tokens: 1000, price: 0 })).toMatchObject({ price: 0, price_source: 'client' });
    expect(await log({ model: 'gpt-4o', input_tokens: 1000, output_tokens: 1000 })).toMatchObject({ price: 0, price_source: 'none' });
  });
});

describe('price on /track-request: client > provider > table > 0', () => {
  it('prices from the table, cached input and reasoning at their own rates (OpenAI usage)', async () => {
    const r = await track('gpt-4o-2024-08-06', {
      prompt_tokens: 1000, completion_tokens: 500, prompt_tokens_details: { cached_tokens: 400 }, completion_tokens_details: { reasoning_tokens: 200 },
    });
    expect(r.price_source).toBe('table');
    expect(r.price).toBeCloseTo(usd([600, 2.5], [400, 1.25], [300, 10], [200, 10]), 12);
    expect(r).toMatchObject({ input_tokens: 1000, output_tokens: 500 });
  });

  it('reasoning tokens use the reasoning rate, not the output rate', async () => {
    await put({ provider: 'openai', model: 'o-test', input_per_mtok: 1, output_per_mtok: 2, reasoning_per_mtok: 7, cached_input_per_mtok: 0.5 });
    const r = await track('o-test', { input_tokens: 100, output_tokens: 50, input_tokens_details: { cached_tokens: 10 }, output_tokens_details: { reasoning_tokens: 30 } });
    expect(r.price).toBeCloseTo(usd([90, 1], [10, 0.5], [20, 2], [30, 7]), 12);
  });

  it('a dated snapshot prices like the longest matching model (gpt-4o-mini, not gpt-4o)', async () => {
    const r = await track('gpt-4o-mini-2024-07-18', { prompt_tokens: 1_000_000, completion_tokens: 0 });
    expect(r).toMatchObject({ price: 0.15, price_source: 'table' });
  });

  it('a row put or removed prices the next call of a model already priced (the table is not remembered past a change)', async () => {
    const model = `gpt-4o-mini-${randomBytes(4).toString('hex')}`;
    const usage = { prompt_tokens: 1_000_000, completion_tokens: 0 };
    expect(await track(model, usage)).toMatchObject({ price: 0.15, price_source: 'table' });
    expect((await put({ provider: 'openai', model, input_per_mtok: 7, output_per_mtok: 7 })).status).toBe(200);
    expect(await track(model, usage)).toMatchObject({ price: 7, price_source: 'table' });
    expect((await remove('openai', model)).status).toBe(200);
    expect(await track(model, usage)).toMatchObject({ price: 0.15, price_source: 'table' });
  });

  it('Anthropic usage: cache reads are input tokens priced at the cache rate', async () => {
    const r = await t.api('/track-request', {
      body: {
        provider_type: 'anthropic', kwargs: { model: 'claude-sonnet-4-20250514', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 },
        request_response: { model: 'claude-sonnet-4-20250514', content: [{ type: 'text', text: 'yo' }], usage: { input_tokens: 100, cache_read_input_tokens: 1000, output_tokens: 50 } },
        request_start_time: day(1), request_end_time: day(1),
      },
    });
    const stored = await get(r.body.request_id);
    expect(stored).toMatchObject({ input_tokens: 1100, output_tokens: 50, price_source: 'table' });
    expect(stored.price).toBeCloseTo(usd([100, 3], [1000, 0.3], [50, 15]), 12);
  });

  it('the provider’s reported cost wins over the table; the client’s price wins over both', async () => {
    expect(await track('gpt-4o', { prompt_tokens: 10, completion_tokens: 10, cost: 0.02 })).toMatchObject({ price: 0.02, price_source: 'provider' });
    expect(await track('gpt-4o', { prompt_tokens: 10, completion_tokens: 10, cost: 0.02 }, { price: 0.5 })).toMatchObject({ price: 0.5, price_source: 'client' });
    expect(await track('gpt-4o', { prompt_tokens: 10, completion_tokens: 10 }, { price: 0 })).toMatchObject({ price: 0, price_source: 'client' });
  });

  it('a model in no table costs 0 with source none; a custom row prices it', async () => {
    expect(await track('llama3.2', { prompt_tokens: 1_000_000, completion_tokens: 1_000_000 }, {}, 'ollama')).toMatchObject({ price: 0, price_source: 'none' });
    await put({ provider: 'ollama', model: 'llama3.2', input_per_mtok: 0.1, output_per_mtok: 0.2 });
    expect(await track('llama3.2', { prompt_tokens: 1_000_000, completion_tokens: 1_000_000 }, {}, 'ollama')).toMatchObject({ price: 0.3, price_source: 'table' });
    // Another workspace's row is not this one's.
    const theirs = await t.api('/track-request', {
      key: otherKey,
      body: {
        provider_type: 'ollama', kwargs: { model: 'llama3.2' }, request_response: { model: 'llama3.2', choices: [], usage: { prompt_tokens: 5, completion_tokens: 5 } },
        request_start_time: day(1), request_end_time: day(1),
      },
    });
    const stored = await t.api(`/api/public/v2/requests/${theirs.body.request_id}`, { key: otherKey });
    expect(stored.body).toMatchObject({ price: 0, price_source: 'none' });
  });

  it('refuses a negative price with 422 and logs nothing', async () => {
    const before = (await t.api('/api/public/v2/requests?limit=1')).body.items[0].id;
    const res = await t.api('/track-request', {
      body: { provider_type: 'openai', kwargs: { model: 'gpt-4o' }, request_response: {}, request_start_time: day(1), request_end_time: day(1), price: -1 },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'price']);
    expect((await t.api('/api/public/v2/requests?limit=1')).body.items[0].id).toBe(before);
  });
});

describe('price on GenAI spans (/v1/traces, OTLP/JSON)', () => {
  const attr = (key: string, value: string | number) => ({ key, value: typeof value === 'string' ? { stringValue: value } : { intValue: String(value) } });
  async function spanRequest(attributes: unknown[]) {
    const span = {
      traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex'), name: 'chat', kind: 'SPAN_KIND_CLIENT',
      startTimeUnixNano: '1790000000000000000', endTimeUnixNano: '1790000001000000000', attributes,
    };
    const res = await t.api('/v1/traces', { body: { resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] } });
    expect(res.status).toBe(200);
    const view = await t.api(`/api/public/v2/traces/${span.traceId}`);
    return { request: await get(view.body.spans[0].request_id), traceId: span.traceId };
  }

  it('prices from the table with cache reads apart, and the trace adds it up', async () => {
    const { request, traceId } = await spanRequest([
      attr('gen_ai.provider.name', 'openai'), attr('gen_ai.request.model', 'gpt-4o-mini'),
      attr('gen_ai.usage.input_tokens', 42_000), attr('gen_ai.usage.output_tokens', 7_000), attr('gen_ai.usage.cache_read.input_tokens', 30_000),
    ]);
    const expected = usd([12_000, 0.15], [30_000, 0.075], [7_000, 0.6]);
    expect(request.price_source).toBe('table');
    expect(request.price).toBeCloseTo(expected, 12);
    const traces = (await t.api('/api/public/v2/traces?limit=100')).body.traces as Array<{ trace_id: string; price: number }>;
    expect(traces.find((x) => x.trace_id === traceId)!.price).toBeCloseTo(expected, 6);
  });

  it('OpenInference token details: reasoning priced at the reasoning rate', async () => {
    const { request } = await spanRequest([
      attr('llm.provider', 'openai'), attr('llm.model_name', 'o4-mini'), attr('openinference.span.kind', 'LLM'),
      attr('llm.token_count.prompt', 1000), attr('llm.token_count.completion', 1000), attr('llm.token_count.completion_details.reasoning', 600),
    ]);
    expect(request.price_source).toBe('table');
    expect(request.price).toBeCloseTo(usd([1000, 1.1], [400, 4.4], [600, 4.4]), 12);
  });

  it('a price on the span is the client’s; an unknown model is none', async () => {
    const priced = await spanRequest([attr('gen_ai.system', 'openai'), attr('gen_ai.request.model', 'gpt-4o'), attr('gen_ai.usage.input_tokens', 5), attr('gen_ai.usage.cost', '0.25')]);
    expect(priced.request).toMatchObject({ price: 0.25, price_source: 'client' });
    const unknown = await spanRequest([attr('gen_ai.system', 'acme'), attr('gen_ai.request.model', 'rocket-1'), attr('gen_ai.usage.input_tokens', 5)]);
    expect(unknown.request).toMatchObject({ price: 0, price_source: 'none' });
  });
});

describe('price on evaluation calls', () => {
  it('an evaluation’s LLM calls are priced from the table (the workspace’s row first)', async () => {
    await put({ provider: 'openai', model: 'gpt-4o-mini', input_per_mtok: 1000, output_per_mtok: 2000 });
    const { groupId } = await publishDataset(t, [{ q: 'one two three' }]);
    const done = await runOnePrompt(t, groupId, { provider: 'openai', model: 'gpt-4o-mini' }, 'Say {x}', 'priced');
    const logged = (await t.api(`/api/public/v2/requests?tags=report:${done.report.id}`)).body.items;
    expect(logged).toHaveLength(1);
    const [r] = logged;
    expect(r.input_tokens).toBeGreaterThan(0);
    expect(r).toMatchObject({ price_source: 'table', price: usd([r.input_tokens, 1000], [r.output_tokens, 2000]) });
    expect(done.stats.cost).toBeCloseTo(r.price, 9);
    await remove('openai', 'gpt-4o-mini');
  });
});

describe('POST /api/public/v2/prices/recompute', () => {
  it('changing the table rewrites nothing; a recompute reprices only table-priced requests of the range', async () => {
    await put({ provider: 'acme', model: 'rocket', input_per_mtok: 1, output_per_mtok: 1 });
    const at = async (d: number, extra: Record<string, unknown> = {}) =>
      track('rocket', { prompt_tokens: 1_000_000, completion_tokens: 0 }, { request_start_time: day(d), request_end_time: day(d), ...extra }, 'acme');
    const before = await at(10);
    const inside = await at(11);
    const client = await at(11, { price: 7 });
    const after = await at(12);
    expect([before.price, inside.price, client.price, after.price]).toEqual([1, 1, 7, 1]);

    await put({ provider: 'acme', model: 'rocket', input_per_mtok: 3, output_per_mtok: 1 });
    expect((await get(inside.id)).price).toBe(1);

    const stats = async () => (await t.api(`/api/public/v2/requests/stats?start_time=${encodeURIComponent(day(11))}&end_time=${encodeURIComponent(day(11))}&provider=acme`)).body.totals.cost;
    expect(await stats()).toBe(8);
    const res = await t.api('/api/public/v2/prices/recompute', { body: { start_time: day(11), end_time: new Date(Date.parse(day(11)) + 1).toISOString() } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ updated: 1 });
    expect((await get(inside.id)).price).toBe(3);
    expect((await get(client.id)).price).toBe(7);
    expect((await get(before.id)).price).toBe(1);
    expect((await get(after.id)).price).toBe(1);
    // The dashboard's totals follow.
    expect(await stats()).toBe(10);
    // Again with the same table: nothing to change.
    expect((await t.api('/api/public/v2/prices/recompute', { body: { start_time: day(11), end_time: day(11) } })).body).toEqual({ updated: 0 });
  });

  it.each([
    ['no start_time', { end_time: day(2) }, ['body', 'start_time']],
    ['an end before the start', { start_time: day(2), end_time: day(1) }, ['body', 'end_time']],
    ['a start that is not a time', { start_time: 'soon', end_time: day(1) }, ['body', 'start_time']],
  ])('refuses %s with 422', async (_name, body, loc) => {
    const res = await t.api('/api/public/v2/prices/recompute', { body });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(loc);
  });
});
