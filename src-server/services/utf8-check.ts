import { isUtf8 } from 'node:buffer';
import { notUtf8 } from './dataset-file';

/**
 * Rejects bytes that are not UTF-8, as the fatal text decoder did, a chunk at a time without
 * decoding them: a character cut by a chunk's end is checked with the start of the next.
 */
export class Utf8Check {
  /** The unfinished sequence at the end of the last chunk. */
  private tail: number[] = [];

  /** `offset`: where `chunk` starts in the file, named in the error. */
  check(chunk: Buffer, offset: number): void {
    let start = 0;
    if (this.tail.length > 0) {
      const need = sequenceLength(this.tail[0]);
      while (this.tail.length < need && start < chunk.length) this.tail.push(chunk[start++]);
      if (this.tail.length < need) return;
      if (!isUtf8(Buffer.from(this.tail))) throw notUtf8(offset);
      this.tail = [];
    }
    let end = chunk.length;
    for (let j = chunk.length - 1; j >= Math.max(start, chunk.length - 3); j--) {
      const c = chunk[j];
      if ((c & 0xc0) === 0x80) continue;
      if (c >= 0xc0 && j + sequenceLength(c) > chunk.length) end = j;
      break;
    }
    if (!isUtf8(chunk.subarray(start, end))) throw notUtf8(offset);
    for (let j = end; j < chunk.length; j++) this.tail.push(chunk[j]);
  }

  /** The file ends: a sequence still unfinished is an error. */
  end(offset: number): void {
    if (this.tail.length > 0) throw notUtf8(offset);
  }
}

const sequenceLength = (lead: number) => (lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2);
