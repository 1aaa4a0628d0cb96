import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRows, publishDataset, waitForRun } from './support/evaluations';
import { MOCK_MODELS, startMockLlm, type MockLlm } from './support/mock-llm';
import { startServer, type TestServer } from './support/server';

const KEY = 'sk-test-0123456789abcdef';

const ENV_OPENAI = 'sk-env-openai-secret-0001';
const ENV_ANTHROPIC = 'sk-env-anthropic-secret-0002';

describe('providers', () => {
  let t: TestServer;
  let mock: MockLlm;
  beforeAll(async () => {
    mock = await startMockLlm();
    t = await startServer({
      env: { OPENAI_API_KEY: ENV_OPENAI, OPENAI_BASE_URL: mock.baseUrl, ANTHROPIC_API_KEY: ENV_ANTHROPIC, ANTHROPIC_BASE_URL: mock.rootUrl },
    });
  });
  afterAll(async () => {
    await t?.close();
    await mock?.close();
  });
  const create = async (body: Record<string, unknown>, key?: string) => {
    const res = await t.api('/api/public/v2/providers', { body, key });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.provider as { id: number; name: string };
  };

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

  it('edits a provider with PATCH: only the given keys change, null clears the key or base URL', async () => {
    const p = await create({ name: 'edit-me', client: 'openai', base_url: 'http://127.0.0.1:1/v1', api_key: KEY });
    const renamed = await t.api(`/api/public/v2/providers/${p.id}`, { method: 'PATCH', body: { name: 'edited', base_url: mock.baseUrl } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.provider).toMatchObject({ id: p.id, name: 'edited', client: 'openai', base_url: mock.baseUrl, has_api_key: true, api_key: 'sk-…cdef' });
    expect(JSON.stringify(renamed.body)).not.toContain(KEY);

    const swapped = await t.api(`/api/public/v2/providers/${p.id}`, { method: 'PATCH', body: { client: 'anthropic', api_key: 'sk-new-key-9876543210' } });
    expect(swapped.body.provider).toMatchObject({ name: 'edited', client: 'anthropic', base_url: mock.baseUrl, api_key: 'sk-…3210' });
    const cleared = await t.api(`/api/public/v2/providers/${p.id}`, { method: 'PATCH', body: { api_key: null, base_url: null } });
    expect(cleared.body.provider).toMatchObject({ name: 'edited', client: 'anthropic', base_url: null, api_key: null, has_api_key: false });
    const unchanged = await t.api(`/api/public/v2/providers/${p.id}`, { method: 'PATCH', body: {} });
    expect(unchanged.body.provider).toEqual(cleared.body.provider);
    const listed = (await t.api('/api/public/v2/providers')).body.items.find((i: any) => i.id === p.id);
    expect(listed).toEqual(cleared.body.provider);
  });

  it('rejects a bad PATCH with 422 naming the field and writes nothing; 409 on a taken name; 404 elsewhere', async () => {
    const p = await create({ name: 'patch-target', client: 'openai', base_url: 'http://127.0.0.1:2/v1' });
    await create({ name: 'taken', client: 'openai' });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(256) }, 'name'],
      [{ name: 'Anthropic' }, 'name'],
      [{ client: 'gemini' }, 'client'],
      [{ base_url: 'ftp://example.com' }, 'base_url'],
      [{ api_key: '' }, 'api_key'],
      [{ name: 'fine', client: 'nope' }, 'client'],
    ];
    for (const [body, field] of cases) {
      const res = await t.api(`/api/public/v2/providers/${p.id}`, { method: 'PATCH', body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', field]);
    }
    expect((await t.api(`/api/public/v2/providers/${p.id}`, { method: 'PATCH', body: { name: 'taken' } })).status).toBe(409);
    const after = (await t.api('/api/public/v2/providers')).body.items.find((i: any) => i.id === p.id);
    expect(after).toMatchObject({ name: 'patch-target', client: 'openai', base_url: 'http://127.0.0.1:2/v1', api_key: null });
    expect((await t.api(`/api/public/v2/providers/${p.id}`, { method: 'PATCH', body: { name: 'x'.repeat(255) } })).status).toBe(200);

    expect((await t.api('/api/public/v2/providers/999999', { method: 'PATCH', body: { name: 'y' } })).status).toBe(404);
    const other = (await t.api('/api/public/v2/workspaces', { body: { name: 'Patchers' } })).body.api_key as string;
    expect((await t.api(`/api/public/v2/providers/${p.id}`, { method: 'PATCH', body: { name: 'mine-now' }, key: other })).status).toBe(404);
    expect((await t.api(`/api/public/v2/providers/${p.id}/test`, { method: 'POST', key: other })).status).toBe(404);
  });

  it('tests a connection: models and latency when it works, 200 with ok:false and the error when it does not', async () => {
    const good = await create({ name: 'test-good', client: 'openai', base_url: mock.baseUrl, api_key: 'sk-test-own-1111' });
    mock.resetCounters();
    const ok = await t.api(`/api/public/v2/providers/${good.id}/test`, { method: 'POST' });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ ok: true, latency_ms: expect.any(Number), models: MOCK_MODELS });
    expect(mock.calls.map((c) => [c.path, c.headers.authorization])).toEqual([['/v1/models', 'Bearer sk-test-own-1111']]);

    const claude = await create({ name: 'test-claude', client: 'anthropic', base_url: mock.rootUrl, api_key: 'sk-ant-own-2222' });
    mock.resetCounters();
    expect((await t.api(`/api/public/v2/providers/${claude.id}/test`, { method: 'POST', body: {} })).body).toMatchObject({ ok: true, models: MOCK_MODELS });
    expect(mock.calls[0].headers['x-api-key']).toBe('sk-ant-own-2222');

    mock.failNext(1, 401);
    const refused = await t.api(`/api/public/v2/providers/${good.id}/test`, { method: 'POST' });
    expect(refused.status).toBe(200);
    expect(refused.body).toEqual({ ok: false, latency_ms: expect.any(Number), error: expect.stringMatching(/answered 401: injected failure 401/) });

    // Port 9 (discard) is closed on loopback: the error names the address; one attempt, no retries.
    const down = await create({ name: 'test-down', client: 'openai', base_url: 'http://127.0.0.1:9/v1' });
    const unreachable = await t.api(`/api/public/v2/providers/${down.id}/test`, { method: 'POST' });
    expect(unreachable.body).toMatchObject({ ok: false, error: expect.stringMatching(/Could not reach http:\/\/127\.0\.0\.1:9\/v1\/models/) });
  });

  it('sends environment keys only to the built-in provider, never to a registered one (issue 10, item 6)', async () => {
    const local = await create({ name: 'keyless-openai', client: 'openai', base_url: mock.baseUrl });
    const localClaude = await create({ name: 'keyless-claude', client: 'anthropic', base_url: mock.rootUrl });
    const noUrl = await create({ name: 'keyless-no-url', client: 'openai' });
    const column = (name: string, provider: string) => ({
      column_type: 'PROMPT_TEMPLATE', name,
      configuration: {
        inline_template: { prompt_template: { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: `via ${provider}` }] }] } },
        engine: { provider, model: 'mock-chat' },
      },
    });
    const { groupId } = await publishDataset(t, [{ q: 1 }]);
    const pipeline = await t.api('/reports', {
      body: { dataset_group_id: groupId, columns: [column('builtin', 'openai'), column('builtin-claude', 'anthropic'), column('local', 'keyless-openai'), column('local-claude', 'keyless-claude'), column('no-url', 'keyless-no-url')] },
    });
    mock.resetCounters();
    const run = await t.api(`/reports/${pipeline.body.report_id}/run`, { body: { name: 'keys' } });
    await waitForRun(t, run.body.report_id);
    const { rows } = await allRows(t, run.body.report_id);
    for (const name of ['builtin', 'builtin-claude', 'local', 'local-claude', 'no-url']) expect(rows[0].cells[name].status, name).toBe('PASSED');
    const sent = (text: string) => mock.calls.find((c) => JSON.stringify(c.body).includes(text))!.headers;
    expect(sent('via openai').authorization).toBe(`Bearer ${ENV_OPENAI}`);
    expect(sent('via anthropic')['x-api-key']).toBe(ENV_ANTHROPIC);
    for (const text of ['via keyless-openai', 'via keyless-claude', 'via keyless-no-url']) {
      expect(sent(text).authorization, text).toBeUndefined();
      expect(sent(text)['x-api-key'], text).toBeUndefined();
    }
    expect(JSON.stringify(mock.calls.filter((c) => !/via (openai|anthropic)"/.test(JSON.stringify(c.body))).map((c) => c.headers))).not.toMatch(/env-(openai|anthropic)-secret/);

    // The connection test follows the same rule.
    mock.resetCounters();
    await t.api(`/api/public/v2/providers/${local.id}/test`, { method: 'POST' });
    await t.api(`/api/public/v2/providers/${localClaude.id}/test`, { method: 'POST' });
    await t.api(`/api/public/v2/providers/${noUrl.id}/test`, { method: 'POST' });
    expect(JSON.stringify(mock.calls.map((c) => c.headers))).not.toMatch(/env-(openai|anthropic)-secret/);
  });

  it('a run uses the provider as it is now: a PATCH or DELETE between runs takes effect at the next call', async () => {
    const provider = await create({ name: 'changing', client: 'openai', base_url: mock.baseUrl, api_key: 'sk-first-key-000000' });
    const { groupId } = await publishDataset(t, [{ q: 1 }]);
    const pipeline = await t.api('/reports', {
      body: {
        dataset_group_id: groupId,
        columns: [{
          column_type: 'PROMPT_TEMPLATE', name: 'a',
          configuration: { inline_template: { prompt_template: { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: 'via changing' }] }] } }, engine: { provider: 'changing', model: 'mock-chat' } },
        }],
      },
    });
    const runOnce = async (name: string) => {
      mock.resetCounters();
      const run = await t.api(`/reports/${pipeline.body.report_id}/run`, { body: { name } });
      await waitForRun(t, run.body.report_id);
      return (await allRows(t, run.body.report_id)).rows[0].cells.a;
    };
    expect((await runOnce('first')).status).toBe('PASSED');
    expect(mock.calls.at(-1)!.headers.authorization).toBe('Bearer sk-first-key-000000');

    await t.api(`/api/public/v2/providers/${provider.id}`, { method: 'PATCH', body: { api_key: 'sk-second-key-00000' } });
    expect((await runOnce('second')).status).toBe('PASSED');
    expect(mock.calls.at(-1)!.headers.authorization).toBe('Bearer sk-second-key-00000');

    await t.api(`/api/public/v2/providers/${provider.id}`, { method: 'PATCH', body: { base_url: `${mock.rootUrl}/moved/v1` } });
    await runOnce('moved');
    expect(mock.calls.at(-1)!.path).toBe('/moved/v1/chat/completions');

    await t.api(`/api/public/v2/providers/${provider.id}`, { method: 'DELETE' });
    const gone = await runOnce('gone');
    expect(gone.status).toBe('ERROR');
    expect(gone.error).toMatch(/Unknown provider 'changing'/);
  });

  it('lists the provider clients from the registry, for the UI', async () => {
    const res = await t.api('/api/public/v2/provider-clients');
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([
      { id: 'openai', display_name: 'OpenAI-compatible', default_base_url: 'https://api.openai.com/v1', api_key_env: 'OPENAI_API_KEY', base_url_env: 'OPENAI_BASE_URL' },
      { id: 'anthropic', display_name: 'Anthropic', default_base_url: 'https://api.anthropic.com', api_key_env: 'ANTHROPIC_API_KEY', base_url_env: 'ANTHROPIC_BASE_URL' },
    ]);
  });
});
