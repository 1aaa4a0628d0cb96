import { PromptLayer } from 'promptlayer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './support/server';

/** The official `promptlayer` npm SDK, unmodified, pointed at our server. */
let t: TestServer;
let pl: PromptLayer;
beforeAll(async () => {
  t = await startServer();
  pl = new PromptLayer({ apiKey: t.key, baseURL: t.url });
});
afterAll(() => t.close());

describe('promptlayer SDK: logging', () => {
  it('logRequest, track.score/metadata/group and group.create work and are visible via the API', async () => {
    const logged = await pl.logRequest({
      provider: 'openai',
      model: 'gpt-4o',
      input: { type: 'chat', input_variables: [], messages: [{ role: 'user', input_variables: [], template_format: 'f-string', content: [{ type: 'text', text: 'Hello from the SDK' }] }] },
      output: { type: 'chat', input_variables: [], messages: [{ role: 'assistant', input_variables: [], template_format: 'f-string', content: [{ type: 'text', text: 'Hello, SDK.' }] }] },
      request_start_time: Date.now() / 1000 - 1,
      request_end_time: Date.now() / 1000,
      tags: ['sdk-test'],
      metadata: { source: 'vitest' },
      input_tokens: 5,
      output_tokens: 3,
    } as never);
    expect(logged).toMatchObject({ id: expect.any(Number) });
    const id = (logged as unknown as { id: number }).id;

    expect(await pl.track.score({ request_id: id, score: 88 })).toBe(true);
    expect(await pl.track.score({ request_id: id, score: 12, name: 'tone' })).toBe(true);
    expect(await pl.track.metadata({ request_id: id, metadata: { user: 'u-1' } })).toBe(true);
    const groupId = await pl.group.create();
    expect(groupId).toEqual(expect.any(Number));
    expect(await pl.track.group({ request_id: id, group_id: groupId as number })).toBe(true);

    const { body } = await t.api(`/api/public/v2/requests/${id}`);
    expect(body).toMatchObject({
      tags: ['sdk-test'],
      metadata: { source: 'vitest', user: 'u-1' },
      scores: { default: 88, tone: 12 },
      group_id: groupId,
      input_tokens: 5,
      output_tokens: 3,
    });
    const found = await t.api('/api/public/v2/requests?q=from%20the%20SDK');
    expect(found.body.items.map((r: { id: number }) => r.id)).toEqual([id]);
  });

  it('surfaces our 4xx error messages as SDK errors', async () => {
    await expect(pl.track.score({ request_id: 999999, score: 1 })).rejects.toThrow('Request not found.');
  });
});
