import protobuf from 'protobufjs';
import descriptor from './otlp-descriptor.json';

// OpenTelemetry's own definitions (opentelemetry-proto, see proto/), loaded by protobufjs.
// @opentelemetry/otlp-transformer 0.223 cannot decode a request: it ships no protobufjs root,
// only a hand-written writer for what it sends and a reader for the response it gets back.
const root = protobuf.Root.fromJSON(descriptor as protobuf.INamespace);
const ExportRequest = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
const ExportResponse = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse');

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
