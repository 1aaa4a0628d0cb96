import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { z } from 'zod';
import { AppError } from '../../errors';
import { SpansBulkAnswer, SpansBulkBody, TraceDetail, TraceIdParam, TraceList, TraceListQuery } from '../../schemas/traces';
import type { TraceService } from '../../services/traces';
import { decodeProtobufRequest, encodeProtobufResponse } from '../../traces/otlp/otlp-protobuf';
import { spansFromOtlp, UndecodableError, type DecodedBatch } from '../../traces/otlp/otlp-spans';
import { spanFromBulk } from '../../traces/spans-bulk';
import { readRawBody } from '../body';
import { route, type Route } from '../route';

const gunzipAsync = promisify(gunzip);

const FORMATS: Record<string, 'protobuf' | 'json'> = {
  'application/x-protobuf': 'protobuf',
  'application/protobuf': 'protobuf',
  'application/json': 'json',
};

/** Documents the OTLP/JSON body in OpenAPI; the handler decodes both encodings itself. */
const OtlpBody = z.object({ resourceSpans: z.array(z.unknown()) }).meta({
  description: 'ExportTraceServiceRequest: OTLP/JSON, or protobuf with content-type application/x-protobuf; content-encoding gzip allowed.',
});

/** gzip is inflated under the same cap as the body itself, so a small bomb cannot fill memory. */
async function inflate(body: Buffer, encoding: string, limitBytes: number): Promise<Buffer> {
  if (encoding === 'identity' || encoding === '') return body;
  if (encoding !== 'gzip') throw new AppError('unsupported_media_type', `Unsupported content-encoding '${encoding}': send gzip or none.`);
  try {
    return await gunzipAsync(body, { maxOutputLength: limitBytes });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new AppError('payload_too_large', `The inflated body is larger than the limit of ${limitBytes} bytes.`);
    }
    throw new AppError('bad_request', 'The body is not valid gzip.');
  }
}

function decode(body: Buffer, format: 'protobuf' | 'json'): DecodedBatch {
  try {
    return format === 'protobuf'
      ? spansFromOtlp(decodeProtobufRequest(body), 'base64')
      : spansFromOtlp(JSON.parse(body.toString('utf8')), 'hex');
  } catch (error) {
    const reason = error instanceof UndecodableError ? error.message : (error as Error).message;
    throw new AppError('bad_request', `Undecodable ExportTraceServiceRequest (${format}): ${reason}`);
  }
}

export function traceRoutes(traces: TraceService, options: { bodyLimitBytes: number }): Route[] {
  return [
    route({
      method: 'post', path: '/v1/traces', summary: 'OTLP/HTTP trace export (protobuf or JSON)', tag: 'Traces', auth: 'key',
      streamBody: OtlpBody,
      response: { mediaType: 'application/x-protobuf', description: 'An ExportTraceServiceResponse in the request\'s encoding (protobuf, or OTLP/JSON `{}` / `{partialSuccess}`)' },
      handler: async ({ ctx, principal }) => {
        const format = FORMATS[ctx.request.type];
        if (!format) {
          throw new AppError('unsupported_media_type', `Unsupported content-type '${ctx.request.type}': send application/x-protobuf or application/json.`);
        }
        const raw = await readRawBody(ctx, options.bodyLimitBytes);
        const body = await inflate(raw, ctx.get('content-encoding').trim().toLowerCase(), options.bodyLimitBytes);
        const batch = decode(body, format);
        await traces.ingest(principal.workspaceId, batch.spans);
        const partial = batch.rejected > 0 ? { rejectedSpans: batch.rejected, errorMessage: batch.firstError ?? '' } : null;
        if (format === 'protobuf') {
          ctx.type = 'application/x-protobuf';
          return Buffer.from(encodeProtobufResponse(partial));
        }
        // OTLP/JSON writes 64-bit integers as decimal strings.
        return partial ? { partialSuccess: { ...partial, rejectedSpans: String(partial.rejectedSpans) } } : {};
      },
    }),
    route({
      method: 'post', path: '/spans-bulk', summary: "Spans from the PromptLayer JS SDK's exporter", tag: 'Traces', auth: 'key',
      body: SpansBulkBody,
      response: SpansBulkAnswer,
      handler: async ({ body, principal }) => {
        const spans = body.spans.map(spanFromBulk);
        await traces.ingest(principal.workspaceId, spans);
        return { success: true, spans: spans.map((s) => ({ span_id: s.span_id, trace_id: s.trace_id })) };
      },
    }),
    route({
      method: 'get', path: '/api/public/v2/traces', summary: 'Traces, newest first, with their rollups', tag: 'Traces', auth: 'key',
      query: TraceListQuery,
      response: TraceList,
      handler: ({ query, principal }) => traces.list(principal.workspaceId, query),
    }),
    route({
      method: 'get', path: '/api/public/v2/traces/:trace_id', summary: 'One trace: its spans, parents before children', tag: 'Traces',
      auth: 'key', params: TraceIdParam,
      response: TraceDetail,
      handler: ({ params, principal }) => traces.get(principal.workspaceId, params.trace_id.toLowerCase()),
    }),
  ];
}
