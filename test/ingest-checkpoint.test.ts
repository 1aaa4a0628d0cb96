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

  /** The database's pages as its readers see it (the WAL's frames included). */
  const pages = () => {
    const db = openSqlite(dataFiles(t.dataDir).database);
    try {
      return db.pragma('page_count', { simple: true }) as number;
    } finally {
      db.close();
    }
  };

  it('copies the WAL into the database once it passes 1,000 frames, between batches', async () => {
    const filler = 'checkpoint filler text '.repeat(250);
    let written = 0;
    // Enough requests to pass the threshold (with no checkpoint this test fails: more stay uncopied).
    for (let round = 0; round < 16; round++) {
      const res = await Promise.all(Array.from({ length: 50 }, (_, i) => t.api('/log-request', { body: logBody({ ...chat(`${filler} ${round}-${i}`), tags: [`r${round}`] }) })));
      expect(res.every((r) => r.status === 201)).toBe(true);
      written += res.length;
    }
    expect(written).toBe(800);
    // Idle now: the thread copies what is due at its next look (every 250 ms, or after a batch);
    // waited for as that state, not as a sleep that a starved thread can outlast.
    await expect.poll(() => wal().log - wal().checkpointed, { timeout: 10_000 }).toBeLessThan(CHECKPOINT_FRAMES);
    expect((await t.api('/api/public/v2/requests?tags=r15')).body.items).toHaveLength(50);
  });

  it('copies what the main connection wrote (a dataset import) with no request logged after it', async () => {
    // ~19 MB of CSV: its rows alone are well past 1,000 frames of 16 KiB.
    const lines = ['id,question,answer'];
    for (let i = 0; i < 40_000; i++) lines.push(`${i},"Question ${i}: ${'what the main connection writes '.repeat(6)}","Answer ${i}: ${'and the ingest thread copies '.repeat(6)}"`);
    const file = Buffer.from(`${lines.join('\n')}\n`);
    const group = (await t.api('/api/public/v2/dataset-groups', { body: { name: 'checkpointed' } })).body.dataset_group;
    const pagesBefore = pages();
    const imported = await t.api('/api/public/v2/dataset-versions/from-file', {
      body: { dataset_group_id: group.id, file_name: 'big.csv', file_content_base64: file.toString('base64') },
    });
    expect(imported.status).toBe(201);
    expect((await t.api(`/api/public/v2/datasets/${imported.body.dataset_id}`)).body.dataset.row_count).toBe(40_000);
    // The import itself went past the threshold: every page it added was written to the WAL as a
    // frame at least once. (Comparing the WAL's length before and after cannot tell: the WAL
    // restarts whenever the ingest thread has copied all of it, mid-import too.)
    expect(pages() - pagesBefore).toBeGreaterThanOrEqual(CHECKPOINT_FRAMES);
    // Nothing logged since: the ingest thread, looking at the WAL on its own, copies it.
    await expect.poll(() => wal().log - wal().checkpointed, { timeout: 10_000 }).toBeLessThan(CHECKPOINT_FRAMES);
  });

  it('does not retry a checkpoint a reader holds back until more is written', async () => {
    // A reader's snapshot keeps every frame written after it from being copied.
    const reader = openSqlite(dataFiles(t.dataDir).database);
    try {
      reader.exec('BEGIN');
      reader.prepare('SELECT count(*) FROM requests').get();
      const filler = 'held back filler text '.repeat(250);
      // Until the held-back frames pass the threshold: how many frames a request takes depends on
      // how the requests fell into batches (each commit writes the pages it touched again).
      for (let round = 0; round < 60 && wal().log - wal().checkpointed < CHECKPOINT_FRAMES; round++) {
        await Promise.all(Array.from({ length: 50 }, (_, i) => t.api('/log-request', { body: logBody(chat(`${filler} ${round}-${i}`)) })));
      }
      expect(wal().log - wal().checkpointed).toBeGreaterThanOrEqual(CHECKPOINT_FRAMES);
      // The work the last requests left is done: a text search answers only once the thread has
      // indexed every request acknowledged before it (the 250 ms text wait cut short), and the
      // batch that answers it ends by scheduling the due checkpoint attempt.
      expect((await t.api('/api/public/v2/requests?q=filler')).status).toBe(200);
      // Idle: this process (the server's threads included) uses next to no CPU meanwhile. The
      // second is a measuring window, not a wait for a state: it holds four of the thread's
      // 250 ms looks at the WAL, each of which would retry a checkpoint in a loop if it were wrong.
      const before = process.cpuUsage();
      await new Promise((r) => setTimeout(r, 1_000));
      const used = process.cpuUsage(before);
      // A checkpoint retried in a loop keeps a thread busy: most of the second.
      expect((used.user + used.system) / 1000).toBeLessThan(150);
    } finally {
      reader.exec('COMMIT');
      reader.close();
    }
  });
});
