import { notFound } from '../errors';
import type { TraceListQuery } from '../schemas/traces';
import type { Ingest } from '../store/ingest';
import type { NewRequest } from '../store/requests';
import type { SpanRecord, SpanStore, SpanWrite, TraceRecord } from '../store/spans';
import { conventionOf, genAiMappers } from '../traces/genai';
import type { LlmCall } from '../traces/genai/llm-call';
import type { DecodedSpan } from '../traces/otlp/otlp-spans';
import { searchText } from '../store/text-index';
import type { PriceQuote } from './pricing';

export interface TraceServiceDeps {
  store: SpanStore;
  /** Spans are written by the ingest thread, in the same group commits as requests. */
  ingest: Ingest;
  /** Prices a call the span did not price itself (services/pricing.ts). */
  quote: PriceQuote;
  now: () => number;
}

const NS_PER_MS = 1_000_000n;
/** Whole milliseconds of a decimal nanosecond count, by dropping digits (no BigInt: 10,000 spans per trace view). */
const msOf = (ns: string) => (ns.length > 6 ? Number(ns.slice(0, -6)) : 0);
const iso = (ns: string) => new Date(msOf(ns)).toISOString();
const durationMs = (start: string, end: string) => Number(BigInt(end) - BigInt(start)) / 1e6;
const MAX_ERROR_MESSAGE = 1024;

export function createTraceService({ store, ingest, quote, now }: TraceServiceDeps) {
  /** An LLM call a span recorded → the request it is logged as (linked to the span by the store). */
  function requestOf(workspaceId: number, span: DecodedSpan, call: LlmCall): NewRequest {
    const input = { type: 'chat', messages: call.messagesIn };
    const output = { type: 'chat', messages: call.messagesOut };
    const start = Number(BigInt(span.start_ns) / NS_PER_MS);
    const end = Number(BigInt(span.end_ns) / NS_PER_MS);
    const failed = span.status_code === 'ERROR';
    const exception = span.events.find((e) => e.name === 'exception')?.attributes;
    const priced = quote(workspaceId, {
      provider: call.provider, model: call.model, input_tokens: call.inputTokens, output_tokens: call.outputTokens,
      cached_input_tokens: call.cachedInputTokens, cache_write_tokens: call.cacheWriteTokens, reasoning_tokens: call.reasoningTokens,
      client_price: call.price,
    });
    return {
      workspace_id: workspaceId,
      provider: call.provider,
      model: call.model,
      input: JSON.stringify(input),
      output: JSON.stringify(output),
      request_start_time: start,
      request_end_time: end,
      latency_ms: Math.max(0, end - start),
      parameters: JSON.stringify(call.parameters),
      tags: [],
      metadata: call.usage,
      scores: {},
      prompt_id: null,
      prompt_name: null,
      prompt_version_number: null,
      prompt_version_id: null,
      prompt_input_variables: '{}',
      input_tokens: call.inputTokens,
      output_tokens: call.outputTokens,
      price: priced.price,
      price_source: priced.price_source,
      cached_input_tokens: call.cachedInputTokens || null,
      cache_write_tokens: call.cacheWriteTokens || null,
      reasoning_tokens: call.reasoningTokens || null,
      function_name: span.name,
      status: failed ? 'ERROR' : 'SUCCESS',
      error_type: failed && typeof exception?.['exception.type'] === 'string' ? exception['exception.type'].slice(0, 255) : null,
      error_message: failed ? (span.status_message || String(exception?.['exception.message'] ?? '')).slice(0, MAX_ERROR_MESSAGE) || null : null,
      api_type: null,
      group_id: null,
      created_at: now(),
      span_id: span.span_id,
      trace_id: span.trace_id,
      searchText: searchText(input, output),
    };
  }

  function spanView(span: SpanRecord) {
    return {
      span_id: span.span_id,
      parent_span_id: span.parent_span_id,
      name: span.name,
      kind: span.kind,
      start_time: iso(span.start_ns),
      end_time: iso(span.end_ns),
      // Exact times for a waterfall of sub-millisecond spans.
      start_time_unix_nano: span.start_ns,
      end_time_unix_nano: span.end_ns,
      duration_ms: durationMs(span.start_ns, span.end_ns),
      status: { code: span.status_code, message: span.status_message },
      attributes: span.attributes,
      events: span.events,
      resource: span.resource,
      request_id: span.request_id,
    };
  }

  function traceView(trace: TraceRecord) {
    return {
      trace_id: trace.trace_id,
      name: trace.name,
      start_time: iso(trace.start_ns),
      end_time: iso(trace.end_ns),
      duration_ms: durationMs(trace.start_ns, trace.end_ns),
      status: trace.status,
      span_count: trace.span_count,
      error_count: trace.error_count,
      input_tokens: trace.input_tokens,
      output_tokens: trace.output_tokens,
      price: Math.round(trace.price * 1e6) / 1e6,
      request_count: trace.request_count,
    };
  }

  return {
    /** Stores a batch; GenAI spans also become requests. Resolves once committed. */
    async ingest(workspaceId: number, spans: DecodedSpan[]): Promise<void> {
      if (spans.length === 0) return;
      const writes: SpanWrite[] = spans.map((span) => {
        const convention = conventionOf(span);
        return {
          span: { ...span, workspace_id: workspaceId },
          request: convention ? requestOf(workspaceId, span, genAiMappers[convention].map(span)) : null,
        };
      });
      await ingest.insertSpans(writes);
    },

    list(workspaceId: number, query: TraceListQuery) {
      const { traces, total } = store.list(
        workspaceId,
        { startTime: query.start_time, endTime: query.end_time, name: query.name, status: query.status, q: query.q },
        (query.page - 1) * query.per_page,
        query.per_page,
      );
      const pages = Math.ceil(total / query.per_page);
      return { traces: traces.map(traceView), page: query.page, per_page: query.per_page, total, pages };
    },

    /** Parents before children, siblings by start; a span whose parent never arrived is a root. */
    get(workspaceId: number, traceId: string) {
      const spans = store.trace(workspaceId, traceId);
      if (spans.length === 0) throw notFound('Trace');
      const ids = new Set(spans.map((s) => s.span_id));
      const children = new Map<string | null, SpanRecord[]>();
      for (const span of spans) {
        const parent = span.parent_span_id !== null && ids.has(span.parent_span_id) ? span.parent_span_id : null;
        (children.get(parent) ?? children.set(parent, []).get(parent)!).push(span);
      }
      const ordered: SpanRecord[] = [];
      const stack = [...(children.get(null) ?? [])].reverse();
      const seen = new Set<string>();
      while (stack.length > 0) {
        const span = stack.pop()!;
        // A malformed trace can name a cycle of parents; each span is listed once.
        if (seen.has(span.span_id)) continue;
        seen.add(span.span_id);
        ordered.push(span);
        stack.push(...[...(children.get(span.span_id) ?? [])].reverse());
      }
      // Spans caught in a parent cycle have no root to hang from; they follow, by start.
      for (const span of spans) if (!seen.has(span.span_id)) ordered.push(span);
      return { trace_id: traceId, spans: ordered.map(spanView) };
    },
  };
}

export type TraceService = ReturnType<typeof createTraceService>;
