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

// Loaded on the first protobuf export, not at start: the generated module is large (measured: it
// was a visible share of the idle server's memory and start-up) and many installs never see OTLP.
let messages: OtlpRoot['opentelemetry']['proto']['collector']['trace']['v1'] | undefined;
function otlp() {
  messages ??= (createRequire(import.meta.url)('@opentelemetry/otlp-transformer/build/src/generated/root.js') as OtlpRoot).opentelemetry.proto.collector.trace.v1;
  return messages;
}

/**
 * An ExportTraceServiceRequest as a plain object in OTLP/JSON's field names, with 64-bit integers
 * as decimal strings and bytes (trace and span ids) as base64. Throws on a body that is not one.
 */
export function decodeProtobufRequest(body: Uint8Array): unknown {
  const { ExportTraceServiceRequest: ExportRequest } = otlp();
  const message = ExportRequest.decode(body);
  return ExportRequest.toObject(message, { longs: String, bytes: String, enums: Number, defaults: false });
}

export function encodeProtobufResponse(partial: { rejectedSpans: number; errorMessage: string } | null): Uint8Array {
  const { ExportTraceServiceResponse: ExportResponse } = otlp();
  return ExportResponse.encode(ExportResponse.fromObject(partial ? { partialSuccess: partial } : {})).finish();
}

/** For the benchmark: encodes a request in OTLP/JSON field names the way an exporter would. */
export function encodeProtobufRequest(request: unknown): Uint8Array {
  const { ExportTraceServiceRequest: ExportRequest } = otlp();
  return ExportRequest.encode(ExportRequest.fromObject(request)).finish();
}
