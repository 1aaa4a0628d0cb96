import { PromptLayer } from 'promptlayer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockLlm, type MockLlm } from './support/mock-llm';
import { startServer, type TestServer } from './support/server';

/** The official `promptlayer` npm SDK, unmodified, against the real server; `run()` calls the
 * `openai` npm package, pointed at the local mock LLM through a stored provider. */
let t: TestServer;
let pl: PromptLayer;
let mock: MockLlm;
let providerId: number;

const model = { provider: 'openai', name: 'gpt-4o-mini', parameters: { temperature: 0 } };
const userMessage = (text: string, format: 'f-string' | 'jinja2' = 'f-string') => ({
  role: 'user' as const, input_variables: [], template_format: format, content: [{ type: 'text' as const, text }],
});

beforeAll(async () => {
  t = await startServer();
  mock = await startMockLlm({ latencyMs: 25 });
  pl = new PromptLayer({ apiKey: t.key, baseURL: t.url });
  const provider = await t.api('/api/public/v2/providers', { body: { name: 'mock-llm', client: 'openai', base_url: mock.baseUrl, api_key: 'sk-mock-key-0123456789' } });
  providerId = provider.body.provider.id;
});
afterAll(async () => {
  await mock?.close();
  await t?.close();
});

describe('promptlayer SDK: prompt registry', () => {
  it('templates.publish creates versions and moves labels', async () => {
    const first = await pl.templates.publish({
      prompt_name: 'sdk-greeter',
      prompt_template: { type: 'chat', input_variables: ['name'], messages: [userMessage('Hello {name}, v1')] },
      commit_message: 'first',
      metadata: { model },
      tags: ['sdk'],
      release_labels: ['prod'],
    });
    expect(first).toMatchObject({ id: expect.any(Number), prompt_name: 'sdk-greeter', version_number: 1, release_labels: ['prod'], tags: ['sdk'] });
    const second = await pl.templates.publish({
      prompt_name: 'sdk-greeter',
      prompt_template: { type: 'chat', input_variables: ['name'], messages: [userMessage('Hello {name}, v2')] },
      metadata: { model },
    });
    expect(second).toMatchObject({ id: first.id, version_number: 2 });
    await pl.templates.publish({
      prompt_name: 'sdk-greeter',
      prompt_template: { type: 'chat', input_variables: ['name'], messages: [userMessage('Hello {name}, v3')] },
      metadata: { model },
      release_labels: ['staging'],
    });
  });

  it('templates.get fetches the latest, a version, a label, rendered in both formats', async () => {
    const latest = await pl.templates.get('sdk-greeter', { input_variables: { name: 'Ada' } });
    expect(latest?.version).toBe(3);
    const text = (r: any) => r.prompt_template.messages[0].content[0].text;
    expect(text(latest)).toBe('Hello Ada, v3');
    expect(latest?.llm_kwargs).toMatchObject({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello Ada, v3' }] });
    const v2 = await pl.templates.get('sdk-greeter', { version: 2, input_variables: { name: 'Bob' } });
    expect([v2?.version, text(v2)]).toEqual([2, 'Hello Bob, v2']);
    const prod = await pl.templates.get('sdk-greeter', { label: 'prod', input_variables: { name: 'Cy' } });
    expect([prod?.version, text(prod)]).toEqual([1, 'Hello Cy, v1']);
    const noVariables = await pl.templates.get('sdk-greeter');
    expect(text(noVariables)).toBe('Hello , v3');

    await pl.templates.publish({
      prompt_name: 'sdk jinja',
      prompt_template: { type: 'chat', input_variables: ['items'], messages: [userMessage('{% for i in items %}[{{ i }}]{% endfor %}{{ absent }}', 'jinja2')] },
      metadata: { model },
    });
    const jinja = await pl.templates.get('sdk jinja', { input_variables: { items: ['a', 'b'] } });
    expect(text(jinja)).toBe('[a][b]');
    await expect(pl.templates.get('sdk-greeter', { label: 'nope' })).rejects.toThrow(/not found/);
  });

  it('templates.all pages and filters by label', async () => {
    for (let i = 0; i < 3; i++) {
      await pl.templates.publish({ prompt_name: `sdk-page-${i}`, prompt_template: { type: 'completion', input_variables: [], content: [{ type: 'text', text: `p${i}` }] }, release_labels: i === 0 ? ['prod'] : [] });
    }
    const page1 = await pl.templates.all({ page: 1, per_page: 2 });
    const page2 = await pl.templates.all({ page: 2, per_page: 2 });
    const page3 = await pl.templates.all({ page: 3, per_page: 2 });
    const names = [...page1, ...page2, ...page3].map((i) => i.prompt_name);
    expect(names).toEqual(['sdk-page-2', 'sdk-page-1', 'sdk-page-0', 'sdk jinja', 'sdk-greeter']);
    const prod = await pl.templates.all({ label: 'prod' });
    expect(prod.map((i) => [i.prompt_name, i.version]).sort()).toEqual([['sdk-greeter', 1], ['sdk-page-0', 1]]);
  });
});

describe('promptlayer SDK: run() through the openai package against the mock LLM', () => {
  beforeAll(async () => {
    await pl.templates.publish({
      prompt_name: 'sdk-run',
      prompt_template: { type: 'chat', input_variables: ['topic'], messages: [{ role: 'system', input_variables: [], template_format: 'f-string', content: [{ type: 'text', text: 'Be brief.' }] }, userMessage('Tell me about {topic}')] },
      metadata: { model },
      provider_id: providerId,
      release_labels: ['prod'],
    });
  });

  const requestsFor = async (promptId: number) => (await t.api(`/api/public/v2/requests?prompt_id=${promptId}`)).body.items as any[];

  it('runs without streaming and logs the call with its prompt link, tokens and latency', async () => {
    mock.resetCounters();
    const result: any = await pl.run({ promptName: 'sdk-run', inputVariables: { topic: 'owls' }, tags: ['sdk-run'] });
    expect(result.raw_response.choices[0].message.content).toBe('echo: Tell me about owls');
    expect(result.request_id).toEqual(expect.any(Number));
    expect(mock.calls).toHaveLength(1);
    expect(mock.calls[0].path).toBe('/v1/chat/completions');
    expect(mock.calls[0].headers.authorization).toBe('Bearer sk-mock-key-0123456789');
    expect(mock.calls[0].body).toMatchObject({ model: 'gpt-4o-mini', temperature: 0, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Tell me about owls' }] });

    const fetched = await pl.templates.get('sdk-run');
    const logged = await t.api(`/api/public/v2/requests/${result.request_id}`);
    expect(logged.body).toMatchObject({
      provider: 'openai', model: 'gpt-4o-mini', prompt_id: fetched!.id, prompt_version_number: 1,
      prompt_input_variables: { topic: 'owls' }, input_tokens: 4, output_tokens: 5, tags: ['sdk-run'],
    });
    expect(logged.body.latency_ms).toBeGreaterThanOrEqual(20);
    expect(logged.body.output.messages[0].content[0].text).toBe('echo: Tell me about owls');
    expect(logged.body.prompt_version.prompt_template.messages[1].content[0].text).toBe('Tell me about {topic}');
    expect((await requestsFor(fetched!.id)).map((r) => r.id)).toContain(result.request_id);
  });

  it('runs with stream: true, yields chunks, and logs the assembled reply', async () => {
    mock.resetCounters();
    const chunks: any[] = [];
    const stream = (await pl.run({ promptName: 'sdk-run', inputVariables: { topic: 'streams' }, stream: true })) as AsyncIterable<any>;
    for await (const chunk of stream) chunks.push(chunk);
    expect(mock.calls[0].body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const last = chunks[chunks.length - 1];
    expect(last.request_id).toEqual(expect.any(Number));
    const logged = await t.api(`/api/public/v2/requests/${last.request_id}`);
    expect(logged.body.output.messages[0].content[0].text).toBe('echo: Tell me about streams');
    expect(logged.body).toMatchObject({ prompt_version_number: 1, input_tokens: 4, output_tokens: 5 });
    expect(logged.body.latency_ms).toBeGreaterThanOrEqual(20);
  });
});
