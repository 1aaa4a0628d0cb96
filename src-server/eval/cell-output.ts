/**
 * The most a cell stores, as JSON text. A cell that returned more keeps its start and says it was
 * cut, so one huge cell can neither fill the database nor make a page of rows too large to send
 * (a page holds at most 100 rows: with one such column, about 100 MiB).
 */
export const MAX_CELL_OUTPUT_BYTES = 1024 * 1024;

/** The value a cell stores and its JSON text: the value itself when it fits, else a cut string. */
export function boundCellValue(value: unknown): { value: unknown; json: string | null } {
  if (value === null || value === undefined) return { value: null, json: null };
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    // Past V8's longest string (about 512 MiB): only its start can be kept.
    const text = typeof value === 'string' ? value : '';
    const cut = cutCellOutput(text.slice(0, MAX_CELL_OUTPUT_BYTES), Infinity);
    return { value: cut, json: JSON.stringify(cut) };
  }
  if (json === undefined) return { value: null, json: null };
  if (json.length <= MAX_CELL_OUTPUT_BYTES / 3 || Buffer.byteLength(json) <= MAX_CELL_OUTPUT_BYTES) return { value, json };
  const cut = cutCellOutput(typeof value === 'string' ? value : json, Buffer.byteLength(json));
  return { value: cut, json: JSON.stringify(cut) };
}

/**
 * The start of a too-large output (a string's own text, any other value's JSON text) with a
 * marker naming its size, as a string whose JSON text is at most MAX_CELL_OUTPUT_BYTES.
 */
export function cutCellOutput(text: string, bytes: number): string {
  const size = Number.isFinite(bytes) ? `${(bytes / 1048576).toFixed(1)} MiB` : 'too large to hold';
  const marker = `\n… [cut: the output was ${size}; only its first 1 MiB is kept]`;
  const markerBytes = Buffer.byteLength(JSON.stringify(marker));
  let keep = MAX_CELL_OUTPUT_BYTES - markerBytes;
  for (;;) {
    let head = Buffer.from(text.slice(0, keep)).subarray(0, keep).toString();
    // A character split by the byte cut decodes as U+FFFD: drop it rather than store a wrong one.
    if (head.endsWith('\uFFFD') && !text.startsWith(head)) head = head.slice(0, -1);
    const json = Buffer.byteLength(JSON.stringify(head + marker));
    const over = json - MAX_CELL_OUTPUT_BYTES;
    if (over <= 0) return head + marker;
    // Escapes (quotes, control characters) make JSON longer than the text: shrink in proportion.
    keep -= Math.max(1, Math.ceil((over * Buffer.byteLength(head)) / (json - markerBytes)));
  }
}
