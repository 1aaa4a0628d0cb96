// A promptledger server for benchmarks, in its own process so the load generator does not share
// its event loop. Beside it, in the same process, a no-op app built with the same createApp (body
// read, auth, routing) — the ceiling any real route can reach on this machine.
import { z } from 'zod';
import { boundHeapGrowth } from '../../src-server/bound-heap-growth';
import { openApp, VERSION } from '../../src-server/compose';
import { createApp } from '../../src-server/http/app';
import { route } from '../../src-server/http/route';
import { closeHttp, listen, listenApp, serve } from '../../src-server/server';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: bench-server.ts DATA_DIR');

// As `promptledger serve` runs (src-server/main.ts): the figures are the product's.
boundHeapGrowth();
const opened = openApp({ dataDir, apiKey: 'pl_bench_key' });
const server = await listenApp(opened, { port: 0 });
const noop = createApp({
  routes: [
    route({
      method: 'post', path: '/bench/noop', summary: 'Benchmark baseline', tag: 'Bench', auth: 'key-or-body',
      body: z.unknown(), status: 201, response: z.object({ id: z.number() }),
      handler: () => ({ id: 0 }),
    }),
  ],
  auth: opened.services.auth,
  bodyLimitBytes: opened.bodyLimitBytes,
  log: opened.log,
  version: VERSION,
  dataDir,
});
const noopHttp = serve(noop);
await listen(noopHttp, '127.0.0.1', 0);
const { port: noopPort } = noopHttp.address() as { port: number };
console.log(`no-op app on http://127.0.0.1:${noopPort}`);
console.log(`promptledger listening on ${server.url}`);
process.on('SIGTERM', () => {
  void Promise.all([closeHttp(noopHttp), server.close()]).then(() => process.exit(0));
});
