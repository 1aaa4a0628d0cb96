// Human review and prices (API.md §7).
// - `note`: a reviewer's free text on a request (NULL: none).
// - `price_source`: where `price` came from ('client' | 'provider' | 'table' | 'none'). NULL on
//   rows logged before this migration; they read as 'client' when priced and 'none' when not, so
//   the migration rewrites no row (a million-row log opens at once).
// - `cached_input_tokens` / `reasoning_tokens`: the parts of input and output tokens priced at
//   their own rate, kept so a recompute prices them as the first computation did (NULL: none reported).
// - `prices`: a workspace's own price rows; the shipped list lives in src-server/providers/price-list.ts
//   and a row here with the same provider and model replaces it for that workspace.
export default /* sql */ `
ALTER TABLE requests ADD COLUMN note TEXT;
ALTER TABLE requests ADD COLUMN price_source TEXT;
ALTER TABLE requests ADD COLUMN cached_input_tokens INTEGER;
ALTER TABLE requests ADD COLUMN reasoning_tokens INTEGER;

CREATE TABLE prices (
  workspace_id          INTEGER NOT NULL REFERENCES workspaces(id),
  provider              TEXT NOT NULL,
  model                 TEXT NOT NULL,
  input_per_mtok        REAL NOT NULL,
  output_per_mtok       REAL NOT NULL,
  cached_input_per_mtok REAL NOT NULL,
  reasoning_per_mtok    REAL NOT NULL,
  updated_at            INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, provider, model)
) WITHOUT ROWID;
`;
