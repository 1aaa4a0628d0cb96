import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { closeDatabase, openDatabase, type Db } from '../src-server/store/db';
import { createWriter, GATHER_ITEMS, GATHER_MS } from '../src-server/store/writer';
import { openSqlite } from '../src-server/store/sqlite';
import { tempDir } from './support/server';

// The group commit answers a batch after an fsync of the WAL that runs off the event loop
// (store/writer.ts). These tests use a real database file: in memory there is nothing to sync.
const dirs: string[] = [];
const dbs: Db[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) closeDatabase(db);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fileDb(): { db: Db; file: string } {
  const dir = tempDir('promptledger-writer-');
  dirs.push(dir);
  const file = join(dir, 'promptledger.db');
  const db = openDatabase(file);
  dbs.push(db);
  db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)');
  return { db, file };
}

test('an acknowledged write is committed for every connection, and the connection stays at synchronous FULL', async () => {
  const { db, file } = fileDb();
  const writer = createWriter(db);
  const id = await writer.write((d) => Number(d.prepare('INSERT INTO notes (text) VALUES (?)').run('first').lastInsertRowid));
  const other = openSqlite(file);
  try {
    expect(other.prepare('SELECT text FROM notes WHERE id = ?').pluck().get(id)).toBe('first');
  } finally {
    other.close();
  }
  // Only the writer's batches skip the in-line fsync; any other transaction still has it.
  expect(db.pragma('synchronous', { simple: true })).toBe(2);
});

test('writes queued together commit together; a failing job rejects alone and the rest are answered', async () => {
  const { db } = fileDb();
  const writer = createWriter(db);
  const insert = (text: string) => writer.write((d) => d.prepare('INSERT INTO notes (text) VALUES (?)').run(text).changes);
  const results = await Promise.allSettled([...Array.from({ length: 200 }, (_, i) => insert(`note ${i}`)), insert('note 7')]);
  expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(200);
  expect(results.at(-1)).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ code: 'SQLITE_CONSTRAINT_UNIQUE' }) });
  expect(db.prepare('SELECT count(*) FROM notes').pluck().get()).toBe(200);
});

test('writes made while a sync runs are answered after the next one; flush waits for both', async () => {
  const { db } = fileDb();
  const writer = createWriter(db);
  const order: string[] = [];
  const first = writer.write((d) => d.prepare("INSERT INTO notes (text) VALUES ('a')").run()).then(() => order.push('a'));
  // The first batch is committed and its sync started on the next turn; this one commits after.
  await new Promise((resolve) => setImmediate(resolve));
  const second = writer.write((d) => d.prepare("INSERT INTO notes (text) VALUES ('b')").run()).then(() => order.push('b'));
  await writer.flush();
  expect(order).toEqual(['a', 'b']);
  await Promise.all([first, second]);
});

test('a write that asks for the commit only is answered before the sync; a durable one in the same batch after it', async () => {
  const { db } = fileDb();
  const writer = createWriter(db);
  const order: string[] = [];
  const durable = writer.write((d) => d.prepare("INSERT INTO notes (text) VALUES ('durable')").run()).then(() => order.push('durable'));
  const committed = writer.write((d) => d.prepare("INSERT INTO notes (text) VALUES ('committed')").run(), { durable: false }).then(() => {
    order.push('committed');
    // Answered at the commit: the row is there for every reader already.
    expect(db.prepare('SELECT count(*) FROM notes').pluck().get()).toBe(2);
  });
  await Promise.all([durable, committed]);
  expect(order).toEqual(['committed', 'durable']);
});

test('gathered items wait up to GATHER_MS, then one job writes them in order with a result each', async () => {
  const { db } = fileDb();
  const writer = createWriter(db);
  const jobs: string[][] = [];
  const insert = db.prepare('INSERT INTO notes (text) VALUES (?)');
  const note = writer.gathered((texts: string[]) => {
    jobs.push(texts);
    return texts.map((text) => Number(insert.run(text).lastInsertRowid));
  });
  const t0 = performance.now();
  const ids = await Promise.all(['a', 'b', 'c'].map((text) => note(text)));
  expect(performance.now() - t0).toBeGreaterThanOrEqual(GATHER_MS - 2);
  expect(jobs).toEqual([['a', 'b', 'c']]);
  expect(ids).toEqual([1, 2, 3]);
  expect(db.prepare('SELECT text FROM notes ORDER BY id').pluck().all()).toEqual(['a', 'b', 'c']);
});

test('commitGathered writes what is gathered at once; GATHER_ITEMS items are written without waiting', async () => {
  const { db } = fileDb();
  const writer = createWriter(db);
  const insert = db.prepare('INSERT INTO notes (text) VALUES (?)');
  const jobs: number[] = [];
  const note = writer.gathered((texts: string[]) => {
    jobs.push(texts.length);
    return texts.map((text) => insert.run(text).changes);
  });
  let t0 = performance.now();
  const one = note('now');
  writer.commitGathered();
  await one;
  expect(performance.now() - t0).toBeLessThan(GATHER_MS);

  t0 = performance.now();
  await Promise.all(Array.from({ length: GATHER_ITEMS }, (_, i) => note(`full ${i}`)));
  expect(performance.now() - t0).toBeLessThan(GATHER_MS);
  // One past the bound starts the next batch, which waits.
  const past = Array.from({ length: GATHER_ITEMS + 1 }, (_, i) => note(`past ${i}`));
  await Promise.all(past);
  expect(jobs).toEqual([1, GATHER_ITEMS, GATHER_ITEMS, 1]);
});

test('a failing gathered item rejects alone; the rest of its batch is written and answered', async () => {
  const { db } = fileDb();
  const writer = createWriter(db);
  const insert = db.prepare('INSERT INTO notes (text) VALUES (?)');
  const note = writer.gathered((texts: string[]) => texts.map((text) => insert.run(text).changes));
  const results = await Promise.allSettled(['x', 'y', 'x', 'z'].map((text) => note(text)));
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  expect(results[2]).toMatchObject({ reason: expect.objectContaining({ code: 'SQLITE_CONSTRAINT_UNIQUE' }) });
  expect(db.prepare('SELECT text FROM notes ORDER BY text').pluck().all()).toEqual(['x', 'y', 'z']);
});

test('flush writes what is gathered and resolves once it is committed', async () => {
  const { db } = fileDb();
  const writer = createWriter(db);
  const insert = db.prepare('INSERT INTO notes (text) VALUES (?)');
  const note = writer.gathered((texts: string[]) => texts.map((text) => insert.run(text).changes), { durable: false });
  void note('gathered');
  const t0 = performance.now();
  await writer.flush();
  expect(performance.now() - t0).toBeLessThan(GATHER_MS);
  expect(db.prepare('SELECT count(*) FROM notes').pluck().get()).toBe(1);
});
