import { open } from 'node:fs/promises';
import { AppError } from '../errors';
import type { DatasetStore, PackedRows } from '../store/datasets';
import type { Writer } from '../store/writer';
import { FileError, formatOf, parseFile, type RowTexts } from './dataset-parse';

export interface DatasetImportDeps {
  store: DatasetStore;
  writer: Writer;
  now: () => number;
}

/**
 * A write transaction holds at most this much row text or this many rows: few commits (each an
 * fsync, and past 4 MB of WAL a checkpoint), and other writers wait at most one batch (~50 ms).
 */
const BATCH_BYTES = 4 * 1024 * 1024;
const BATCH_ROWS = 10_000;

export interface PublishedVersion {
  dataset_id: number;
  version_number: number;
  row_count: number;
  column_names: string[];
}

/**
 * A batch of rows packed as UTF-8 into one reused buffer. Each row's JSON string dies as soon as
 * it is copied in, young, so V8's scavenger frees it; held in an array of strings until the batch
 * commits, a batch survived scavenges into the old generation, which grew by ~50 MB of garbage
 * over a 46 MB import before a full GC came (docs/performance.md, "Datasets").
 */
class PackedBatch implements PackedRows {
  // Room for the last row past the mark, so an ordinary batch never grows the buffer.
  bytes = Buffer.allocUnsafe(BATCH_BYTES + 256 * 1024);
  ends = new Uint32Array(1024);
  count = 0;
  byteLength = 0;

  add(text: string): void {
    // At most 3 bytes of UTF-8 per UTF-16 unit, so the write below never truncates.
    const room = text.length * 3;
    if (this.byteLength + room > this.bytes.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.byteLength + room));
      this.bytes.copy(bigger, 0, 0, this.byteLength);
      this.bytes = bigger;
    }
    if (this.count === this.ends.length) {
      const longer = new Uint32Array(this.ends.length * 2);
      longer.set(this.ends);
      this.ends = longer;
    }
    this.byteLength += this.bytes.write(text, this.byteLength);
    this.ends[this.count++] = this.byteLength;
  }

  get full(): boolean {
    return this.byteLength >= BATCH_BYTES || this.count >= BATCH_ROWS;
  }

  clear(): void {
    this.count = 0;
    this.byteLength = 0;
    // One huge record grew the buffer; the next batch starts from the usual size again.
    if (this.bytes.length > 2 * BATCH_BYTES) this.bytes = Buffer.allocUnsafe(BATCH_BYTES + 256 * 1024);
  }
}

/**
 * Streams rows into a new version of a group and publishes it as the next number. Rows are
 * written in batches into a dataset nobody can see (version_number NULL); only the last
 * transaction numbers it. Any failure deletes what was written, so a bad record at row 90,000
 * leaves nothing behind, and other writers are never blocked for the whole import.
 */
export async function publishRows({ store, writer, now }: DatasetImportDeps, groupId: number, source: RowTexts): Promise<PublishedVersion> {
  const pendingId = await writer.write(() => store.createPending(groupId, now()));
  let count = 0;
  try {
    const batch = new PackedBatch();
    const flush = async () => {
      const start = count - batch.count;
      await writer.write(() => store.insertPackedRows(pendingId, start, batch));
      batch.clear();
    };
    for await (const chunk of source.rows) {
      for (const text of chunk) {
        batch.add(text);
        count++;
        if (batch.full) await flush();
      }
    }
    if (batch.count > 0) await flush();
    const names = [...source.columns];
    const versionNumber = await writer.write(() => {
      store.setShape(pendingId, names, count);
      return store.publish(pendingId, groupId, now());
    });
    return { dataset_id: pendingId, version_number: versionNumber, row_count: count, column_names: names };
  } catch (error) {
    await writer.write(() => store.remove(pendingId));
    throw error;
  }
}

/** `publishRows` for records built in memory (from logged requests): columns in order of first appearance. */
export function publishRecords(
  deps: DatasetImportDeps,
  groupId: number,
  records: AsyncIterable<Array<Record<string, unknown>>>,
): Promise<PublishedVersion> {
  const columns = new Set<string>();
  async function* texts(): AsyncGenerator<string[]> {
    for await (const chunk of records) {
      yield chunk.map((data) => {
        for (const key in data) columns.add(key);
        return JSON.stringify(data);
      });
    }
  }
  return publishRows(deps, groupId, { columns, rows: texts() });
}

/** `from-file`: the decoded file is on disk (the upload spooled it); parse and publish it. */
export async function publishFile(deps: DatasetImportDeps, groupId: number, fileName: string, path: string): Promise<PublishedVersion> {
  try {
    const parsed = await parseFile(formatOf(fileName), readChunks(path));
    return await publishRows(deps, groupId, parsed);
  } catch (error) {
    if (error instanceof FileError) {
      const msg = `${fileName}: ${error.message}`;
      throw new AppError('invalid_input', `Invalid file: ${msg}`, [
        { loc: ['body', 'file_content_base64'], msg, type: 'file_invalid', ...(error.line === null ? {} : { line: error.line }) },
      ]);
    }
    throw error;
  }
}

/**
 * The file in 64 KiB pieces read into one reused buffer: each piece is valid until the next is
 * asked for (the UTF-8 decoder copies it into a string at once). A read stream's new buffer per
 * piece was garbage outside V8's heap until the next GC. 64 KiB keeps each piece's strings in
 * V8's young generation; 1 MiB pieces landed in large-object space and cost ~100 MB more peak RSS.
 */
async function* readChunks(path: string): AsyncGenerator<Buffer> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(64 * 1024);
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) return;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await file.close();
  }
}
