// 1-hour prompt-cache writes (docs/decisions.md, "1-hour cache writes").
// - `requests.cache_write_1h_tokens`: the part of `cache_write_tokens` Anthropic wrote to its
//   1-hour cache (`usage.cache_creation.ephemeral_1h_input_tokens`), billed at 2× input where a
//   5-minute write is 1.25×; kept so a recompute prices it as the first computation did. NULL on
//   rows logged before: their writes stay priced as 5-minute ones, the count to tell them apart
//   was not kept.
export default /* sql */ `
ALTER TABLE requests ADD COLUMN cache_write_1h_tokens INTEGER;
`;
