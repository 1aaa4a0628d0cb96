import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chat, logBody } from './support/factories';
import { startServer, type TestServer } from './support/server';

let t: TestServer;

interface Row {
  id: number;
  start: number;
  latency: number;
  price: number;
  tokens: number;
  score: number | null;
}
const rows: Row[] = [];

/** Ties on purpose: D shares latency with B, price, tokens and score with A, and its start time with E. */
const SEED: Array<{ minute: number; latency: number; price: number; input: number; output: number; score?: number; tags: string[] }> = [
  { minute: 1, latency: 800, price: 0.01, input: 10, output: 5, score: 90, tags: ['prod'] },
  { minute: 2, latency: 1200, price: 0, input: 0, output: 0, score: 40, tags: [] },
  { minute: 3, latency: 400, price: 0.002, input: 200, output: 100, tags: ['prod'] },
  { minute: 4, latency: 1200, price: 0.01, input: 5, output: 10, score: 90, tags: ['prod'] },
  { minute: 4, latency: 50, price: 0.5, input: 600, output: 400, tags: ['prod'] },
  { minute: 5, latency: 3000, price: 0.000123, input: 1, output: 1, score: 0, tags: [] },
];

beforeAll(async () => {
  t = await startServer();
  for (const [i, s] of SEED.entries()) {
    const start = Date.UTC(2026, 10, 1, 12, s.minute);
    const res = await t.api('/log-request', {
      body: logBody({
        ...chat(`sortable question ${i}`, `sortable answer ${i}`),
        request_start_time: new Date(start).toISOString(),
        request_end_time: new Date(start + s.latency).toISOString(),
        price: s.price,
        input_tokens: s.input,
        output_tokens: s.output,
        tags: s.tags,
        ...(s.score === undefined ? {} : { score: s.score }),
      }),
    });
    expect(res.status).toBe(201);
    rows.push({ id: res.body.id, start, latency: s.latency, price: s.price, tokens: s.input + s.output, score: s.score ?? null });
  }
});
afterAll(() => t.close());

type Sort = 'time' | 'latency' | 'cost' | 'tokens' | 'score';
const valueOf: Record<Sort, (r: Row) => number | null> = {
  time: (r) => r.start,
  latency: (r) => r.latency,
  cost: (r) => r.price,
  tokens: (r) => r.tokens,
  score: (r) => r.score,
};

/** The order the API promises: by the column, ties by id in the same direction, unscored last. */
function expected(sort: Sort, order: 'asc' | 'desc', subset = rows): number[] {
  const sign = order === 'asc' ? 1 : -1;
  return [...subset]
    .sort((a, b) => {
      const va = valueOf[sort](a);
      const vb = valueOf[sort](b);
      if (va === null || vb === null) return va === vb ? sign * (a.id - b.id) : va === null ? 1 : -1;
      return va !== vb ? sign * (va - vb) : sign * (a.id - b.id);
    })
    .map((r) => r.id);
}

/** Walks every page of `query` with the given page size. */
async function walk(query: string, limit: number): Promise<number[]> {
  const seen: number[] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 20; guard++) {
    const res = await t.api(`/api/public/v2/requests?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    seen.push(...(res.body.items as Array<{ id: number }>).map((r) => r.id));
    cursor = res.body.next_cursor as string | null;
    if (!cursor) return seen;
  }
  throw new Error('paging did not end');
}

describe('GET /api/public/v2/requests?sort=&order=', () => {
  for (const sort of ['time', 'latency', 'cost', 'tokens', 'score'] as const) {
    for (const order of ['desc', 'asc'] as const) {
      it(`sorts by ${sort} ${order}, ties by id, the same in one page and page by page`, async () => {
        const want = expected(sort, order);
        expect(await walk(`sort=${sort}&order=${order}`, 100)).toEqual(want);
        expect(await walk(`sort=${sort}&order=${order}`, 1)).toEqual(want);
        expect(await walk(`sort=${sort}&order=${order}`, 2)).toEqual(want);
      });
    }
  }

  it('keeps newest first as the default and when only order is given', async () => {
    expect(await walk('', 100)).toEqual(expected('time', 'desc'));
    expect(await walk('order=asc', 2)).toEqual(expected('time', 'asc'));
  });

  it('sorts within a tag filter and within a text search', async () => {
    const tagged = rows.filter((_, i) => SEED[i].tags.includes('prod'));
    for (const order of ['desc', 'asc'] as const) {
      expect(await walk(`tags=prod&sort=time&order=${order}`, 1)).toEqual(expected('time', order, tagged));
      expect(await walk(`tags=prod&sort=latency&order=${order}`, 1)).toEqual(expected('latency', order, tagged));
      expect(await walk(`q=sortable&sort=time&order=${order}`, 1)).toEqual(expected('time', order));
      expect(await walk(`q=sortable&sort=cost&order=${order}`, 2)).toEqual(expected('cost', order));
    }
  });

  it('answers 422 naming the field for an unknown sort or order', async () => {
    for (const [query, field] of [['sort=price', 'sort'], ['sort=', 'sort'], ['order=up', 'order'], ['sort=TIME', 'sort']] as const) {
      const res = await t.api(`/api/public/v2/requests?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['query', field]);
      expect(res.body.message).toContain(field);
    }
  });

  it('refuses a cursor from another sort instead of skipping rows', async () => {
    const first = await t.api('/api/public/v2/requests?sort=latency&order=asc&limit=2');
    const reused = await t.api(`/api/public/v2/requests?sort=cost&order=asc&limit=2&cursor=${first.body.next_cursor}`);
    expect(reused.status).toBe(422);
    expect(reused.body.detail[0].loc).toEqual(['query', 'cursor']);
    const flipped = await t.api(`/api/public/v2/requests?sort=latency&order=desc&limit=2&cursor=${first.body.next_cursor}`);
    expect(flipped.status).toBe(422);
  });
});
