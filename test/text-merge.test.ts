// The text index's segments are merged by the ingest thread between batches, in small steps
// (store/text-index.ts: writes merge nothing themselves, `automerge` 0): every text transaction
// writes a segment, and without those steps they would pile up until FTS5's crisis merge at 64.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataFiles } from '../src-server/data-dir';
import { openSqlite } from '../src-server/store/sqlite';
import { chat, logBody } from './support/factories';
import { startServer, type TestServer } from './support/server';

/** FTS5 merges a level once it holds this many segments (`usermerge`). */
const USERMERGE = 16;

/** An SQLite varint (big-endian groups of 7 bits, the high bit says another byte follows). */
function varint(bytes: Buffer, at: number): [value: number, next: number] {
  let value = 0;
  let i = at;
  for (; i < at + 8 && bytes[i] & 0x80; i++) value = value * 128 + (bytes[i] & 0x7f);
  return [value * 128 + bytes[i], i + 1];
}

describe('text index segments under ingest', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer();
  });
  afterAll(() => t.close());

  /** How many segments the index holds, from FTS5's structure record (row 10 of its data table). */
  const segments = () => {
    const db = openSqlite(dataFiles(t.dataDir).database);
    try {
      const { block } = db.prepare<[], { block: Buffer }>('SELECT block FROM requests_fts_data WHERE id = 10').get()!;
      // A 4-byte cookie, then (structure version 2, used with contentless_delete) a 4-byte marker.
      const start = block.subarray(4, 8).equals(Buffer.from([0xff, 0, 0, 1])) ? 8 : 4;
      const [, afterLevels] = varint(block, start);
      return varint(block, afterLevels)[0];
    } finally {
      db.close();
    }
  };

  it('merges the segments of many text transactions between batches, and still finds every request', async () => {
    // A search indexes whatever waits first, so each round is its own text transaction.
    for (let round = 0; round < USERMERGE + 4; round++) {
      const res = await Promise.all(Array.from({ length: 20 }, (_, i) => t.api('/log-request', { body: logBody(chat(`segment round${round} request${i}`)) })));
      expect(res.every((r) => r.status === 201)).toBe(true);
      expect((await t.api(`/api/public/v2/requests?q=round${round}&limit=50`)).body.items).toHaveLength(20);
    }
    // Idle now: the merge steps owed run one per turn of the ingest thread's event loop.
    for (let wait = 0; wait < 50 && segments() >= USERMERGE; wait++) await new Promise((r) => setTimeout(r, 100));
    expect(segments()).toBeLessThan(USERMERGE);
    for (const round of [0, USERMERGE + 3]) {
      expect((await t.api(`/api/public/v2/requests?q=round${round}&limit=50`)).body.items).toHaveLength(20);
    }
    expect((await t.api('/api/public/v2/requests?q=segment&limit=50')).body.items).toHaveLength(50);
  });
});
