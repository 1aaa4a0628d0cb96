import Database from 'better-sqlite3';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src-server/store/db';
import { migrate } from '../src-server/store/migrate';
import { migrations } from '../src-server/store/migrations';
import { tempDir } from './support/server';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('migrations', () => {
  it('build the whole schema on a blank file, in WAL mode with foreign keys on', () => {
    const db = openDatabase(join(dir, 'blank.db'));
    const applied = db.prepare('SELECT id FROM schema_migrations ORDER BY id').all();
    expect(applied).toEqual(migrations.map((m) => ({ id: m.id })).sort((a, b) => a.id.localeCompare(b.id)));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r: any) => r.name);
    expect(tables).toEqual(expect.arrayContaining(['workspaces', 'api_keys', 'requests', 'request_tags', 'requests_fts']));
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  });

  it('are applied once: reopening runs nothing', () => {
    const db = openDatabase(join(dir, 'blank.db'));
    expect(migrate(db)).toEqual([]);
    db.close();
  });

  it('apply a later migration to an existing file, and roll back a failing one whole', () => {
    const db = new Database(join(dir, 'partial.db'));
    migrate(db, migrations.slice(0, 1));
    expect(() =>
      migrate(db, [...migrations, { id: '999-broken', sql: 'CREATE TABLE half_done (x); SELECT * FROM no_such_table;' }]),
    ).toThrow(/no_such_table/);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'half_done'").get()).toEqual({ n: 0 });
    expect(db.prepare("SELECT count(*) AS n FROM schema_migrations WHERE id = '999-broken'").get()).toEqual({ n: 0 });
    db.close();
  });

  it('refuse a file written by a newer build', () => {
    const db = new Database(join(dir, 'newer.db'));
    migrate(db, [...migrations, { id: '999-future', sql: 'SELECT 1' }]);
    expect(() => migrate(db)).toThrow(/newer promptledger/);
    db.close();
  });
});
