import { context, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter as HttpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './support/server';

/** Real OpenTelemetry SDK exporters (protobuf and JSON) pointed at /v1/traces. */
let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(() => t.close());

/** A tracer whose spans go to our server through `exporter`; `flush` exports them and waits. */
function tracing(exporter: ProtobufExporter | HttpJsonExporter) {
  const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] });
  return { tracer: provider.getTracer('traces-test'), flush: () => provider.forceFlush(), shutdown: () => provider.shutdown() };
}

/** An agent run: a root, a retrieval step, a failing tool call and a GenAI chat span. Returns the trace id. */
function agentRun(tracer: Tracer, label: string): string {
  const root = tracer.startSpan(`agent ${label}`, { attributes: { 'app.user': 'u-7' } });
  const inRoot = trace.setSpan(context.active(), root);
  const retrieve = tracer.startSpan('retrieve documents', { attributes: { 'docs.count': 3 } }, inRoot);
  retrieve.end();
  const tool = tracer.startSpan('tool lookup_weather', {}, inRoot);
  tool.recordException(new Error('weather service down'));
  tool.setStatus({ code: SpanStatusCode.ERROR, message: 'weather service down' });
  tool.end();
  const chat = tracer.startSpan('chat gpt-4o-mini', {
    kind: 2,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.request.temperature': 0.2,
      'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
      'gen_ai.usage.input_tokens': 42,
      'gen_ai.usage.output_tokens': 7,
      'gen_ai.usage.cache_read.input_tokens': 30,
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: `What is the weather in ${label}?` }] }]),
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Sunny.' }], finish_reason: 'stop' }]),
    },
  }, inRoot);
  chat.end();
  root.end();
  return root.spanContext().traceId;
}

describe('POST /v1/traces with the OpenTelemetry SDK', () => {
  for (const [encoding, Exporter] of [['protobuf', ProtobufExporter], ['JSON', HttpJsonExporter]] as const) {
    it(`stores nested spans, an error span and a GenAI span sent as ${encoding}`, async () => {
      const { tracer, flush, shutdown } = tracing(new Exporter({ url: `${t.url}/v1/traces`, headers: { 'X-API-KEY': t.key } }));
      const traceId = agentRun(tracer, `Paris-${encoding}`);
      await flush();
      await shutdown();

      const { status, body } = await t.api(`/api/public/v2/traces/${traceId}`);
      expect(status).toBe(200);
      expect(body.spans.map((s: { name: string }) => s.name)).toEqual([
        `agent Paris-${encoding}`, 'retrieve documents', 'tool lookup_weather', 'chat gpt-4o-mini',
      ]);
      const [root, retrieve, tool, chat] = body.spans;
      expect(root.parent_span_id).toBeNull();
      expect([retrieve, tool, chat].map((s) => s.parent_span_id)).toEqual([root.span_id, root.span_id, root.span_id]);
      expect(retrieve.attributes).toEqual({ 'docs.count': 3 });
      expect(root.resource['telemetry.sdk.name']).toBe('opentelemetry');
      expect(tool.status).toEqual({ code: 'ERROR', message: 'weather service down' });
      expect(tool.events[0]).toMatchObject({ name: 'exception', attributes: { 'exception.message': 'weather service down' } });
      expect(chat.kind).toBe('CLIENT');
      expect(root.duration_ms).toBeGreaterThanOrEqual(chat.duration_ms);

      const request = await t.api(`/api/public/v2/requests/${chat.request_id}`);
      expect(request.body).toMatchObject({
        provider: 'openai',
        model: 'gpt-4o-mini',
        input_tokens: 42,
        output_tokens: 7,
        span_id: chat.span_id,
        trace_id: traceId,
        function_name: 'chat gpt-4o-mini',
        parameters: { temperature: 0.2 },
        input: { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: `What is the weather in Paris-${encoding}?` }] }] },
        output: { type: 'chat', messages: [{ role: 'assistant', content: [{ type: 'text', text: 'Sunny.' }] }] },
        // A usage kind with no column of its own is kept, never dropped.
        metadata: { 'gen_ai.usage.cache_read.input_tokens': '30' },
      });

      const list = await t.api(`/api/public/v2/traces?name=${encodeURIComponent(`agent Paris-${encoding}`)}`);
      expect(list.body.traces).toEqual([
        expect.objectContaining({
          // gpt-4o-mini from the price table: 12 input, 30 cached input, 7 output tokens (to the trace list's 6 decimals).
          trace_id: traceId, span_count: 4, error_count: 1, status: 'ERROR', input_tokens: 42, output_tokens: 7, request_count: 1, price: 0.000008,
        }),
      ]);
      // The request is in the explorer's lists and searches like any other.
      const found = await t.api(`/api/public/v2/requests?q=${encodeURIComponent(`Paris-${encoding}`)}`);
      expect(found.body.items.map((r: { id: number }) => r.id)).toEqual([chat.request_id]);
    });
  }

  it('accepts gzip, the key as a Bearer token, and answers in the request encoding', async () => {
    const { tracer, flush, shutdown } = tracing(
      new ProtobufExporter({ url: `${t.url}/v1/traces`, headers: { Authorization: `Bearer ${t.key}` }, compression: 'gzip' as never }),
    );
    const traceId = agentRun(tracer, 'gzip');
    await flush();
    await shutdown();
    expect((await t.api(`/api/public/v2/traces/${traceId}`)).body.spans).toHaveLength(4);
  });
});

