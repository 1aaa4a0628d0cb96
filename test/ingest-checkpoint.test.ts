// The ingest thread copies the WAL into the database file between batches, not inside a batch's
// commit (store/ingest-worker.ts, CHECKPOINT_FRAMES): the WAL must still be checkpointed under a
// steady stream of logged requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataFiles } from '../src-server/data-dir';
import { openSqlite } from '../src-server/store/sqlite';
import { chat, logBody } from './support/factories';
import { startServer, type TestServer } from './support/server';

/** SQLite's automatic threshold, which the ingest thread keeps. */
const CHECKPOINT_FRAMES = 1000;

describe('WAL checkpoints under ingest', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer();
  });
  afterAll(() => t.close());

  const wal = () => {
    const db = openSqlite(dataFiles(t.dataDir).database);
    try {
      return db.prepare<[], { log: number; checkpointed: number }>('PRAGMA wal_checkpoint(NOOP)').get()!;
    } finally {
      db.close();
    }
  };

  it('copies the WAL into the database once it passes 1,000 frames, between batches', async () => {
    const filler = 'checkpoint filler text '.repeat(60);
    let written = 0;
    // Enough requests to pass the threshold twice over (with no checkpoint: ~2,300 frames).
    for (let round = 0; round < 40; round++) {
      const res = await Promise.all(Array.from({ length: 50 }, (_, i) => t.api('/log-request', { body: logBody({ ...chat(`${filler} ${round}-${i}`), tags: [`r${round}`] }) })));
      expect(res.every((r) => r.status === 201)).toBe(true);
      written += res.length;
    }
    expect(written).toBe(2000);
    // Idle now: whatever is due has been copied.
    await new Promise((r) => setTimeout(r, 300));
    const state = wal();
    expect(state.log - state.checkpointed).toBeLessThan(CHECKPOINT_FRAMES);
    expect((await t.api('/api/public/v2/requests?tags=r39')).body.items).toHaveLength(50);
  });
});
