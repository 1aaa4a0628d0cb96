// Entry of the ingest thread when running from source (tsx, tests): Node 20 resolves a worker's
// entry before any loader could run, so this plain module registers tsx, then loads the
// TypeScript worker. A bundled build starts ingest-worker.js directly.
import { register } from 'tsx/esm/api';

register();
await import('./ingest-worker.ts');
