// Entry of every worker thread when running from source (tsx, tests): Node 20 resolves a
// worker's entry before any loader could run, so this plain module registers tsx, then loads the
// TypeScript entry start-worker.ts passed as the last argv. A bundled build starts the worker's
// own .js file directly.
import { register } from 'tsx/esm/api';

register();
await import(process.argv.at(-1));
