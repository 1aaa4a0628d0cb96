// CPU per provider call of the outbound HTTP client (issue 15, item 4): fetch (undici), as the
// server used until wave 2, against node:http with its keep-alive agent (src-server/outbound/
// http-client.ts), both POSTing a chat completion to the local mock, 10 calls at a time. The
// mock runs in this process, so both figures include its side of each call; the difference is
// the client's. `npx tsx bench/outbound-client.ts` (BENCH_CALLS, default 2000).
import { readFileSync } from 'node:fs';
import { callSignal, sendHttp } from '../src-server/outbound/http-client';
import { startMockLlm } from '../test/support/mock-llm';

const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

async function main() {
  const mock = await startMockLlm();
  const url = `${mock.baseUrl}/chat/completions`;
  const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Repeat after me: the quick brown fox 1 jumps over the lazy dog' }], stream: false });
  const headers = { 'content-type': 'application/json', authorization: 'Bearer sk-bench' };
  const run = new AbortController().signal;

  const clients = {
    async fetch() {
      const response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.any([run, AbortSignal.timeout(120_000)]) });
      return JSON.parse(await response.text()) as unknown;
    },
    async 'node:http'() {
      const limit = callSignal(run, 120_000);
      try {
        const response = await sendHttp(new URL(url), { method: 'POST', headers, body, signal: limit.signal });
        return JSON.parse(await response.text()) as unknown;
      } finally {
        limit.dispose();
      }
    },
  };

  console.log(`load average at start: ${load()} (2 cores)`);
  for (const round of [1, 2]) {
    for (const [name, call] of Object.entries(clients)) {
      let left = CALLS;
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      await Promise.all(Array.from({ length: 10 }, async () => {
        while (left-- > 0) await call();
      }));
      const cpu = process.cpuUsage(cpu0);
      console.log(`round ${round} ${name.padEnd(9)}: ${((cpu.user + cpu.system) / CALLS).toFixed(0)} µs CPU per call (client and mock), ${(((performance.now() - t0) / CALLS) * 1000).toFixed(0)} µs wall per call; load ${load()}`);
    }
  }
  await mock.close();
}

await main();
