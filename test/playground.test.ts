import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlaygroundAnswer } from '../src-server/schemas/playground';
import { startMockLlm, type MockLlm } from './support/mock-llm';
import { startServer, type TestServer } from './support/server';

let t: TestServer;
let mock: MockLlm;
const RUN = '/api/public/v2/playground/run';

beforeAll(async () => {
  mock = await startMockLlm();
  t = await startServer({ env: { OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: 'sk-builtin' } });
  await t.api('/api/public/v2/providers', { body: { name: 'local', client: 'openai', base_url: mock.baseUrl } });
  await t.api('/api/public/v2/providers', { body: { name: 'claude-local', client: 'anthropic', base_url: mock.rootUrl, api_key: 'sk-ant' } });
});
afterAll(async () => {
  await t.close();
  await mock.close();
});

interface Frame {
  event: string;
  data: any;
}

/** Posts a streamed run and reads every SSE frame until the server ends the stream. */
async function streamRun(body: Record<string, unknown>, key = t.key): Promise<{ status: number; type: string | null; frames: Frame[] }> {
  const response = await fetch(t.url + RUN, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ ...body, stream: true }) });
  const text = await response.text();
  const frames = text
    .split('\n\n')
    // Comment frames (`: started`) carry no data.
    .filter((f) => f.split('\n').some((l) => l.startsWith('data: ')))
    .map((f) => {
      const event = /^event: (.*)$/m.exec(f)?.[1] ?? 'message';
      const data = f.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
      return { event, data: JSON.parse(data) };
    });
  return { status: response.status, type: response.headers.get('content-type'), frames };
}

async function publish(name: string, text: string, extra: Record<string, unknown> = {}) {
  const res = await t.api('/rest/prompt-templates', {
    body: {
      prompt_template: { prompt_name: name },
      prompt_version: {
        prompt_template: { type: 'chat', input_variables: ['topic'], messages: [{ role: 'system', content: [{ type: 'text', text: 'Be brief.' }] }, { role: 'user', content: [{ type: 'text', text }] }] },
        metadata: { model: { provider: 'local', name: 'mock-chat', parameters: { temperature: 0.5 } } },
      },
      ...extra,
    },
  });
  expect(res.status).toBe(201);
  return res.body;
}

