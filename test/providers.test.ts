import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './support/server';

const KEY = 'sk-test-0123456789abcdef';

describe('providers', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer();
  });
  afterAll(() => t?.close());

  it('creates, lists with masked keys, and deletes providers', async () => {
    const created = await t.api('/api/public/v2/providers', { body: { name: 'local-llm', client: 'openai', base_url: 'http://127.0.0.1:11434/v1', api_key: KEY } });
    expect(created.status).toBe(201);
    expect(created.body.provider).toMatchObject({ id: expect.any(Number), name: 'local-llm', client: 'openai', base_url: 'http://127.0.0.1:11434/v1', has_api_key: true });
    expect(JSON.stringify(created.body)).not.toContain(KEY);
    const list = await t.api('/api/public/v2/providers');
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(1);
    expect(list.body.items[0].api_key).toBe('sk-…cdef');
    expect(JSON.stringify(list.body)).not.toContain(KEY);

    expect((await t.api('/api/public/v2/providers', { body: { name: 'local-llm', client: 'anthropic' } })).status).toBe(409);
    const del = await t.api(`/api/public/v2/providers/${created.body.provider.id}`, { method: 'DELETE' });
    expect(del.status).toBe(204);
    expect((await t.api(`/api/public/v2/providers/${created.body.provider.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await t.api('/api/public/v2/providers')).body.items).toEqual([]);
  });

  it('rejects bad providers with 422 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: '', client: 'openai' }, 'name'],
      [{ name: 'x'.repeat(256), client: 'openai' }, 'name'],
      [{ name: 'openai', client: 'openai' }, 'name'],
      [{ name: 'p', client: 'gemini' }, 'client'],
      [{ name: 'p', client: 'openai', base_url: 'not a url' }, 'base_url'],
      [{ name: 'p', client: 'openai', base_url: 'file:///etc/passwd' }, 'base_url'],
      [{ client: 'openai' }, 'name'],
    ];
    for (const [body, field] of cases) {
      const res = await t.api('/api/public/v2/providers', { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', field]);
    }
    expect((await t.api('/api/public/v2/providers')).body.items).toEqual([]);
    expect((await t.api('/api/public/v2/providers', { body: { name: 'p'.repeat(255), client: 'anthropic' } })).status).toBe(201);
  });

  it('gives a fetched template its provider: base URL and, for the SDK, the key in full', async () => {
    const provider = (await t.api('/api/public/v2/providers', { body: { name: 'mock', client: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key: KEY } })).body.provider;
    const chat = { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] };
    // Linked explicitly by id...
    await t.api('/rest/prompt-templates', {
      body: { prompt_template: { prompt_name: 'by-id' }, prompt_version: { prompt_template: chat, metadata: { model: { provider: 'openai', name: 'm', parameters: {} } }, provider_id: provider.id } },
    });
    // ...or named as the model's provider.
    await t.api('/rest/prompt-templates', {
      body: { prompt_template: { prompt_name: 'by-name' }, prompt_version: { prompt_template: chat, metadata: { model: { provider: 'mock', name: 'm', parameters: {} } } } },
    });
    for (const name of ['by-id', 'by-name']) {
      const res = await t.api(`/prompt-templates/${name}`, { method: 'POST' });
      expect(res.body.provider_base_url).toEqual({ id: provider.id, name: 'mock', provider: 'openai', url: 'http://127.0.0.1:9/v1' });
      expect(res.body.custom_provider).toEqual({ id: provider.id, name: 'mock', client: 'openai', base_url: 'http://127.0.0.1:9/v1', workspace_id: 1, api_key: KEY });
      expect(res.body.metadata.model.api_type).toBe('chat-completions');
    }
    const unknown = await t.api('/rest/prompt-templates', {
      body: { prompt_template: { prompt_name: 'x' }, prompt_version: { prompt_template: chat, inference_client_name: 'nope' } },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0].loc).toEqual(['body', 'prompt_version', 'inference_client_name']);
  });

  it("keeps providers per workspace", async () => {
    await t.api('/api/public/v2/providers', { body: { name: 'mine', client: 'openai' } });
    const other = (await t.api('/api/public/v2/workspaces', { body: { name: 'Other' } })).body.api_key as string;
    expect((await t.api('/api/public/v2/providers', { key: other })).body.items).toEqual([]);
    const mine = (await t.api('/api/public/v2/providers')).body.items.find((p: any) => p.name === 'mine');
    expect((await t.api(`/api/public/v2/providers/${mine.id}`, { method: 'DELETE', key: other })).status).toBe(404);
    expect((await t.api('/api/public/v2/providers', { body: { name: 'mine', client: 'openai' }, key: other })).status).toBe(201);
  });
});
