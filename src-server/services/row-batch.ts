import type { PackedRows } from '../store/datasets';

/**
 * A write transaction holds at most this much row text or this many rows: few commits (each an
 * fsync, and past 4 MB of WAL a checkpoint), and other writers wait at most one batch (~50 ms).
 */
const BATCH_BYTES = 4 * 1024 * 1024;
const BATCH_ROWS = 10_000;

/**
 * An import's batch of rows, their JSON texts packed as UTF-8 into one reused buffer. Nothing of
 * it is on V8's heap: held as an array of strings until the batch commits, a batch survived
 * young-generation GCs into the old generation, which grew by ~50 MB of garbage over a 46 MB
 * import before a full GC came (docs/performance.md, "Datasets").
 */
export class RowBatch implements PackedRows {
  // Starts at 64 KiB and doubles as rows arrive (room()), so a small file never allocates the
  // full batch. glibc raises its mmap threshold to the size of any freed block it had mapped (up to
  // 32 MiB) and its trim threshold to twice that, for the life of the process: the 4.5 MiB buffer a
  // 50 KB import used to allocate left the trim threshold at 9.4 MiB, and each of V8's four
  // platform threads then kept ~2.9 MiB of freed memory in its arena; the evaluation after that
  // import peaked 4–7 MiB higher (docs/performance.md, `evalrss`). A large import still raises it.
  bytes = Buffer.allocUnsafe(64 * 1024);
  ends = new Uint32Array(1024);
  count = 0;
  /** Bytes used: the end of the last row. */
  used = 0;

  /** Appends a row given as its JSON text. */
  add(text: string): void {
    // At most 3 bytes of UTF-8 per UTF-16 unit, so the write below never truncates.
    const bytes = this.room(text.length * 3);
    this.endRow(this.used + bytes.write(text, this.used));
  }

  /** The buffer, with room for `n` more bytes at `used` (a writer of bytes then calls `endRow`). */
  room(n: number): Buffer {
    if (this.used + n > this.bytes.length) {
      // Doubling stops at the batch's usual size, room past the mark for the chunk that crosses it.
      const bigger = Buffer.allocUnsafe(Math.max(Math.min(this.bytes.length * 2, BATCH_BYTES + 512 * 1024), this.used + n));
      this.bytes.copy(bigger, 0, 0, this.used);
      this.bytes = bigger;
    }
    return this.bytes;
  }

  /** The row written from `used` ends at `end`. */
  endRow(end: number): void {
    if (this.count === this.ends.length) {
      const longer = new Uint32Array(this.ends.length * 2);
      longer.set(this.ends);
      this.ends = longer;
    }
    this.ends[this.count++] = end;
    this.used = end;
  }

  get full(): boolean {
    return this.used >= BATCH_BYTES || this.count >= BATCH_ROWS;
  }

  /** Empties the batch once its rows are written. */
  clear(): void {
    this.count = 0;
    this.used = 0;
    // One huge record grew the buffer; the next batch starts from the usual size again.
    if (this.bytes.length > 2 * BATCH_BYTES) this.bytes = Buffer.allocUnsafe(BATCH_BYTES + 512 * 1024);
  }
}

/** Rows an import writes into a batch a chunk at a time, pausing between chunks so it can commit the batch. */
export interface RowSource {
  /** Column names in order of first appearance; complete once `writeRows` is done. */
  columns: Set<string>;
  writeRows(out: RowBatch): AsyncIterable<unknown>;
}
