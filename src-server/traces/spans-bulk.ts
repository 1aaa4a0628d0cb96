import type { BulkSpan } from '../schemas/traces';
import type { SpanStatusCode } from '../store/spans';
import type { DecodedSpan } from './otlp/otlp-spans';

/** `"SpanKind.CLIENT"` → `CLIENT`, `"StatusCode.ERROR"` → `ERROR` (the Python enums' repr the JS SDK copies). */
const enumName = (value: string | null | undefined, prefix: string) => (value ?? '').replace(prefix, '').toUpperCase();

/** The PromptLayer JS SDK's span (`POST /spans-bulk`) → the span every adapter produces. */
export function spanFromBulk(span: BulkSpan): DecodedSpan {
  const kind = enumName(span.kind, 'SpanKind.');
  const status = enumName(span.status?.status_code, 'StatusCode.');
  return {
    trace_id: span.context.trace_id,
    span_id: span.context.span_id,
    parent_span_id: span.parent_id ?? null,
    name: span.name,
    kind: ['INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'].includes(kind) ? kind : 'UNSPECIFIED',
    start_ns: span.start_time,
    end_ns: span.end_time,
    status_code: (['OK', 'ERROR'].includes(status) ? status : 'UNSET') as SpanStatusCode,
    status_message: span.status?.description ?? '',
    attributes: span.attributes ?? {},
    events: (span.events ?? []).map((event) => ({
      name: event.name,
      time_unix_nano: event.timestamp ?? span.start_time,
      attributes: event.attributes ?? {},
    })),
    resource: span.resource?.attributes ?? {},
  };
}
