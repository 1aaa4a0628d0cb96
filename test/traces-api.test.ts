import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logBody } from './support/factories';
import { startServer, type TestServer } from './support/server';

/** /spans-bulk, span ↔ request links in either order, the trace list's filters and workspace scope. */
let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(() => t.close());

let next = 0x100;
const newTraceId = () => (next++).toString(16).padStart(32, '0');
const newSpanId = () => (next++).toString(16).padStart(16, '0');
const SECOND = 1_000_000_000n;
const T0 = 1_790_000_000n * SECOND;

/** A span as the PromptLayer JS SDK's exporter writes it. */
function bulkSpan(traceId: string, spanId: string, name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    context: { trace_id: traceId, span_id: spanId, trace_state: '' },
    kind: 'SpanKind.INTERNAL',
    parent_id: null,
    start_time: String(T0),
    end_time: String(T0 + SECOND),
    status: { status_code: 'StatusCode.UNSET', description: undefined },
    attributes: {},
    events: [],
    links: [],
    resource: { attributes: { 'service.name': 'prompt-layer-js' }, schema_url: '' },
    ...extra,
  };
}

const sendBulk = (spans: unknown[], key?: string) => t.api('/spans-bulk', { body: { spans }, ...(key ? { key } : {}) });

describe('POST /spans-bulk', () => {
  it('answers the ids it stored; a child sent before its parent joins the tree when the parent comes', async () => {
    const traceId = newTraceId();
    const [rootId, childId] = [newSpanId(), newSpanId()];
    const child = bulkSpan(traceId, childId, 'child step', {
      parent_id: rootId, kind: 'SpanKind.CLIENT', start_time: String(T0 + SECOND / 4n), end_time: String(T0 + SECOND / 2n),
      events: [{ name: 'retry', timestamp: String(T0 + SECOND / 3n), attributes: { attempt: 2 } }],
    });
    const first = await sendBulk([child]);
    expect(first).toMatchObject({ status: 200, body: { success: true, spans: [{ span_id: childId, trace_id: traceId }] } });
    // Until its parent arrives the child stands as the root, and names the trace.
    expect((await t.api(`/api/public/v2/traces?name=child%20step`)).body.total).toBe(1);

    await sendBulk([bulkSpan(traceId, rootId, 'root step', { status: { status_code: 'StatusCode.OK' } })]);
    const view = await t.api(`/api/public/v2/traces/${traceId}`);
    expect(view.body.spans.map((s: { name: string; parent_span_id: string | null }) => [s.name, s.parent_span_id])).toEqual([
      ['root step', null], ['child step', rootId],
    ]);
    expect(view.body.spans[1]).toMatchObject({
      kind: 'CLIENT', duration_ms: 250, start_time_unix_nano: String(T0 + SECOND / 4n),
      events: [{ name: 'retry', time_unix_nano: String(T0 + SECOND / 3n), attributes: { attempt: 2 } }],
    });
    const list = await t.api('/api/public/v2/traces?name=root%20step');
    expect(list.body.traces).toEqual([expect.objectContaining({ trace_id: traceId, span_count: 2, status: 'OK', duration_ms: 1000 })]);
  });

  it('422 naming the field for a bad id, time or missing name, and nothing is written', async () => {
    const traceId = newTraceId();
    const good = bulkSpan(traceId, newSpanId(), 'fine');
    for (const [bad, loc] of [
      [bulkSpan(traceId, 'nothex', 'x'), ['body', 'spans', 1, 'context', 'span_id']],
      [bulkSpan('abc', newSpanId(), 'x'), ['body', 'spans', 1, 'context', 'trace_id']],
      [bulkSpan(traceId, newSpanId(), 'x', { start_time: '1.5' }), ['body', 'spans', 1, 'start_time']],
      [bulkSpan(traceId, newSpanId(), 'x', { end_time: String(T0 - 1n) }), ['body', 'spans', 1, 'end_time']],
      [{ ...bulkSpan(traceId, newSpanId(), 'x'), name: undefined }, ['body', 'spans', 1, 'name']],
    ] as const) {
      const response = await sendBulk([good, bad]);
      expect(response.status).toBe(422);
      expect(response.body.detail[0].loc).toEqual(loc);
    }
    expect((await t.api(`/api/public/v2/traces/${traceId}`)).status).toBe(404);
    expect((await t.api('/spans-bulk', { body: { spans: [good] }, key: null })).status).toBe(401);
  });
});

