// The text index becomes a word index (docs/performance.md, "Text index"): unicode61 words with
// 3- and 4-character prefix indexes, Chinese/Japanese runs as character pairs, no positions
// (detail=none), keyed by the request's id. It replaces the trigram index (5.1 KB per request).
// The rebuild reads every request's JSON through search_document() (store/text-index.ts,
// registered before migrating): measured 23 s of CPU per 100,000 requests (docs/performance.md),
// paid once at the first start of this version; searches stay correct throughout because nothing
// else runs until the migration commits. (Multi-million-request logs would want it in background
// batches instead; not done.)
// requests.fts_key (the old index's key) is no longer written; existing values are left alone.
export default /* sql */ `
DROP TABLE requests_fts;
CREATE VIRTUAL TABLE requests_fts USING fts5(body, tokenize = 'unicode61 remove_diacritics 2',
  prefix = '3 4', detail = none, content = '', contentless_delete = 1);
INSERT INTO requests_fts (rowid, body)
  SELECT id, document FROM (SELECT id, search_document(input, output) AS document FROM requests)
  WHERE trim(document) <> '';
INSERT INTO requests_fts (requests_fts) VALUES ('optimize');

-- For each block of 1,024 ids, the newest request_start_time in it (see store/text-index.ts).
CREATE TABLE request_time_blocks (
  block     INTEGER PRIMARY KEY,
  max_start INTEGER NOT NULL
);
INSERT INTO request_time_blocks (block, max_start)
  SELECT id >> 10, max(request_start_time) FROM requests GROUP BY id >> 10;
`;
