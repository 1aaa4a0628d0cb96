import { createRequire } from 'node:module';

/**
 * OpenTelemetry's own OTLP message classes: the protobufjs static module generated from the
 * official opentelemetry-proto files, as @opentelemetry/otlp-transformer shipped it up to 0.57
 * (later releases replaced it with a hand-written writer that cannot decode a request).
 * It is CommonJS and sits outside the bundle, in node_modules.
 */
interface MessageClass {
  decode(reader: Uint8Array): object;
  toObject(message: object, options: Record<string, unknown>): unknown;
  fromObject(object: unknown): object;
  encode(message: object): { finish(): Uint8Array };
}
interface OtlpRoot {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: MessageClass; ExportTraceServiceResponse: MessageClass } } } } };
}

const generated = createRequire(import.meta.url)('@opentelemetry/otlp-transformer/build/src/generated/root.js') as OtlpRoot;
const { ExportTraceServiceRequest: ExportRequest, ExportTraceServiceResponse: ExportResponse } = generated.opentelemetry.proto.collector.trace.v1;

/**
 * An ExportTraceServiceRequest as a plain object in OTLP/JSON's field names, with 64-bit integers
 * as decimal strings and bytes (trace and span ids) as base64. Throws on a body that is not one.
 */
export function decodeProtobufRequest(body: Uint8Array): unknown {
  const message = ExportRequest.decode(body);
  return ExportRequest.toObject(message, { longs: String, bytes: String, enums: Number, defaults: false });
}

export function encodeProtobufResponse(partial: { rejectedSpans: number; errorMessage: string } | null): Uint8Array {
  return ExportResponse.encode(ExportResponse.fromObject(partial ? { partialSuccess: partial } : {})).finish();
}

/** For the benchmark: encodes a request in OTLP/JSON field names the way an exporter would. */
export function encodeProtobufRequest(request: unknown): Uint8Array {
  return ExportRequest.encode(ExportRequest.fromObject(request)).finish();
}
