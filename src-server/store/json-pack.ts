// How a request's input and output JSON are stored: the JSON text with its most common fragments
// of chat syntax (`{"role":"user","content":`, `[{"type":"text","text":"`, …) each replaced by one
// control character, behind a leading \x01. JSON text never holds a raw control character
// (JSON.stringify escapes U+0000–U+001F), so the replacement is exactly reversible and a stored
// value without the mark is plain JSON (every row written before this, read as it was). It saves
// ~200 of ~1,900 bytes of a ~2 KB chat request for a few microseconds, where deflate saved ~850
// but cost ~100 µs of CPU per request on the ingest thread (docs/performance.md, "Disk per request").
// Only ASCII syntax is replaced, so a Chinese/Japanese run is found by LIKE in the stored text as
// it was; anything else that reads stored JSON as text goes through `unpackJson`.

/** Never change or reorder: stored rows refer to these by position. Append only (up to 30). */
const FRAGMENTS = [
  '{"type":"chat","messages":[',
  '{"type":"completion","content":',
  '{"role":"system","content":',
  '{"role":"developer","content":',
  '{"role":"user","content":',
  '{"role":"assistant","content":',
  '{"role":"tool","content":',
  '[{"type":"text","text":"',
  '{"type":"text","text":"',
  '"}]}]}',
  '"}]},',
  '"}]}',
  ',"tool_calls":[{"id":"',
  '","type":"function","function":{"name":"',
  '","arguments":"',
  ',"tool_call_id":"',
  '{"type":"image_url","image_url":{"url":"',
] as const;

const MARK = '\x01';
/** Fragment i is stored as the character \x02 + i. */
const code = (i: number) => String.fromCharCode(2 + i);
const codes = new Map<string, string>(FRAGMENTS.map((fragment, i) => [fragment, code(i)]));
// Longest first, so a fragment that starts another (`"}]}` of `"}]}]}`) only matches where the longer does not.
const fragmentPattern = new RegExp(
  [...FRAGMENTS].sort((a, b) => b.length - a.length).map((f) => f.replace(/[[\]{}.*+?^$()|\\]/g, '\\$&')).join('|'),
  'g',
);
const CONTROL = /[\x00-\x1f]/;
const CODED = /[\x02-\x1f]/g;

/** The stored form of a JSON text (as JSON.stringify wrote it). */
export function packJson(json: string): string {
  if (CONTROL.test(json)) return json;
  const packed = MARK + json.replace(fragmentPattern, (fragment) => codes.get(fragment)!);
  return packed.length < json.length ? packed : json;
}

/** The JSON text of a stored value, packed or not. */
export function unpackJson(stored: string): string {
  if (!stored.startsWith(MARK)) return stored;
  return stored.slice(1).replace(CODED, (c) => FRAGMENTS[c.charCodeAt(0) - 2]);
}