describe('requests link to spans by span_id', () => {
  it('a request logged before its span is joined to the trace when the span arrives, and counted in it', async () => {
    const [traceId, spanId] = [newTraceId(), newSpanId()];
    const logged = await t.api('/log-request', { body: logBody({ span_id: spanId, input_tokens: 11, output_tokens: 5, price: 0.25 }) });
    expect((await t.api(`/api/public/v2/requests/${logged.body.id}`)).body).toMatchObject({ span_id: spanId, trace_id: null });

    await sendBulk([bulkSpan(traceId, spanId, 'llm call first logged')]);
    expect((await t.api(`/api/public/v2/requests/${logged.body.id}`)).body.trace_id).toBe(traceId);
    expect((await t.api(`/api/public/v2/traces/${traceId}`)).body.spans[0].request_id).toBe(logged.body.id);
    const list = await t.api('/api/public/v2/traces?name=llm%20call%20first%20logged');
    expect(list.body.traces[0]).toMatchObject({ input_tokens: 11, output_tokens: 5, price: 0.25, request_count: 1 });
  });

  it('a request logged after its span joins at once; an all-zero span id is no link', async () => {
    const [traceId, spanId] = [newTraceId(), newSpanId()];
    await sendBulk([bulkSpan(traceId, spanId, 'llm call span first')]);
    const logged = await t.api('/log-request', { body: logBody({ span_id: spanId.toUpperCase(), input_tokens: 3 }) });
    expect((await t.api(`/api/public/v2/requests/${logged.body.id}`)).body).toMatchObject({ span_id: spanId, trace_id: traceId });
    expect((await t.api(`/api/public/v2/traces/${traceId}`)).body.spans[0].request_id).toBe(logged.body.id);
    expect((await t.api('/api/public/v2/traces?name=llm%20call%20span%20first')).body.traces[0].input_tokens).toBe(3);

    const unlinked = await t.api('/log-request', { body: logBody({ span_id: '0000000000000000' }) });
    expect((await t.api(`/api/public/v2/requests/${unlinked.body.id}`)).body.span_id).toBeNull();
  });
});

describe('GenAI conventions over OTLP/JSON', () => {
  const attr = (key: string, value: string | number) => ({ key, value: typeof value === 'string' ? { stringValue: value } : { intValue: String(value) } });
  const postOtlp = (span: Record<string, unknown>) =>
    t.api('/v1/traces', { body: { resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] } });
  const otlpSpan = (attributes: unknown[], events: unknown[] = []) => ({
    traceId: newTraceId(), spanId: newSpanId(), name: 'llm', kind: 'SPAN_KIND_CLIENT',
    startTimeUnixNano: String(T0), endTimeUnixNano: String(T0 + SECOND), attributes, events, status: { code: 'STATUS_CODE_ERROR', message: 'rate limited' },
  });

  it('OpenLLMetry: gen_ai.prompt.N / gen_ai.completion.N attributes and the older token names', async () => {
    const span = otlpSpan([
      attr('gen_ai.system', 'Anthropic'), attr('gen_ai.request.model', 'claude-haiku-4-5'),
      attr('gen_ai.prompt.0.role', 'user'), attr('gen_ai.prompt.0.content', 'Name a llama'),
      attr('gen_ai.completion.0.role', 'assistant'), attr('gen_ai.completion.0.content', 'Dolly'),
      attr('gen_ai.completion.0.tool_calls.0.name', 'lookup'), attr('gen_ai.completion.0.tool_calls.0.arguments', '{"q":"llama"}'),
      attr('gen_ai.usage.prompt_tokens', 9), attr('gen_ai.usage.completion_tokens', 2), attr('gen_ai.usage.cost', '0.5'),
    ]);
    expect((await postOtlp(span)).body).toEqual({});
    const view = await t.api(`/api/public/v2/traces/${span.traceId}`);
    const request = await t.api(`/api/public/v2/requests/${view.body.spans[0].request_id}`);
    expect(request.body).toMatchObject({
      provider: 'Anthropic', model: 'claude-haiku-4-5', input_tokens: 9, output_tokens: 2, price: 0.5, status: 'ERROR', error_message: 'rate limited',
      input: { messages: [{ role: 'user', content: [{ type: 'text', text: 'Name a llama' }] }] },
      output: { messages: [{ role: 'assistant', content: [{ type: 'text', text: 'Dolly' }], tool_calls: [{ function: { name: 'lookup', arguments: '{"q":"llama"}' } }] }] },
    });
  });

  it('current OTel GenAI with messages as span events; tool and agent spans are not requests', async () => {
    const span = otlpSpan(
      [attr('gen_ai.system', 'openai'), attr('gen_ai.request.model', 'gpt-4o'), attr('gen_ai.usage.input_tokens', 4), attr('gen_ai.usage.output_tokens', 1)],
      [
        { name: 'gen_ai.user.message', timeUnixNano: String(T0), attributes: [attr('content', 'Say yes')] },
        { name: 'gen_ai.choice', timeUnixNano: String(T0), attributes: [attr('message', '{"role":"assistant","content":"yes"}')] },
      ],
    );
    await postOtlp(span);
    const view = await t.api(`/api/public/v2/traces/${span.traceId}`);
    const request = await t.api(`/api/public/v2/requests/${view.body.spans[0].request_id}`);
    expect(request.body).toMatchObject({
      model: 'gpt-4o', input_tokens: 4, output_tokens: 1,
      input: { messages: [{ role: 'user', content: [{ type: 'text', text: 'Say yes' }] }] },
      output: { messages: [{ role: 'assistant', content: [{ type: 'text', text: 'yes' }] }] },
    });

    const tool = otlpSpan([attr('gen_ai.operation.name', 'execute_tool'), attr('gen_ai.request.model', 'gpt-4o')]);
    await postOtlp(tool);
    expect((await t.api(`/api/public/v2/traces/${tool.traceId}`)).body.spans[0].request_id).toBeNull();
  });
});

