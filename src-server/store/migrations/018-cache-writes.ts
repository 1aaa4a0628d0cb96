// Prompt-cache writes (docs/decisions.md, "Cache writes have their own rate").
// - `requests.cache_write_tokens`: the part of `input_tokens` written to the provider's prompt
//   cache (Anthropic's `cache_creation_input_tokens`), kept so a recompute prices it as the first
//   computation did (NULL: none reported).
// - `prices.cache_write_per_mtok`: its rate. Rows a workspace saved before this migration get
//   1.25× their input rate, Anthropic's price for a 5-minute cache write and the default a `PUT`
//   without the field gets; the table holds a few rows per workspace, so the update is instant.
export default /* sql */ `
ALTER TABLE requests ADD COLUMN cache_write_tokens INTEGER;
ALTER TABLE prices ADD COLUMN cache_write_per_mtok REAL NOT NULL DEFAULT 0;
UPDATE prices SET cache_write_per_mtok = input_per_mtok * 1.25;
`;