const hex = (n: number, digits: number) => n.toString(16).padStart(digits, '0');
const jsonSpan = (traceId: string, spanId: string, extra: Record<string, unknown> = {}) => ({
  traceId, spanId, name: `span ${spanId}`, kind: 1, startTimeUnixNano: '1790000000000000000', endTimeUnixNano: '1790000000500000000', ...extra,
});
const otlpJson = (spans: unknown[]) => ({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 't' }, spans }] }] });
const post = (body: string | Uint8Array, headers: Record<string, string>, key: string | null = t.key) =>
  fetch(`${t.url}/v1/traces`, { method: 'POST', body: body as BodyInit, headers: { ...headers, ...(key ? { 'X-API-KEY': key } : {}) } });

describe('POST /v1/traces refuses what it cannot read, and writes nothing then', () => {
  it('400 for a garbage protobuf body and for malformed JSON', async () => {
    const before = (await t.api('/api/public/v2/traces')).body.total;
    const garbage = await post(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]), { 'content-type': 'application/x-protobuf' });
    expect(garbage.status).toBe(400);
    expect(await garbage.json()).toMatchObject({ success: false, message: expect.stringContaining('Undecodable') });
    expect((await post('{"resourceSpans": [', { 'content-type': 'application/json' })).status).toBe(400);
    expect((await post('{"resourceSpans": 5}', { 'content-type': 'application/json' })).status).toBe(400);
    expect((await post(Buffer.from('not gzip'), { 'content-type': 'application/json', 'content-encoding': 'gzip' })).status).toBe(400);
    expect((await t.api('/api/public/v2/traces')).body.total).toBe(before);
  });

  it('415 for another content type or encoding; 401 without a key or with a wrong one', async () => {
    const body = JSON.stringify(otlpJson([jsonSpan(hex(1, 32), hex(1, 16))]));
    expect((await post(body, { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post(body, { 'content-type': 'application/json', 'content-encoding': 'br' })).status).toBe(415);
    expect((await post(body, { 'content-type': 'application/json' }, null)).status).toBe(401);
    expect((await post(body, { 'content-type': 'application/json' }, 'pl_wrong')).status).toBe(401);
    expect((await t.api(`/api/public/v2/traces/${hex(1, 32)}`)).status).toBe(404);
  });

  it('partial success: bad spans are counted and refused, the rest are stored', async () => {
    const traceId = hex(0xabc, 32);
    const body = otlpJson([
      jsonSpan(traceId, hex(1, 16)),
      jsonSpan(traceId, 'xyz'),
      jsonSpan(traceId, hex(2, 16), { startTimeUnixNano: '2', endTimeUnixNano: '1' }),
      jsonSpan(hex(0, 32), hex(3, 16)),
    ]);
    const response = await post(JSON.stringify(body), { 'content-type': 'application/json' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ partialSuccess: { rejectedSpans: '3', errorMessage: expect.stringContaining('spanId') } });
    expect((await t.api(`/api/public/v2/traces/${traceId}`)).body.spans.map((s: { span_id: string }) => s.span_id)).toEqual([hex(1, 16)]);
  });

  it('a body at the size limit is read, one byte past it is 413, also once inflated', async () => {
    const small = await startServer({ bodyLimitBytes: 2000 });
    try {
      const padded = (size: number) => {
        const text = JSON.stringify(otlpJson([jsonSpan(hex(5, 32), hex(5, 16))]));
        return text.slice(0, -1) + ' '.repeat(size - text.length) + '}';
      };
      const send = (body: string | Uint8Array, headers: Record<string, string> = {}) =>
        fetch(`${small.url}/v1/traces`, { method: 'POST', body: body as BodyInit, headers: { 'content-type': 'application/json', 'X-API-KEY': small.key, ...headers } });
      expect((await send(padded(2000))).status).toBe(200);
      expect((await send(padded(2001))).status).toBe(413);
      expect((await send(gzipSync(padded(2000)), { 'content-encoding': 'gzip' })).status).toBe(200);
      expect((await send(gzipSync(padded(2001)), { 'content-encoding': 'gzip' })).status).toBe(413);
    } finally {
      await small.close();
    }
  });

  it('a span sent twice (an exporter retrying) is stored once', async () => {
    const traceId = hex(0xdef, 32);
    const body = JSON.stringify(otlpJson([jsonSpan(traceId, hex(9, 16))]));
    expect((await post(body, { 'content-type': 'application/json' })).status).toBe(200);
    expect((await post(body, { 'content-type': 'application/json' })).status).toBe(200);
    expect((await t.api(`/api/public/v2/traces/${traceId}`)).body.spans).toHaveLength(1);
    const list = await t.api('/api/public/v2/traces?q=span%200000000000000009');
    expect(list.body.traces).toEqual([expect.objectContaining({ trace_id: traceId, span_count: 1 })]);
  });
});
