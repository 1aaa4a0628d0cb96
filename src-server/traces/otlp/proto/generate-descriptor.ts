// Regenerates otlp-descriptor.json from the official .proto files beside this script (copied
// unmodified from github.com/open-telemetry/opentelemetry-proto v1.11.0, Apache-2.0):
//   npx tsx src-server/traces/otlp/proto/generate-descriptor.ts
// The server loads the JSON rather than the .proto files so the bundled build needs no file paths.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = new protobuf.Root();
root.resolvePath = (_origin, target) => join(here, target);
root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto', { keepCase: false });
writeFileSync(join(here, '..', 'otlp-descriptor.json'), `${JSON.stringify(root.toJSON(), null, 1)}\n`);
