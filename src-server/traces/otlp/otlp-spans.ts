import type { NewSpan, SpanStatusCode } from '../../store/spans';
import { isObject } from '../../is-object';

/** A span as decoded, before it is given to a workspace. */
export type DecodedSpan = Omit<NewSpan, 'workspace_id'>;

export interface DecodedBatch {
  spans: DecodedSpan[];
  /** Spans refused one by one (a bad id or time); the rest are stored: OTLP's partial success. */
  rejected: number;
  /** The first refusal's reason, for the response's errorMessage. */
  firstError: string | null;
}

/** The body is not an ExportTraceServiceRequest at all: 400, nothing stored. */
export class UndecodableError extends Error {}

const KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];
const STATUSES: SpanStatusCode[] = ['UNSET', 'OK', 'ERROR'];

/**
 * OTLP's ExportTraceServiceRequest → spans, from either encoding: protobuf decoded by
 * otlp-protobuf.ts (ids base64) or OTLP/JSON (ids hex, int64 as strings or numbers, enums as
 * numbers or names). Resource attributes are copied onto each span.
 */
export function spansFromOtlp(request: unknown, ids: 'base64' | 'hex'): DecodedBatch {
  if (!isObject(request)) throw new UndecodableError('The body is not an ExportTraceServiceRequest.');
  const batch: DecodedBatch = { spans: [], rejected: 0, firstError: null };
  for (const resourceSpans of list(request.resourceSpans, 'resourceSpans')) {
    const resource = attributeMap(isObject(resourceSpans.resource) ? resourceSpans.resource.attributes : undefined);
    for (const scopeSpans of list(resourceSpans.scopeSpans, 'scopeSpans')) {
      for (const span of list(scopeSpans.spans, 'spans')) {
        try {
          batch.spans.push(decodeSpan(span, resource, ids));
        } catch (error) {
          if (!(error instanceof SpanError)) throw error;
          batch.rejected++;
          batch.firstError ??= error.message;
        }
      }
    }
  }
  return batch;
}

class SpanError extends Error {}

function list(value: unknown, field: string): Array<Record<string, unknown>> {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every(isObject)) throw new UndecodableError(`'${field}' must be a list of objects.`);
  return value;
}

function decodeSpan(span: Record<string, unknown>, resource: Record<string, unknown>, ids: 'base64' | 'hex'): DecodedSpan {
  const traceId = id(span.traceId, 32, ids, 'traceId');
  const spanId = id(span.spanId, 16, ids, 'spanId');
  const parent = span.parentSpanId === undefined || span.parentSpanId === '' ? null : id(span.parentSpanId, 16, ids, 'parentSpanId');
  const start = nanos(span.startTimeUnixNano, 'startTimeUnixNano');
  const end = nanos(span.endTimeUnixNano, 'endTimeUnixNano');
  if (BigInt(end) < BigInt(start)) throw new SpanError(`span ${spanId} ends before it starts`);
  const status = isObject(span.status) ? span.status : {};
  return {
    trace_id: traceId,
    span_id: spanId,
    parent_span_id: parent,
    name: typeof span.name === 'string' ? span.name : '',
    kind: enumName(span.kind, KINDS, 'SPAN_KIND_') ?? 'UNSPECIFIED',
    start_ns: start,
    end_ns: end,
    status_code: (enumName(status.code, STATUSES, 'STATUS_CODE_') ?? 'UNSET') as SpanStatusCode,
    status_message: typeof status.message === 'string' ? status.message : '',
    attributes: attributeMap(span.attributes),
    events: (Array.isArray(span.events) ? span.events.filter(isObject) : []).map((event) => ({
      name: typeof event.name === 'string' ? event.name : '',
      time_unix_nano: event.timeUnixNano === undefined ? start : nanos(event.timeUnixNano, 'events.timeUnixNano'),
      attributes: attributeMap(event.attributes),
    })),
    resource,
  };
}

function id(value: unknown, hexDigits: number, encoding: 'base64' | 'hex', field: string): string {
  const hex = typeof value !== 'string' ? '' : encoding === 'hex' ? value.toLowerCase() : Buffer.from(value, 'base64').toString('hex');
  // An all-zero id is OpenTelemetry's "invalid".
  if (!new RegExp(`^[0-9a-f]{${hexDigits}}$`).test(hex) || /^0+$/.test(hex)) {
    throw new SpanError(`${field} must be ${hexDigits / 2} bytes and not all zero`);
  }
  return hex;
}

function nanos(value: unknown, field: string): string {
  const text = typeof value === 'number' ? (Number.isSafeInteger(value) ? String(value) : '') : typeof value === 'string' ? value : '';
  if (!/^\d{1,19}$/.test(text) || BigInt(text) >= 2n ** 63n) throw new SpanError(`${field} must be epoch nanoseconds`);
  return BigInt(text).toString();
}

function enumName(value: unknown, names: string[], prefix: string): string | undefined {
  if (typeof value === 'number') return names[value];
  if (typeof value === 'string') {
    const name = value.startsWith(prefix) ? value.slice(prefix.length) : value;
    return names.includes(name) ? name : undefined;
  }
  return undefined;
}

/** OTLP's `[{key, value: AnyValue}]` → a plain object of JSON values. */
export function attributeMap(value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!Array.isArray(value)) return out;
  for (const entry of value) {
    if (isObject(entry) && typeof entry.key === 'string') out[entry.key] = anyValue(entry.value);
  }
  return out;
}

function anyValue(value: unknown): unknown {
  if (!isObject(value)) return null;
  if (typeof value.stringValue === 'string') return value.stringValue;
  if (typeof value.boolValue === 'boolean') return value.boolValue;
  if (value.intValue !== undefined) {
    const n = Number(value.intValue);
    // Past 2^53 a double would change the number; keep its digits instead.
    return Number.isSafeInteger(n) ? n : String(value.intValue);
  }
  if (value.doubleValue !== undefined) return Number(value.doubleValue);
  if (isObject(value.arrayValue)) return (Array.isArray(value.arrayValue.values) ? value.arrayValue.values : []).map(anyValue);
  if (isObject(value.kvlistValue)) return attributeMap(value.kvlistValue.values);
  if (typeof value.bytesValue === 'string') return value.bytesValue;
  return null;
}
