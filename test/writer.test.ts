import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { closeDatabase, openDatabase, type Db } from '../src-server/store/db';
import { createWriter, walSync } from '../src-server/store/writer';
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

test('synced() answers after a write committed without its sync, once a sync has run after that commit', async () => {
  const { db } = fileDb();
  const writer = createWriter(db);
  const order: string[] = [];
  const committed = writer.write((d) => d.prepare("INSERT INTO notes (text) VALUES ('a')").run(), { durable: false }).then(() => order.push('committed'));
  const synced = writer.synced().then(() => order.push('synced'));
  await Promise.all([committed, synced]);
  expect(order).toEqual(['committed', 'synced']);
  expect(db.prepare('SELECT text FROM notes').pluck().all()).toEqual(['a']);
  // Nothing is left to sync or to commit.
  await writer.flush();
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

test('gathered items of one turn are one job of the next commit, in order, with a result each; the next turn starts another', async () => {
  const { db } = fileDb();
  const writer = createWriter(db);
  const jobs: string[][] = [];
  const insert = db.prepare('INSERT INTO notes (text) VALUES (?)');
  const note = writer.gathered((texts: string[]) => {
    jobs.push(texts);
    return texts.map((text) => Number(insert.run(text).lastInsertRowid));
  });
  const first = Promise.all(['a', 'b', 'c'].map((text) => note(text)));
  // Committed with a plain write of the same turn, not later.
  const plain = writer.write((d) => d.prepare("INSERT INTO notes (text) VALUES ('plain')").run().changes);
  await new Promise((resolve) => setImmediate(resolve));
  const second = note('d');
  expect(await first).toEqual([2, 3, 4]);
  expect(await plain).toBe(1);
  expect(await second).toBe(5);
  expect(jobs).toEqual([['a', 'b', 'c'], ['d']]);
  expect(db.prepare('SELECT text FROM notes ORDER BY id').pluck().all()).toEqual(['plain', 'a', 'b', 'c', 'd']);
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
  await writer.flush();
  expect(db.prepare('SELECT count(*) FROM notes').pluck().get()).toBe(1);
});

test('a batch that finds the write lock taken waits with the event loop running, then commits', async () => {
  const { db, file } = fileDb();
  const writer = createWriter(db);
  // Another connection (as the ingest thread's) holds the write lock.
  const other = openSqlite(file);
  try {
    other.exec('BEGIN IMMEDIATE');
    other.prepare("INSERT INTO notes (text) VALUES ('other')").run();
    let answered = false;
    const mine = writer.write((d) => d.prepare("INSERT INTO notes (text) VALUES ('mine')").run().changes).finally(() => (answered = true));
    // Timers still fire: SQLite's busy handler would have held this thread until its timeout.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answered).toBe(false);
    other.exec('COMMIT');
    expect(await mine).toBe(1);
  } finally {
    other.close();
  }
  expect(db.prepare('SELECT text FROM notes ORDER BY id').pluck().all()).toEqual(['other', 'mine']);
  expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
});

test('syncNow answers, once each, the callers of the running sync and those waiting for the next, before it returns', async () => {
  const { db } = fileDb();
  const wal = walSync(db)!;
  const insert = db.prepare('INSERT INTO notes (text) VALUES (?)');
  const answers: string[] = [];
  wal.unsynced(() => insert.run('first'));
  wal.afterSync((error) => answers.push(`first ${error ?? 'ok'}`)); // starts a sync in libuv's pool
  wal.unsynced(() => insert.run('second'));
  wal.afterSync((error) => answers.push(`second ${error ?? 'ok'}`)); // waits for the next sync
  expect(wal.idle()).toBe(false);
  // The ingest thread calls this before a long step, so neither answer waits for that step.
  wal.syncNow();
  expect(answers).toEqual(['first ok', 'second ok']);
  // The sync that was running ends later and answers nobody twice.
  await new Promise<void>((resolve) => wal.onIdle(resolve));
  expect(answers).toEqual(['first ok', 'second ok']);
  expect(wal.idle()).toBe(true);
  // Nothing waiting: no sync at all.
  wal.syncNow();
  expect(answers).toHaveLength(2);
});
