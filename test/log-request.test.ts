import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logBody } from './support/factories';
import { startServer, type TestServer } from './support/server';

let t: TestServer;
beforeAll(async () => {
  t = await startServer({ bodyLimitBytes: 64 * 1024 });
});
afterAll(() => t.close());

const log = (body: unknown) => t.api('/log-request', { body });
const countRequests = async () => (await t.api('/api/public/v2/requests?limit=1')).body.total_estimate as number;

/** Posts `body`, expects 422 naming `loc`, and checks nothing was stored. */
async function rejects(body: unknown, loc: Array<string | number>) {
  const before = await countRequests();
  const res = await log(body);
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body.success).toBe(false);
  expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc })]));
  expect(res.body.message).toContain(loc.slice(1).join('.'));
  expect(await countRequests()).toBe(before);
}

describe('POST /log-request', () => {
  it('stores the seed example and answers 201 with the request as a prompt version', async () => {
    const body = {
      provider: 'openai',
      model: 'gpt-4o',
      input: {
        type: 'chat',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'What is the capital of France?' }] }],
      },
      output: {
        type: 'chat',
        messages: [{ role: 'assistant', content: [{ type: 'text', text: 'Paris.' }] }],
      },
      request_start_time: '2024-04-03T20:57:25Z',
      request_end_time: '2024-04-03T20:57:26.5Z',
      parameters: { temperature: 0.2 },
      tags: ['geo', 'prod'],
      metadata: { user_id: '42' },
      input_tokens: 12,
      output_tokens: 3,
      price: 0.00012,
      function_name: 'openai.chat.completions.create',
      score: 90,
    };
    const res = await log(body);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      prompt_version: {
        prompt_template: body.input,
        commit_message: null,
        metadata: { model: { provider: 'openai', name: 'gpt-4o', parameters: { temperature: 0.2 } } },
      },
      status: 'SUCCESS',
      error_type: null,
      error_message: null,
    });
    const stored = await t.api(`/api/public/v2/requests/${res.body.id}`);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({
      id: res.body.id,
      provider: 'openai',
      model: 'gpt-4o',
      request_start_time: '2024-04-03T20:57:25.000Z',
      request_end_time: '2024-04-03T20:57:26.500Z',
      latency_ms: 1500,
      parameters: { temperature: 0.2 },
      tags: ['geo', 'prod'],
      metadata: { user_id: '42' },
      input_tokens: 12,
      output_tokens: 3,
      price: 0.00012,
      function_name: 'openai.chat.completions.create',
      score: 90,
      scored: true,
      scores: { default: 90 },
      status: 'SUCCESS',
      prompt_id: null,
      prompt_version: { commit_message: null },
    });
    expect(stored.body.output).toEqual(body.output);
  });

  it('reports score 0 for a body without score, as the seed specifies, and tells it from a given 0', async () => {
    const unscored = (await log(logBody())).body.id;
    const zero = (await log(logBody({ score: 0 }))).body.id;
    const named = (await log(logBody({ score: 70, score_name: 'tone' }))).body.id;
    const record = async (id: number) => (await t.api(`/api/public/v2/requests/${id}`)).body;
    expect(await record(unscored)).toMatchObject({ score: 0, scored: false, scores: {} });
    expect(await record(zero)).toMatchObject({ score: 0, scored: true, scores: { default: 0 } });
    expect(await record(named)).toMatchObject({ score: 0, scored: true, scores: { tone: 70 } });
    const listed = (await t.api('/api/public/v2/requests?limit=200')).body.items as Array<{ id: number; scored: boolean }>;
    expect(listed.find((r) => r.id === unscored)).toMatchObject({ score: 0, scored: false });
    // Range filters match given scores only: the implied 0 is not a score anyone gave.
    const lowest = (await t.api('/api/public/v2/requests?score_max=0&limit=200')).body.items.map((r: { id: number }) => r.id);
    expect(lowest).toContain(zero);
    expect(lowest).not.toContain(unscored);
  });

  it('becomes scored when a score arrives after the fact', async () => {
    const id = (await log(logBody())).body.id;
    expect((await t.api('/rest/track-score', { body: { request_id: id, score: 35 } })).status).toBe(200);
    expect((await t.api(`/api/public/v2/requests/${id}`)).body).toMatchObject({ score: 35, scored: true, scores: { default: 35 } });
  });

  it('accepts epoch seconds and ISO timestamps alike', async () => {
    const res = await log(logBody({ request_start_time: 1_700_000_000.25, request_end_time: '2023-11-14T22:13:21Z' }));
    expect(res.status).toBe(201);
    const stored = (await t.api(`/api/public/v2/requests/${res.body.id}`)).body;
    expect(stored.request_start_time).toBe('2023-11-14T22:13:20.250Z');
    expect(stored.latency_ms).toBe(750);
  });

  it('stores completion templates and keeps unknown content blocks verbatim', async () => {
    const input = {
      type: 'completion',
      content: [{ type: 'text', text: 'Say {thing}' }, { type: 'image_url', image_url: { url: 'data:x' }, detail: 'low' }],
      template_format: 'f-string',
      input_variables: ['thing'],
    };
    const output = { type: 'completion', content: [{ type: 'text', text: 'hello' }], template_format: 'f-string', input_variables: [] };
    const res = await log(logBody({ input, output }));
    expect(res.status).toBe(201);
    const stored = (await t.api(`/api/public/v2/requests/${res.body.id}`)).body;
    expect(stored.input).toEqual(input);
    expect(stored.output).toEqual(output);
  });

  it('keeps structured-output parameters', async () => {
    const response_format = {
      type: 'json_schema',
      json_schema: { name: 'answer', strict: true, schema: { type: 'object', properties: { city: { type: 'string' } } } },
    };
    const res = await log(logBody({ parameters: { response_format, temperature: 0 } }));
    const stored = (await t.api(`/api/public/v2/requests/${res.body.id}`)).body;
    expect(stored.parameters.response_format).toEqual(response_format);
  });

  it('stores ERROR status with its type and message', async () => {
    const res = await log(logBody({ status: 'ERROR', error_type: 'RateLimitError', error_message: 'slow down' }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'ERROR', error_type: 'RateLimitError', error_message: 'slow down' });
  });

  it('keeps a prompt link that does not resolve, with a warning', async () => {
    const res = await log(logBody({ prompt_name: 'no-such-template', prompt_version_number: 3 }));
    expect(res.status).toBe(201);
    expect(res.body.warning).toEqual(expect.any(String));
    const stored = (await t.api(`/api/public/v2/requests/${res.body.id}`)).body;
    expect(stored).toMatchObject({ prompt_name: 'no-such-template', prompt_version_number: 3 });
  });

  it('accepts the limits at their bounds', async () => {
    const res = await log(
      logBody({
        tags: ['t'.repeat(512)],
        metadata: { ['k'.repeat(1024)]: 'v' },
        prompt_version_number: 1,
        input_tokens: 0,
        output_tokens: 0,
        price: 0,
        score: 100,
        error_message: 'e'.repeat(1024),
      }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await log(logBody({ score: 0 }))).status).toBe(201);
  });

  it.each([
    ['a tag over 512 chars', { tags: ['ok', 't'.repeat(513)] }, ['body', 'tags', 1]],
    ['a metadata key over 1024 chars', { metadata: { ['k'.repeat(1025)]: 'v' } }, ['body', 'metadata', 'k'.repeat(1025)]],
    ['prompt_version_number 0', { prompt_version_number: 0 }, ['body', 'prompt_version_number']],
    ['negative input_tokens', { input_tokens: -1 }, ['body', 'input_tokens']],
    ['negative output_tokens', { output_tokens: -1 }, ['body', 'output_tokens']],
    ['negative price', { price: -0.01 }, ['body', 'price']],
    ['score 101', { score: 101 }, ['body', 'score']],
    ['score -1', { score: -1 }, ['body', 'score']],
    ['a fractional score', { score: 50.5 }, ['body', 'score']],
    ['error_message over 1024 chars', { error_message: 'e'.repeat(1025) }, ['body', 'error_message']],
    ['an unknown status', { status: 'MAYBE' }, ['body', 'status']],
    ['tags that are not a list', { tags: 'one' }, ['body', 'tags']],
    ['a metadata value that is not a string', { metadata: { n: 1 } }, ['body', 'metadata', 'n']],
    ['an unknown template type', { input: { type: 'audio' } }, ['body', 'input', 'type']],
    ['a chat message with an unknown role', { input: { type: 'chat', messages: [{ role: 'robot', content: [] }] } }, ['body', 'input', 'messages', 0, 'role']],
    ['an unparseable time', { request_start_time: 'yesterday' }, ['body', 'request_start_time']],
  ])('rejects %s with 422 and writes nothing', async (_name, override, loc) => {
    await rejects(logBody(override), loc);
  });

  it.each(['provider', 'model', 'input', 'output', 'request_start_time', 'request_end_time'])(
    'rejects a body without %s',
    async (field) => {
      const body: Record<string, unknown> = logBody();
      delete body[field];
      const before = await countRequests();
      const res = await log(body);
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toEqual({ loc: ['body', field], msg: 'Field required', type: 'missing' });
      expect(res.body.message).toBe(`Invalid field '${field}': Field required`);
      expect(await countRequests()).toBe(before);
    },
  );

  it('rejects malformed JSON with 422', async () => {
    const res = await t.api('/log-request', { rawBody: '{"provider": "openai",' });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
  });

  it('rejects a body that is not an object', async () => {
    const res = await t.api('/log-request', { rawBody: '[1,2]' });
    expect(res.status).toBe(422);
  });

  it('answers 413 for a body over the configured limit, and accepts one just under', async () => {
    const before = await countRequests();
    const padding = (n: number) => logBody({ metadata: { pad: 'x'.repeat(n) } });
    const base = JSON.stringify(padding(0)).length;
    const over = await log(padding(64 * 1024 - base + 1));
    expect(over.status).toBe(413);
    expect(over.body.success).toBe(false);
    expect(await countRequests()).toBe(before);
    const at = await log(padding(64 * 1024 - base));
    expect(at.status).toBe(201);
  });

  it('ignores unknown keys', async () => {
    const res = await log(logBody({ some_future_field: { a: 1 } }));
    expect(res.status).toBe(201);
  });
});
