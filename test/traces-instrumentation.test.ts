import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockLlm, type MockLlm } from './support/mock-llm';
import { startServer, type TestServer } from './support/server';

/** OpenInference's instrumentation of the `openai` package, exporting OTLP protobuf to /v1/traces. */
let t: TestServer;
let mock: MockLlm;
let provider: NodeTracerProvider;
beforeAll(async () => {
  [t, mock] = await Promise.all([startServer(), startMockLlm()]);
  provider = new NodeTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${t.url}/v1/traces`, headers: { 'X-API-KEY': t.key } }))],
  });
  // Registers the async context manager too, so the instrumented call becomes a child of the active span.
  provider.register();
  new OpenAIInstrumentation({ tracerProvider: provider }).manuallyInstrument(OpenAI);
});
afterAll(async () => {
  await provider.shutdown();
  await mock.close();
  await t.close();
});

describe('an OpenTelemetry instrumentation of the openai package', () => {
  it('the chat completion is a request with model and tokens inside its trace', async () => {
    const openai = new OpenAI({ apiKey: 'sk-mock', baseURL: mock.baseUrl });
    const tracer = provider.getTracer('app');
    const traceId = await tracer.startActiveSpan('plan trip', async (span) => {
      await openai.chat.completions.create({
        model: 'gpt-4o-mini',
        temperature: 0.3,
        messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Suggest a city for a weekend' }],
      });
      span.end();
      return span.spanContext().traceId;
    });
    await provider.forceFlush();

    const view = await t.api(`/api/public/v2/traces/${traceId}`);
    expect(view.status).toBe(200);
    const [root, llm] = view.body.spans;
    expect(root.name).toBe('plan trip');
    expect(llm).toMatchObject({ parent_span_id: root.span_id, attributes: { 'openinference.span.kind': 'LLM' }, request_id: expect.any(Number) });

    const request = await t.api(`/api/public/v2/requests/${llm.request_id}`);
    expect(request.body).toMatchObject({
      provider: 'openai',
      model: 'gpt-4o-mini',
      input_tokens: 6,
      output_tokens: 7,
      trace_id: traceId,
      span_id: llm.span_id,
      parameters: { temperature: 0.3 },
      input: {
        type: 'chat',
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
          { role: 'user', content: [{ type: 'text', text: 'Suggest a city for a weekend' }] },
        ],
      },
      output: { type: 'chat', messages: [{ role: 'assistant', content: [{ type: 'text', text: 'echo: Suggest a city for a weekend' }] }] },
      metadata: { 'llm.token_count.total': '13' },
    });
    // The dashboard counts it like any logged request.
    const stats = await t.api('/api/public/v2/requests/stats');
    expect(stats.body.totals).toMatchObject({ requests: 1, input_tokens: 6, output_tokens: 7 });
  });
});
