import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { startChildServer } from './support/child-server';
import { logBody } from './support/factories';
import { call, startServer, tempDir } from './support/server';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('durability', () => {
  it('keeps everything across a clean restart on the same data dir', async () => {
    const t = await startServer();
    try {
      const { body } = await t.api('/log-request', { body: logBody({ tags: ['keep'], metadata: { k: 'v' }, score: 77 }) });
      await t.api('/rest/track-score', { body: { request_id: body.id, score: 12, name: 'other' } });
      const before = (await t.api(`/api/public/v2/requests/${body.id}`)).body;
      const { body: key } = await t.api('/api/public/v2/api-keys', { body: { name: 'second' } });
      await t.restart();
      const after = await t.api(`/api/public/v2/requests/${body.id}`);
      expect(after.body).toEqual(before);
      expect((await t.api('/api/public/v2/requests?tags=keep')).body.items).toHaveLength(1);
      expect((await t.api('/api/public/v2/requests', { key: key.key })).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('prints the ready line and a generated key once, and reuses the key on the next start', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const first = await startChildServer(dir);
    expect(first.output()).toContain(`(shown once; saved to`);
    expect(first.output()).toContain(first.key);
    expect(first.output()).toMatch(/^promptledger listening on http:\/\/127\.0\.0\.1:\d+$/m);
    expect(await first.stop()).toBe(0);
    const second = await startChildServer(dir);
    expect(second.output()).not.toContain('shown once');
    expect(second.key).toBe(first.key);
    expect((await call(second.url, '/api/public/v2/requests', { key: first.key })).status).toBe(200);
    await second.stop();
  });

  it('loses no acknowledged request when the process is SIGKILLed mid-burst', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const server = await startChildServer(dir);
    const acknowledged = new Map<number, Record<string, unknown>>();
    let stop = false;
    let sent = 0;
    // 32 concurrent writers; the kill lands while many requests are in flight.
    const worker = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const body = logBody({ tags: [`w${w}`, `i${i}`], metadata: { worker: String(w), seq: String(i) }, score: (w * 7 + i) % 101, price: i / 1000 });
        sent++;
        try {
          const res = await call(server.url, '/log-request', { key: server.key, body });
          if (res.status === 201) acknowledged.set(res.body.id, body);
        } catch {
          return; // connection died with the server: not acknowledged
        }
      }
    };
    const workers = Array.from({ length: 32 }, (_, w) => worker(w));
    const deadline = Date.now() + 30_000;
    while (acknowledged.size < 300) {
      if (Date.now() > deadline) {
        stop = true;
        throw new Error(`only ${acknowledged.size} requests acknowledged in 30 s:\n${server.output()}`);
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    await server.kill();
    stop = true;
    await Promise.all(workers);
    expect(sent).toBeGreaterThan(acknowledged.size);

    const restarted = await startChildServer(dir);
    try {
      for (const [id, body] of acknowledged) {
        const res = await call(restarted.url, `/api/public/v2/requests/${id}`, { key: restarted.key });
        expect(res.status, `request ${id} was acknowledged but is missing`).toBe(200);
        expect(res.body).toMatchObject({
          provider: body.provider,
          model: body.model,
          input: body.input,
          output: body.output,
          tags: body.tags,
          metadata: body.metadata,
          price: body.price,
          scores: { default: body.score },
          request_start_time: body.request_start_time,
          request_end_time: body.request_end_time,
        });
      }
      // Indexes were written in the same transactions: every acknowledged row is searchable.
      const tagged = await call(restarted.url, '/api/public/v2/requests?tags=w0&limit=200', { key: restarted.key });
      const acknowledgedW0 = [...acknowledged.values()].filter((b) => (b.tags as string[])[0] === 'w0').length;
      expect(tagged.body.items.length).toBeGreaterThanOrEqual(acknowledgedW0);
    } finally {
      await restarted.stop();
    }
  });
});
