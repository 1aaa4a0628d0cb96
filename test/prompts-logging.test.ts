import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logBody } from './support/factories';
import { startServer, type TestServer } from './support/server';

describe('request logging links to the prompt registry', () => {
  let t: TestServer;
  let promptId: number;
  beforeAll(async () => {
    t = await startServer();
    for (const [text, labels] of [['first {q}', ['production']], ['second {q}', []]] as const) {
      const res = await t.api('/rest/prompt-templates', {
        body: {
          prompt_template: { prompt_name: 'qa' },
          prompt_version: { prompt_template: { type: 'completion', content: [{ type: 'text', text }] }, commit_message: text, metadata: { model: { provider: 'openai', name: 'gpt-4o', parameters: {} } } },
          release_labels: labels,
        },
      });
      promptId = res.body.id;
    }
  });
  afterAll(() => t?.close());

  it('resolves prompt_name (+ version) and answers the linked version', async () => {
    const latest = await t.api('/log-request', { body: logBody({ prompt_name: 'qa' }) });
    expect(latest.status).toBe(201);
    expect(latest.body.prompt_version).toMatchObject({ commit_message: 'second {q}', prompt_template: { type: 'completion' } });
    expect(latest.body.warning).toBeUndefined();
    const v1 = await t.api('/log-request', { body: logBody({ prompt_name: 'qa', prompt_version_number: 1 }) });
    expect(v1.body.prompt_version.commit_message).toBe('first {q}');
    const byId = await t.api('/log-request', { body: logBody({ prompt_id: promptId, prompt_version_number: 2 }) });
    expect(byId.body.prompt_version.commit_message).toBe('second {q}');
    const stored = await t.api(`/api/public/v2/requests/${v1.body.id}`);
    expect(stored.body).toMatchObject({ prompt_id: promptId, prompt_name: 'qa', prompt_version_number: 1 });
    expect(stored.body.prompt_version.commit_message).toBe('first {q}');
  });

  it('stores an unresolvable link as given, with a warning', async () => {
    const res = await t.api('/log-request', { body: logBody({ prompt_name: 'qa', prompt_version_number: 9 }) });
    expect(res.status).toBe(201);
    expect(res.body.warning).toEqual(expect.any(String));
    expect(res.body.prompt_version.commit_message).toBeNull();
    const other = (await t.api('/api/public/v2/workspaces', { body: { name: 'Other' } })).body.api_key as string;
    const foreign = await t.api('/log-request', { body: logBody({ prompt_id: promptId }), key: other });
    expect(foreign.body.warning).toEqual(expect.any(String));
    expect(foreign.body.prompt_version.commit_message).toBeNull();
  });

  it('lets the explorer filter by prompt and version', async () => {
    const v1 = await t.api('/api/public/v2/requests?prompt_id=' + promptId + '&prompt_version_number=1');
    expect(v1.status).toBe(200);
    expect(v1.body.items.length).toBeGreaterThan(0);
    expect(v1.body.items.every((r: any) => r.prompt_version_number === 1 && r.prompt_id === promptId)).toBe(true);
    const all = await t.api('/api/public/v2/requests?prompt_id=' + promptId);
    // The unresolved link (by name, version 9) carries no prompt_id, so it is not among them.
    expect(all.body.items.map((r: any) => r.prompt_version_number).sort()).toEqual([1, 2, 2]);
  });

  it('links a request afterwards through track-prompt by label', async () => {
    const logged = await t.api('/log-request', { body: logBody() });
    const res = await t.api('/rest/track-prompt', { body: { request_id: logged.body.id, prompt_name: 'qa', label: 'production', prompt_input_variables: { q: 'x' } } });
    expect(res.status).toBe(200);
    const stored = await t.api(`/api/public/v2/requests/${logged.body.id}`);
    expect(stored.body).toMatchObject({ prompt_id: promptId, prompt_version_number: 1, prompt_input_variables: { q: 'x' } });
  });
});
