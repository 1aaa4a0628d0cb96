/**
 * How deep a JSON text may nest. Past about 1,000 levels SQLite's JSON functions refuse the
 * document and recursive walks overflow the stack (issue 10: 5,000 levels answered 500); 512 leaves
 * room for the few levels our stored records wrap around client data, and no real payload is near it.
 */
export const MAX_JSON_DEPTH = 512;

/**
 * True when the text nests arrays/objects deeper than `max`: a scan of the text before it is
 * parsed, where brackets inside strings do not count. Strings are skipped with indexOf, so the
 * scan costs about a fifth of JSON.parse on structured data and almost nothing on long strings.
 */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  // Nesting past `max` takes more than `max` opening brackets; a logged request has a few dozen,
  // and counting them with indexOf costs a tenth of the scan below.
  if (openingsAtMost(text, max)) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = closingQuote(text, i);
      if (i === -1) return false;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Whether `text` holds at most `max` `{` and `[` in all, strings included. */
function openingsAtMost(text: string, max: number): boolean {
  let count = 0;
  for (const bracket of ['{', '[']) {
    for (let i = text.indexOf(bracket); i !== -1; i = text.indexOf(bracket, i + 1)) {
      if (++count > max) return false;
    }
  }
  return true;
}

/** The index of the quote that closes the string opened at `open` (not preceded by an odd run of backslashes). */
function closingQuote(text: string, open: number): number {
  let j = open;
  for (;;) {
    j = text.indexOf('"', j + 1);
    if (j === -1) return -1;
    let backslashes = 0;
    while (text.charCodeAt(j - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return j;
  }
}

export const tooDeepMessage = `JSON nested deeper than ${MAX_JSON_DEPTH} levels`;
