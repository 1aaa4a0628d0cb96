import { open } from 'node:fs/promises';
import { AppError } from '../errors';
import type { DatasetStore } from '../store/datasets';
import type { Writer } from '../store/writer';
import { FileError } from './dataset-file';
import { formatOf, parseFile } from './dataset-parse';
import { RowBatch, type RowSource } from './row-batch';

export interface DatasetImportDeps {
  store: DatasetStore;
  writer: Writer;
  now: () => number;
}

export interface PublishedVersion {
  dataset_id: number;
  version_number: number;
  row_count: number;
  column_names: string[];
}

/**
 * Streams rows into a new version of a group and publishes it as the next number. Rows are
 * written in batches into a dataset nobody can see (version_number NULL); only the last
 * transaction numbers it. Any failure deletes what was written, so a bad record at row 90,000
 * leaves nothing behind, and other writers are never blocked for the whole import.
 */
export async function publishRows({ store, writer, now }: DatasetImportDeps, groupId: number, source: RowSource): Promise<PublishedVersion> {
  const pendingId = await writer.write(() => store.createPending(groupId, now()));
  let count = 0;
  try {
    const batch = new RowBatch();
    // Not durable: the rows are invisible until `publish`, whose durable commit's WAL sync covers
    // every batch before it, and a crash leaves a pending dataset that the next start removes.
    // Waiting for each batch's sync stalled the parser ~10 ms a batch.
    const flush = async () => {
      const start = count;
      await writer.write(() => store.insertPackedRows(pendingId, start, batch), { durable: false });
      count += batch.count;
      batch.clear();
    };
    for await (const _ of source.writeRows(batch)) if (batch.full) await flush();
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
  async function* writeRows(out: RowBatch): AsyncGenerator<void> {
    for await (const chunk of records) {
      for (const data of chunk) {
        for (const key in data) columns.add(key);
        out.add(JSON.stringify(data));
      }
      yield;
    }
  }
  return publishRows(deps, groupId, { columns, writeRows });
}

/** `from-file`: the decoded file is on disk (the upload spooled it); parse and publish it. */
export async function publishFile(deps: DatasetImportDeps, groupId: number, fileName: string, path: string): Promise<PublishedVersion> {
  // A parser that stops at a bad record leaves the reader suspended; returning it closes the file
  // (otherwise it closed on garbage collection, with Node's DEP0137 warning).
  const chunks = readChunks(path);
  try {
    const parsed = await parseFile(formatOf(fileName), chunks);
    return await publishRows(deps, groupId, parsed);
  } catch (error) {
    if (error instanceof FileError) {
      const msg = `${fileName}: ${error.message}`;
      throw new AppError('invalid_input', `Invalid file: ${msg}`, [
        { loc: ['body', 'file_content_base64'], msg, type: 'file_invalid', ...(error.line === null ? {} : { line: error.line }) },
      ]);
    }
    throw error;
  } finally {
    await chunks.return(undefined);
  }
}

/**
 * The file in 64 KiB pieces of one reused buffer: each piece is valid until the next is asked for
 * (the UTF-8 decoder copies it into a string at once). A read stream's new buffer per piece was
 * garbage outside V8's heap until the next GC. 64 KiB keeps each piece's strings in V8's young
 * generation; 1 MiB pieces landed in large-object space and cost ~100 MB more peak RSS. The file
 * is read 1 MiB at a time, though: 64 KiB reads took ~120–150 ms of awaited reads for 46 MB,
 * 1 MiB reads 16–60 ms (docs/performance.md, importfast).
 */
async function* readChunks(path: string): AsyncGenerator<Buffer> {
  const piece = 64 * 1024;
  const file = await open(path, 'r');
  try {
    // No bigger than the file (in whole pieces): see row-batch.ts on freed blocks above 128 KiB.
    const buffer = Buffer.allocUnsafe(Math.min(16 * piece, Math.max(piece, Math.ceil((await file.stat()).size / piece) * piece)));
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) return;
      for (let at = 0; at < bytesRead; at += piece) yield buffer.subarray(at, Math.min(at + piece, bytesRead));
    }
  } finally {
    await file.close();
  }
}
