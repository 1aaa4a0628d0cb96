import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logBody } from './support/factories';
import { startServer, type TestServer } from './support/server';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(() => t.close());

const get = async (id: number) => (await t.api(`/api/public/v2/requests/${id}`)).body;

describe('POST /track-request', () => {
  it('stores an OpenAI chat completion as a logged request', async () => {
    const res = await t.api('/track-request', {
      key: null,
      body: {
        api_key: t.key,
        function_name: 'openai.chat.completions.create',
        provider_type: 'openai',
        args: [],
        kwargs: {
          model: 'gpt-4o-mini',
          temperature: 0.3,
          messages: [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: [{ type: 'text', text: 'Capital of Italy?' }] },
          ],
        },
        request_response: {
          id: 'chatcmpl-1',
          model: 'gpt-4o-mini-2024-07-18',
          choices: [{ index: 0, message: { role: 'assistant', content: 'Rome.' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 14, completion_tokens: 2, total_tokens: 16 },
        },
        request_start_time: 1_762_000_000,
        request_end_time: 1_762_000_000.75,
        tags: ['sdk'],
        metadata: { run: '1' },
        return_prompt_blueprint: true,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, request_id: expect.any(Number), message: expect.any(String) });
    expect(res.body.prompt_blueprint.prompt_template.messages.at(-1)).toMatchObject({
      role: 'assistant',
      content: [{ type: 'text', text: 'Rome.' }],
    });
    const stored = await get(res.body.request_id);
    expect(stored).toMatchObject({
      provider: 'openai',
      model: 'gpt-4o-mini-2024-07-18',
      input_tokens: 14,
      output_tokens: 2,
      latency_ms: 750,
      parameters: { temperature: 0.3 },
      tags: ['sdk'],
      metadata: { run: '1' },
      function_name: 'openai.chat.completions.create',
      api_type: 'chat-completions',
    });
    expect(stored.input.messages).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Capital of Italy?' }] },
    ]);
    expect(stored.output.messages[0].content).toEqual([{ type: 'text', text: 'Rome.' }]);
    const found = await t.api('/api/public/v2/requests?q=Italy');
    expect(found.body.items.map((r: { id: number }) => r.id)).toEqual([res.body.request_id]);
  });

  it('stores an Anthropic message with its system prompt and tool use', async () => {
    const res = await t.api('/track-request', {
      body: {
        function_name: 'anthropic.messages.create',
        provider_type: 'anthropic',
        kwargs: {
          model: 'claude-sonnet-4',
          max_tokens: 100,
          system: 'You are a weather bot.',
          messages: [{ role: 'user', content: 'Weather in Oslo?' }],
          tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
        },
        request_response: {
          model: 'claude-sonnet-4',
          content: [
            { type: 'text', text: 'Let me check.' },
            { type: 'tool_use', id: 'tu_1', name: 'get_weather', input: { city: 'Oslo' } },
          ],
          usage: { input_tokens: 20, output_tokens: 9 },
        },
        request_start_time: '2026-11-01T00:00:00Z',
        request_end_time: '2026-11-01T00:00:02Z',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.prompt_blueprint).toBeNull();
    const stored = await get(res.body.request_id);
    expect(stored).toMatchObject({ provider: 'anthropic', input_tokens: 20, output_tokens: 9, parameters: { max_tokens: 100 } });
    expect(stored.input.messages[0]).toEqual({ role: 'system', content: [{ type: 'text', text: 'You are a weather bot.' }] });
    expect(stored.input.tools).toHaveLength(1);
    expect(stored.output.messages[0].tool_calls[0]).toMatchObject({ function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } });
  });

  it('stores an OpenAI completion as a completion template', async () => {
    const res = await t.api('/track-request', {
      body: {
        provider_type: 'openai',
        kwargs: { model: 'gpt-3.5-turbo-instruct', prompt: 'Once upon a time' },
        request_response: { model: 'gpt-3.5-turbo-instruct', choices: [{ text: ' there was a log.' }], usage: { prompt_tokens: 4, completion_tokens: 5 } },
        request_start_time: 1_762_000_000,
        request_end_time: 1_762_000_001,
      },
    });
    const stored = await get(res.body.request_id);
    expect(stored.input).toMatchObject({ type: 'completion', content: [{ type: 'text', text: 'Once upon a time' }] });
    expect(stored.output).toMatchObject({ type: 'completion', content: [{ type: 'text', text: ' there was a log.' }] });
  });

  it('rejects a body without timestamps and writes nothing', async () => {
    const before = (await t.api('/api/public/v2/requests')).body.total_estimate;
    const res = await t.api('/track-request', { body: { provider_type: 'openai', kwargs: {}, request_response: {} } });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual(
      expect.arrayContaining([['body', 'request_start_time'], ['body', 'request_end_time']]),
    );
    expect((await t.api('/api/public/v2/requests')).body.total_estimate).toBe(before);
  });
});

describe('scores, metadata, prompts and groups after the fact', () => {
  it('records scores under a name, "default" by default, and validates 0–100', async () => {
    const { body } = await t.api('/log-request', { body: logBody() });
    for (const path of ['/library-track-score', '/rest/track-score']) {
      expect((await t.api(path, { body: { request_id: body.id, score: 100 } })).status).toBe(200);
      expect((await t.api(path, { body: { request_id: body.id, score: 0, name: 'accuracy' } })).status).toBe(200);
      const bad = await t.api(path, { body: { request_id: body.id, score: 101 } });
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['body', 'score']);
      expect((await t.api(path, { body: { request_id: 987654, score: 1 } })).status).toBe(404);
    }
    expect((await get(body.id)).scores).toEqual({ default: 100, accuracy: 0 });
    const filtered = await t.api('/api/public/v2/requests?score_min=100');
    expect(filtered.body.items.map((r: { id: number }) => r.id)).toContain(body.id);
  });

  it('merges metadata and rejects keys over 1024 chars', async () => {
    const { body } = await t.api('/log-request', { body: logBody({ metadata: { a: '1' } }) });
    expect((await t.api('/library-track-metadata', { body: { request_id: body.id, metadata: { b: '2', a: '3' } } })).status).toBe(200);
    expect((await get(body.id)).metadata).toEqual({ a: '3', b: '2' });
    const bad = await t.api('/rest/track-metadata', { body: { request_id: body.id, metadata: { ['k'.repeat(1025)]: 'v' } } });
    expect(bad.status).toBe(422);
    expect((await get(body.id)).metadata).toEqual({ a: '3', b: '2' });
  });

  it('creates groups and puts requests in them', async () => {
    const { body } = await t.api('/log-request', { body: logBody() });
    const group = await t.api('/create-group', { key: null, body: { api_key: t.key } });
    expect(group.status).toBe(200);
    expect(group.body).toEqual({ success: true, id: expect.any(Number) });
    expect((await t.api('/track-group', { body: { request_id: body.id, group_id: group.body.id } })).status).toBe(200);
    expect((await get(body.id)).group_id).toBe(group.body.id);
    expect((await t.api('/track-group', { body: { request_id: body.id, group_id: 99999 } })).status).toBe(404);
    expect((await t.api('/track-group', { body: { request_id: body.id, group_id: 0 } })).status).toBe(422);
  });

  it('stores a prompt link given after the fact', async () => {
    const { body } = await t.api('/log-request', { body: logBody() });
    const res = await t.api('/rest/track-prompt', {
      body: { request_id: body.id, prompt_name: 'greeting', prompt_input_variables: { name: 'Ada' }, version: 2 },
    });
    expect(res.status).toBe(200);
    expect(await get(body.id)).toMatchObject({ prompt_name: 'greeting', prompt_version_number: 2, prompt_input_variables: { name: 'Ada' } });
    const bad = await t.api('/rest/track-prompt', { body: { request_id: body.id, prompt_name: 'x', prompt_input_variables: {}, version: 0 } });
    expect(bad.status).toBe(422);
  });
});
