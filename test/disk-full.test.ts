import { execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, rmSync, rmdirSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { logBody } from './support/factories';
import { startServer, type TestServer } from './support/server';

/**
 * A genuinely full disk: the data dir lives on a 16 MiB tmpfs, filled by a file we then delete.
 * SQLite sees ENOSPC from write(2) (SQLITE_FULL) and uploads see it from their spool, exactly as
 * on a full laptop disk. Mounting needs root (or CAP_SYS_ADMIN); elsewhere the tests are skipped,
 * not failed. `PRAGMA max_page_count` would fake "full" for SQLite only, not for the spool.
 */
function mountSmallDisk(): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'promptledger-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m,mode=0700', 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    rmdirSync(dir);
    return null;
  }
}

const mountPoint = mountSmallDisk();
const SKIP_REASON = 'mounting a small tmpfs needs root or CAP_SYS_ADMIN, which this machine does not give';

describe.skipIf(mountPoint === null)(`a full disk (16 MiB tmpfs; skipped when ${SKIP_REASON})`, () => {
  const disk = mountPoint!;
  const dataDir = join(disk, 'data');
  const filler = join(disk, 'filler');
  let t: TestServer;

  beforeAll(async () => {
    t = await startServer({ dataDir });
  });
  // A failed test must not leave the next one (or the close) on a full disk.
  afterEach(() => freeDisk());
  afterAll(async () => {
    try {
      await t?.server.close();
    } finally {
      execFileSync('umount', [disk]);
      rmdirSync(disk);
    }
  });

  /** Takes every free byte of the disk; a write of a few KB past the WAL's slack then fails. */
  function fillDisk(): void {
    const fd = openSync(filler, 'w');
    const chunk = Buffer.alloc(64 * 1024, 1);
    try {
      for (;;) writeSync(fd, chunk);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      // Then the last partial chunk's worth, so not one block is left.
      const small = Buffer.alloc(512, 1);
      try {
        for (;;) writeSync(fd, small);
      } catch {
        // ENOSPC again: the disk is full.
      }
    } finally {
      closeSync(fd);
    }
    expect(statfsSync(disk).bavail).toBe(0);
  }
  const freeDisk = () => rmSync(filler, { force: true });

  const padded = (kb: number) => logBody({ metadata: { pad: 'p'.repeat(kb * 1024) } });
  const fullMessage = () => expect.stringContaining(`The disk holding ${dataDir} is full`);

  it('answers 507 naming the disk for logged requests (the ingest thread), keeps what it acknowledged, and logs again once space is freed', async () => {
    const acknowledged: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.api('/log-request', { body: padded(64) });
      expect(res.status).toBe(201);
      acknowledged.push(res.body.id as number);
    }
    fillDisk();
    let refused = 0;
    // The WAL may have room left from earlier commits: write until the disk says no.
    for (let i = 0; i < 50 && refused === 0; i++) {
      const res = await t.api('/log-request', { body: padded(256) });
      if (res.status === 201) acknowledged.push(res.body.id as number);
      else {
        expect(res.status).toBe(507);
        expect(res.body).toEqual({ success: false, message: fullMessage() });
        refused++;
      }
    }
    expect(refused).toBe(1);
    // Reads still work on a full disk.
    const read = await t.api(`/api/public/v2/requests/${acknowledged[0]}`);
    expect(read.status).toBe(200);

    freeDisk();
    const after = await t.api('/log-request', { body: padded(64) });
    expect(after.status).toBe(201);
    acknowledged.push(after.body.id as number);
    await t.restart();
    for (const id of acknowledged) expect((await t.api(`/api/public/v2/requests/${id}`)).status).toBe(200);
  });

  it('answers 507 for a write through the group-commit writer, and it succeeds once space is freed', async () => {
    const group = await t.api('/api/public/v2/dataset-groups', { body: { name: 'full-disk' } });
    expect(group.status).toBe(201);
    const draftId = group.body.dataset.id as number;
    const rows = Array.from({ length: 200 }, (_, i) => ({ n: i, text: `row ${i} `.repeat(200) }));
    fillDisk();
    const refused = await t.api(`/api/public/v2/datasets/${draftId}/rows`, { method: 'PUT', body: { rows } });
    expect(refused.status).toBe(507);
    expect(refused.body).toEqual({ success: false, message: fullMessage() });

    freeDisk();
    const accepted = await t.api(`/api/public/v2/datasets/${draftId}/rows`, { method: 'PUT', body: { rows } });
    expect(accepted.status).toBe(200);
    const stored = await t.api(`/api/public/v2/datasets/${draftId}/rows?per_page=1`);
    expect(stored.body.total).toBe(200);
  });

  it('answers 507 when an upload cannot spool, leaves no version behind, and imports once space is freed', async () => {
    const group = await t.api('/api/public/v2/dataset-groups', { body: { name: 'full-upload' } });
    const groupId = group.body.dataset_group.id as number;
    const csv = `a,b\n${Array.from({ length: 5000 }, (_, i) => `${i},${'x'.repeat(100)}`).join('\n')}\n`;
    const upload = () =>
      t.api('/api/public/v2/dataset-versions/from-file', {
        body: { dataset_group_id: groupId, file_name: 'big.csv', file_content_base64: Buffer.from(csv).toString('base64') },
      });
    fillDisk();
    const refused = await upload();
    expect(refused.status).toBe(507);
    expect(refused.body).toEqual({ success: false, message: fullMessage() });
    freeDisk();
    expect((await t.api(`/api/public/v2/datasets?dataset_group_id=${groupId}`)).body.datasets).toHaveLength(1);

    const accepted = await upload();
    expect(accepted.status).toBe(201);
    const rows = await t.api(`/api/public/v2/datasets/${accepted.body.dataset_id}/rows?per_page=1`);
    expect(rows.body.total).toBe(5000);
  });
});
