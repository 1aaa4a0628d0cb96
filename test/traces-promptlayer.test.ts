import { createRequire } from 'node:module';
import type { PromptLayer as PromptLayerClass } from 'promptlayer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockLlm, type MockLlm } from './support/mock-llm';
import { startServer, type TestServer } from './support/server';

// The SDK's ESM build loads `openai` with a bundler's require shim that ESM cannot satisfy, so its
// `pl.OpenAI` wrapper only works from CommonJS: load the SDK as a CommonJS app would.
const { PromptLayer } = createRequire(import.meta.url)('promptlayer') as { PromptLayer: typeof PromptLayerClass };

/** The `promptlayer` JS SDK with enableTracing: its span helper and wrapped OpenAI client, exporting to /spans-bulk. */
let t: TestServer;
let mock: MockLlm;
let pl: PromptLayerClass;
beforeAll(async () => {
  [t, mock] = await Promise.all([startServer(), startMockLlm()]);
  pl = new PromptLayer({ apiKey: t.key, baseURL: t.url, enableTracing: true });
});
afterAll(async () => {
  await mock.close();
  await t.close();
});

/** The SDK exports each span as it ends, without waiting; poll until `ready` holds. */
async function eventually<T>(read: () => Promise<T>, ready: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const value = await read();
    if (ready(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('timed out waiting for spans');
}

describe('promptlayer SDK with enableTracing', () => {
  it('a wrapped function calling the wrapped OpenAI client becomes a trace whose LLM span links its request', async () => {
    const OpenAI = pl.OpenAI as unknown as new (options: object) => {
      chat: { completions: { create(body: object): Promise<{ choices: Array<{ message: { content: string } }> }> } };
    };
    const openai = new OpenAI({ apiKey: 'sk-mock', baseURL: mock.baseUrl });
    const answer = pl.wrapWithSpan('answer question', async (question: string) => {
      const completion = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: question }] });
      return completion.choices[0].message.content;
    });
    expect(await answer('Tell me about owls')).toBe('echo: Tell me about owls');

    // /track-request named the LLM span; once the spans arrive the request is inside their trace.
    const list = await eventually(
      () => t.api('/api/public/v2/requests?q=about%20owls'),
      (r) => r.body.items[0]?.trace_id != null,
    );
    const request = list.body.items[0];
    expect(request).toMatchObject({ model: 'gpt-4o-mini', input_tokens: 4, span_id: expect.stringMatching(/^[0-9a-f]{16}$/) });

    const traceView = await eventually(
      () => t.api(`/api/public/v2/traces/${request.trace_id}`),
      (r) => r.body.spans?.length === 2,
    );
    const [root, llm] = traceView.body.spans;
    expect(root).toMatchObject({ name: 'answer question', parent_span_id: null, status: { code: 'OK' }, kind: 'INTERNAL' });
    expect(root.attributes.function_input).toBe('["Tell me about owls"]');
    // The SDK names the span `${provider}.${function_name}`, its function name already starting with the provider.
    expect(llm).toMatchObject({ name: 'openai.openai.chat.completions.create', parent_span_id: root.span_id, span_id: request.span_id, request_id: request.id });
    expect(BigInt(llm.start_time_unix_nano)).toBeGreaterThanOrEqual(BigInt(root.start_time_unix_nano));

    const traces = await t.api('/api/public/v2/traces?name=answer%20question');
    expect(traces.body.traces).toEqual([expect.objectContaining({ span_count: 2, request_count: 1, input_tokens: 4, error_count: 0, status: 'OK' })]);
  });

  it('a wrapped function that throws leaves an error span', async () => {
    const fail = pl.wrapWithSpan('flaky step', () => {
      throw new Error('flaky step failed');
    });
    expect(() => fail()).toThrow('flaky step failed');
    const traces = await eventually(() => t.api('/api/public/v2/traces?status=ERROR&name=flaky%20step'), (r) => r.body.total === 1);
    expect(traces.body.traces[0]).toMatchObject({ error_count: 1, status: 'ERROR', span_count: 1 });
    const view = await t.api(`/api/public/v2/traces/${traces.body.traces[0].trace_id}`);
    expect(view.body.spans[0].status).toEqual({ code: 'ERROR', message: 'flaky step failed' });
  });
});
