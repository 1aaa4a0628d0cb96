// A promptledger server for benchmarks, in its own process so the load generator does not share
// its event loop. Adds one no-op route on the same Koa stack (body read, auth, routing) — the
// ceiling any real route can reach on this machine.
import { z } from 'zod';
import { route } from '../../src-server/http/route';
import { createServer } from '../../src-server/server';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: bench-server.ts DATA_DIR');

const server = await createServer({
  dataDir,
  port: 0,
  apiKey: 'pl_bench_key',
  extraRoutes: [
    route({
      method: 'post', path: '/bench/noop', summary: 'Benchmark baseline', tag: 'Bench', auth: 'key-or-body',
      body: z.unknown(), status: 201,
      handler: () => ({ id: 0 }),
    }),
  ],
});
console.log(`promptledger listening on ${server.url}`);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