describe('POST /api/public/v2/playground/run', () => {
  it('runs messages on a stored provider and answers after the call is logged', async () => {
    const res = await t.api(RUN, { body: { provider: 'local', model: 'mock-chat', parameters: { temperature: 0.2, max_tokens: 50 }, messages: [{ role: 'user', content: 'hello there' }] } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ request_id: expect.any(Number), output: 'echo: hello there', input_tokens: 2, output_tokens: 3, price: 0, latency_ms: expect.any(Number) });
    // The declared schema (OpenAPI, the UI's types) keeps every field of the real answer.
    expect(PlaygroundAnswer.strict().parse(res.body)).toEqual(res.body);
    const sent = mock.calls.at(-1)!;
    expect(sent.body).toMatchObject({ model: 'mock-chat', temperature: 0.2, max_tokens: 50, messages: [{ role: 'user', content: 'hello there' }] });
    const logged = (await t.api(`/api/public/v2/requests/${res.body.request_id}`)).body;
    expect(logged).toMatchObject({ provider: 'local', model: 'mock-chat', status: 'SUCCESS', input_tokens: 2, output_tokens: 3, parameters: { temperature: 0.2, max_tokens: 50 }, prompt_id: null });
    expect(logged.output.messages[0].content[0].text).toBe('echo: hello there');
  });

  it('accepts PromptLayer content blocks and the built-in provider with its environment key', async () => {
    const res = await t.api(RUN, { body: { provider: 'openai', model: 'gpt-4o-mini', messages: [{ role: 'system', content: [{ type: 'text', text: 'terse' }] }, { role: 'user', content: [{ type: 'text', text: 'blocks' }] }] } });
    expect(res.status).toBe(200);
    expect(res.body.output).toBe('echo: blocks');
    expect(mock.calls.at(-1)!.headers.authorization).toBe('Bearer sk-builtin');
  });

  it('renders edited messages with input_variables in each message\'s template format', async () => {
    const res = await t.api(RUN, {
      body: {
        provider: 'local', model: 'mock-chat', input_variables: { city: 'Oslo' },
        messages: [{ role: 'system', content: 'About {city}' }, { role: 'user', content: [{ type: 'text', text: 'Weather in {{ city }}?' }], template_format: 'jinja2' }],
      },
    });
    expect(res.body.output).toBe('echo: Weather in Oslo?');
    expect(mock.calls.at(-1)!.body.messages[0].content).toBe('About Oslo');
    // Without input_variables the text is sent as written, braces and all.
    expect((await t.api(RUN, { body: { provider: 'local', model: 'mock-chat', messages: [{ role: 'user', content: 'JSON: {"a": 1}' }] } })).body.output).toBe('echo: JSON: {"a": 1}');
    const broken = await t.api(RUN, { body: { provider: 'local', model: 'mock-chat', input_variables: {}, messages: [{ role: 'user', content: '{% if %}', template_format: 'jinja2' }] } });
    expect(broken.status).toBe(422);
    expect(broken.body.message).toContain("'input_variables'");
  });

  it('streams delta frames, then one done frame with the logged request', async () => {
    const { status, type, frames } = await streamRun({ provider: 'local', model: 'mock-chat', messages: [{ role: 'user', content: 'a longer streamed answer' }] });
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/event-stream/);
    const deltas = frames.filter((f) => f.event === 'delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((f) => f.data.text).join('')).toBe('echo: a longer streamed answer');
    expect(frames.at(-1)!.event).toBe('done');
    expect(frames.filter((f) => f.event === 'done')).toHaveLength(1);
    const done = frames.at(-1)!.data;
    expect(done).toEqual({ request_id: expect.any(Number), output: 'echo: a longer streamed answer', input_tokens: 4, output_tokens: 5, price: 0, latency_ms: expect.any(Number) });
    expect((await t.api(`/api/public/v2/requests/${done.request_id}`)).status).toBe(200);
  });

  it('streams from an Anthropic provider too', async () => {
    const { frames } = await streamRun({ provider: 'claude-local', model: 'claude-haiku-4-5', messages: [{ role: 'system', content: 'terse' }, { role: 'user', content: 'hi anthropic' }] });
    expect(frames.at(-1)).toEqual({ event: 'done', data: expect.objectContaining({ output: 'echo: hi anthropic', input_tokens: 2, output_tokens: 3 }) });
    expect(mock.calls.at(-1)!.body.system).toBe('terse');
  });

  it('runs a version by prompt_name and label: provider, model and parameters from its metadata, linked to the version', async () => {
    await publish('pg-label', 'Tell me about {topic}');
    await publish('pg-label', 'Version two on {topic}', { release_labels: ['staging'] });
    await publish('pg-label', 'Version three on {topic}');
    const res = await t.api(RUN, { body: { prompt_name: 'pg-label', label: 'staging', input_variables: { topic: 'owls' } } });
    expect(res.status).toBe(200);
    expect(res.body.output).toBe('echo: Version two on owls');
    expect(mock.calls.at(-1)!.body).toMatchObject({ model: 'mock-chat', temperature: 0.5, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Version two on owls' }] });
    const logged = (await t.api(`/api/public/v2/requests/${res.body.request_id}`)).body;
    expect(logged).toMatchObject({ provider: 'local', model: 'mock-chat', prompt_name: 'pg-label', prompt_version_number: 2, prompt_input_variables: { topic: 'owls' } });
    expect(logged.prompt_version.prompt_template.messages[1].content[0].text).toBe('Version two on {topic}');
    const linked = (await t.api(`/api/public/v2/requests?prompt_id=${logged.prompt_id}&prompt_version_number=2`)).body.items;
    expect(linked.map((r: any) => r.id)).toContain(res.body.request_id);
  });

  it('runs a version by number, the latest by default, and lets provider, model and parameters override', async () => {
    await publish('pg-version', 'one {topic}');
    await publish('pg-version', 'two {topic}');
    expect((await t.api(RUN, { body: { prompt_name: 'pg-version', version: 1, input_variables: { topic: 'x' } } })).body.output).toBe('echo: one x');
    const latest = await t.api(RUN, { body: { prompt_name: 'pg-version', provider: 'openai', model: 'gpt-4o', parameters: { temperature: 0 } } });
    expect(latest.body.output).toBe('echo: two ');
    expect(mock.calls.at(-1)!.body).toMatchObject({ model: 'gpt-4o', temperature: 0 });
    expect((await t.api(`/api/public/v2/requests/${latest.body.request_id}`)).body).toMatchObject({ provider: 'openai', prompt_version_number: 2 });
  });

  it('answers 422 naming the field, and writes nothing', async () => {
    const before = (await t.api('/api/public/v2/requests')).body.total_estimate;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ provider: 'local', model: 'm' }, 'messages'],
      [{ provider: 'local', model: 'm', messages: [] }, 'messages'],
      [{ model: 'm', messages: [{ role: 'user', content: 'x' }] }, 'provider'],
      [{ provider: 'local', messages: [{ role: 'user', content: 'x' }] }, 'model'],
      [{ provider: 'local', model: 'm', messages: [{ role: 'robot', content: 'x' }] }, 'messages.0.role'],
      [{ provider: 'local', model: 'm', messages: [{ role: 'user', content: 'x' }], prompt_name: 'pg-version' }, 'prompt_name'],
      [{ prompt_name: 'pg-version', version: 1, label: 'staging' }, 'label'],
      [{ prompt_name: 'pg-version', version: 0 }, 'version'],
      [{ provider: 'local', model: 'm', messages: [{ role: 'user', content: 'x' }], stream: 'yes' }, 'stream'],
      [{ provider: 'local', model: 'm', messages: [{ role: 'user', content: '' }] }, 'messages'],
      [{ provider: 'local', model: 'x'.repeat(256), messages: [{ role: 'user', content: 'x' }] }, 'model'],
    ];
    for (const [body, field] of cases) {
      const res = await t.api(RUN, { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.success).toBe(false);
      expect(res.body.message, JSON.stringify(body)).toContain(`'${field}'`);
    }
    expect((await t.api(RUN, { body: { provider: 'local', model: 'x'.repeat(255), messages: [{ role: 'user', content: 'x' }] } })).status).toBe(200);
    expect((await t.api('/api/public/v2/requests')).body.total_estimate).toBe(before + 1);
  });

  it('answers 422 when the version names no model', async () => {
    await t.api('/rest/prompt-templates', { body: { prompt_template: { prompt_name: 'pg-bare' }, prompt_version: { prompt_template: { type: 'completion', content: [{ type: 'text', text: 'hi' }], input_variables: [] } } } });
    const res = await t.api(RUN, { body: { prompt_name: 'pg-bare' } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'provider']);
    expect((await t.api(RUN, { body: { prompt_name: 'pg-bare', provider: 'local', model: 'mock-chat' } })).body.output).toBe('echo: hi');
  });

  it('answers 404 for an unknown provider, prompt, version or label', async () => {
    await publish('pg-404', 'x');
    const unknownProvider = await t.api(RUN, { body: { provider: 'nowhere', model: 'm', messages: [{ role: 'user', content: 'x' }] } });
    expect(unknownProvider.status).toBe(404);
    expect(unknownProvider.body.message).toContain('nowhere');
    expect((await t.api(RUN, { body: { prompt_name: 'no-such-prompt' } })).status).toBe(404);
    expect((await t.api(RUN, { body: { prompt_name: 'pg-404', version: 9 } })).status).toBe(404);
    expect((await t.api(RUN, { body: { prompt_name: 'pg-404', label: 'nope' } })).status).toBe(404);
    expect((await t.api(RUN, { body: { prompt_name: 'pg-404', provider: 'nowhere' } })).status).toBe(404);
  });

  it("does not see another workspace's providers or prompts", async () => {
    const other = (await t.api('/api/public/v2/workspaces', { body: { name: 'pg-other' } })).body.api_key;
    await publish('pg-private', 'secret');
    expect((await t.api(RUN, { body: { provider: 'local', model: 'm', messages: [{ role: 'user', content: 'x' }] }, key: other })).status).toBe(404);
    expect((await t.api(RUN, { body: { prompt_name: 'pg-private' }, key: other })).status).toBe(404);
  });

  it('answers 502 for a provider failure, naming the provider status and the logged ERROR request', async () => {
    mock.failNext(1, 400);
    const res = await t.api(RUN, { body: { provider: 'local', model: 'mock-chat', messages: [{ role: 'user', content: 'fail please' }] } });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ success: false, provider_status: 400, request_id: expect.any(Number) });
    expect(res.body.message).toContain("'local'");
    expect(res.body.message).toContain('injected failure 400');
    const logged = (await t.api(`/api/public/v2/requests/${res.body.request_id}`)).body;
    expect(logged).toMatchObject({ status: 'ERROR', error_type: 'ProviderError', output_tokens: 0 });
    expect(logged.error_message).toContain('injected failure 400');
  });

  it('ends a failed stream with one error frame', async () => {
    mock.failNext(1, 401);
    const { status, frames } = await streamRun({ provider: 'local', model: 'mock-chat', messages: [{ role: 'user', content: 'x' }] });
    expect(status).toBe(200);
    expect(frames).toEqual([{ event: 'error', data: expect.objectContaining({ status: 502, provider_status: 401, request_id: expect.any(Number), message: expect.stringContaining('injected failure 401') }) }]);
  });

  it('is refused by the offline egress setting (403, nothing logged, nothing sent)', async () => {
    const key = (await t.api('/api/public/v2/workspaces', { body: { name: 'pg-offline' } })).body.api_key;
    await t.api('/api/public/v2/providers', { body: { name: 'far', client: 'openai', base_url: 'https://api.example.com/v1', api_key: 'sk-far' }, key });
    await t.api('/api/public/v2/providers', { body: { name: 'near', client: 'openai', base_url: mock.baseUrl }, key });
    expect((await t.api('/api/public/v2/settings/egress', { method: 'PUT', body: { offline: true, allowed_hosts: [] }, key })).status).toBe(200);
    const res = await t.api(RUN, { body: { provider: 'far', model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }, key });
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('api.example.com');
    const streamed = await streamRun({ provider: 'far', model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }, key);
    expect(streamed.frames).toEqual([{ event: 'error', data: expect.objectContaining({ status: 403 }) }]);
    expect((await t.api('/api/public/v2/requests', { key })).body.items).toEqual([]);
    // Loopback stays allowed offline: a local model still runs.
    expect((await t.api(RUN, { body: { provider: 'near', model: 'mock-chat', messages: [{ role: 'user', content: 'local' }] }, key })).status).toBe(200);
  });

  it('cancels the provider call when the client disconnects mid-stream, and logs nothing', async () => {
    const key = (await t.api('/api/public/v2/workspaces', { body: { name: 'pg-cancel' } })).body.api_key;
    await t.api('/api/public/v2/providers', { body: { name: 'slow', client: 'openai', base_url: mock.baseUrl }, key });
    mock.setLatency(5000);
    try {
      const client = new AbortController();
      const response = await fetch(t.url + RUN, {
        method: 'POST', signal: client.signal,
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ provider: 'slow', model: 'mock-chat', stream: true, messages: [{ role: 'user', content: 'cancel me' }] }),
      });
      expect(response.status).toBe(200);
      await expect.poll(() => mock.calls.some((c) => c.body?.messages?.[0]?.content === 'cancel me'), { timeout: 3000 }).toBe(true);
      const upstream = mock.calls.find((c) => c.body?.messages?.[0]?.content === 'cancel me')!;
      client.abort();
      await expect.poll(() => upstream.aborted, { timeout: 3000 }).toBe(true);
    } finally {
      mock.setLatency(0);
    }
    expect((await t.api('/api/public/v2/requests', { key })).body.items).toEqual([]);
  });
});

describe('POST /api/public/v2/providers/{id}/test', () => {
  it('answers ok with latency and models, or ok: false with the error', async () => {
    const good = (await t.api('/api/public/v2/providers', { body: { name: 'probe-good', client: 'openai', base_url: mock.baseUrl } })).body.provider;
    const res = await t.api(`/api/public/v2/providers/${good.id}/test`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, latency_ms: expect.any(Number), models: ['mock-chat', 'mock-embed'] });
    mock.failNext(1, 401);
    const bad = await t.api(`/api/public/v2/providers/${good.id}/test`, { method: 'POST' });
    expect(bad.status).toBe(200);
    expect(bad.body).toEqual({ ok: false, latency_ms: expect.any(Number), error: expect.stringContaining('401') });
    expect((await t.api('/api/public/v2/providers/99999/test', { method: 'POST' })).status).toBe(404);
  });
});
