// A burst of logged requests is written by the ingest thread in one transaction, with the
// dashboard's rollups, latency histogram and the text index's time blocks summed over the batch
// (store/requests.ts `tally`): the sums must be what one upsert per request gave.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chat, logBody } from './support/factories';
import { startServer, type TestServer } from './support/server';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(() => t.close());

describe('a burst of logged requests', () => {
  it('sums rollups, errors, tokens, cost and latencies per day and model as if logged one by one', async () => {
    const bodies = Array.from({ length: 60 }, (_, i) => {
      const start = Date.UTC(2026, 10, 1 + (i % 2), 12, i);
      return logBody({
        ...chat(`burst question ${i}`, `burst answer ${i}`),
        model: i % 3 === 0 ? 'gpt-4o' : 'gpt-4o-mini',
        request_start_time: new Date(start).toISOString(),
        request_end_time: new Date(start + 100 * (1 + (i % 5))).toISOString(),
        status: i % 4 === 0 ? 'ERROR' : 'SUCCESS',
        input_tokens: i,
        output_tokens: 2 * i,
        price: i / 100,
      });
    });
    const answers = await Promise.all(bodies.map((body) => t.api('/log-request', { body })));
    expect(answers.map((a) => a.status)).toEqual(bodies.map(() => 201));

    const { body } = await t.api('/api/public/v2/requests/stats');
    const sum = (f: (i: number) => number) => bodies.reduce((n, _, i) => n + f(i), 0);
    expect(body.totals).toMatchObject({ requests: 60, errors: 15, input_tokens: sum((i) => i), output_tokens: sum((i) => 2 * i) });
    expect(body.totals.cost).toBeCloseTo(sum((i) => i / 100));
    expect(body.by_day).toEqual([
      expect.objectContaining({ day: '2026-11-01', requests: 30 }),
      expect.objectContaining({ day: '2026-11-02', requests: 30 }),
    ]);
    const gpt4o = body.by_model.find((m: { model: string }) => m.model === 'gpt-4o');
    expect(gpt4o).toMatchObject({ requests: 20 });
    // gpt-4o is every third request: latencies 100, 400, 200, 500, 300 ms in turn, four of each.
    expect(gpt4o.latency_ms.avg).toBe(300);
    expect(gpt4o.latency_ms.p50).toBeGreaterThan(300 * 0.97);
    expect(gpt4o.latency_ms.p50).toBeLessThan(300 * 1.03);
  });

  it('lists a text match newest first across the burst (the time blocks saw every start)', async () => {
    const res = await t.api('/api/public/v2/requests?q=burst&limit=3');
    expect(res.status).toBe(200);
    const starts = res.body.items.map((r: { request_start_time: string }) => r.request_start_time);
    expect(starts).toEqual(['2026-11-02T12:59:00.000Z', '2026-11-02T12:57:00.000Z', '2026-11-02T12:55:00.000Z']);
  });

  it('writes the text index with FTS5 merging left to the ingest thread (automerge 0, usermerge 16, crisismerge 64: set when it opens)', () => {
    const rows = t.server.db.prepare("SELECT k, v FROM requests_fts_config WHERE k IN ('automerge', 'usermerge', 'crisismerge') ORDER BY k").all();
    expect(rows).toEqual([{ k: 'automerge', v: 0 }, { k: 'crisismerge', v: 64 }, { k: 'usermerge', v: 16 }]);
  });
});
