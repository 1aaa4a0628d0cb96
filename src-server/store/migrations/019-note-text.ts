// Review notes join their request's text in the index (store/text-index.ts `storedSearchText`;
// docs/decisions.md, "Review notes are searchable"). Requests noted before this version are
// indexed again with their note: their rows deleted and written whole (the index is contentless),
// and any still waiting in text_unindexed taken off it, as `setNote` does. Only noted requests are
// read (the note is NULL on the rest), so a log with few notes upgrades at once.
export default /* sql */ `
DELETE FROM requests_fts WHERE rowid IN (SELECT id FROM requests WHERE note IS NOT NULL AND id NOT IN (SELECT id FROM text_unindexed));
DELETE FROM text_unindexed WHERE id IN (SELECT id FROM requests WHERE note IS NOT NULL);
INSERT INTO requests_fts (rowid, body)
  SELECT id, document FROM (SELECT id, search_document(input, output, note) AS document FROM requests WHERE note IS NOT NULL)
  WHERE trim(document) <> '';
`;