describe('GET /api/public/v2/traces', () => {
  it('pages newest first, filters by time, status and text in span names and attribute values', async () => {
    const other = await t.api('/api/public/v2/workspaces', { body: { name: 'paging' } });
    const key = other.body.api_key as string;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const traceId = newTraceId();
      ids.push(traceId);
      const start = T0 + BigInt(i) * 60n * SECOND;
      await sendBulk([bulkSpan(traceId, newSpanId(), `job ${i}`, {
        start_time: String(start), end_time: String(start + SECOND),
        attributes: { customer: i === 3 ? 'Zebra Corp' : 'someone' },
        status: { status_code: i === 1 ? 'StatusCode.ERROR' : 'StatusCode.OK' },
      })], key);
    }
    const get = (query: string) => t.api(`/api/public/v2/traces?${query}`, { key });
    const page1 = await get('per_page=2');
    expect(page1.body).toMatchObject({ page: 1, per_page: 2, total: 5, pages: 3 });
    expect(page1.body.traces.map((tr: { trace_id: string }) => tr.trace_id)).toEqual([ids[4], ids[3]]);
    expect((await get('per_page=2&page=3')).body.traces.map((tr: { trace_id: string }) => tr.trace_id)).toEqual([ids[0]]);
    expect((await get('per_page=100')).status).toBe(200);
    expect((await get('per_page=101')).status).toBe(422);
    expect((await get('status=ERROR')).body.traces.map((tr: { name: string }) => tr.name)).toEqual(['job 1']);
    expect((await get('status=OK')).body.total).toBe(4);
    expect((await get('status=BAD')).status).toBe(422);
    expect((await get('q=zebra')).body.traces.map((tr: { name: string }) => tr.name)).toEqual(['job 3']);
    expect((await get('q=job%202')).body.traces.map((tr: { name: string }) => tr.name)).toEqual(['job 2']);
    const startOf = (i: number) => new Date(Number((T0 + BigInt(i) * 60n * SECOND) / 1_000_000n)).toISOString();
    const ranged = await get(`start_time=${startOf(1)}&end_time=${startOf(3)}`);
    expect(ranged.body.traces.map((tr: { name: string }) => tr.name)).toEqual(['job 3', 'job 2', 'job 1']);

    // Another workspace's trace is not found, not forbidden, and absent from this one's list.
    expect((await t.api(`/api/public/v2/traces/${ids[0]}`)).status).toBe(404);
    expect((await t.api('/api/public/v2/traces?name=job%200')).body.total).toBe(0);
    expect((await t.api('/api/public/v2/traces/not-a-trace')).status).toBe(404);
  });
});
