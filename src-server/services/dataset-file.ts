/** What a dataset file may hold, and how a problem with one is reported. */

export class FileError extends Error {
  constructor(
    readonly line: number | null,
    readonly problem: string,
  ) {
    super(line === null ? problem : `line ${line}: ${problem}`);
  }
}

export const MAX_COLUMNS = 1000;
const MAX_COLUMN_NAME = 255;
/** A record longer than this (characters of JSON, bytes of CSV) is almost always an unclosed quote or bracket running to the end. */
export const MAX_RECORD_CHARS = 8 * 1024 * 1024;
export const MAX_RECORD_BYTES = MAX_RECORD_CHARS;

export const notUtf8 = (offset: number) => new FileError(null, `the file is not valid UTF-8 text (near byte ${offset})`);

export function checkColumnName(name: string, line: number, where: string): void {
  if (name === '') throw new FileError(line, `${where} has an empty column name`);
  if (name.length > MAX_COLUMN_NAME) throw new FileError(line, `${where} has a column name longer than ${MAX_COLUMN_NAME} characters`);
}
