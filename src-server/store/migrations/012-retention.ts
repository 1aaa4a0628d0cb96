// Retention: one setting for the whole data file (its storage figures are for the whole file
// too), so a single row. NULL leaves that limit off. See services/retention.ts.
export default /* sql */ `
CREATE TABLE retention_settings (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  keep_days  INTEGER,
  max_bytes  INTEGER,
  updated_at INTEGER NOT NULL
);
`;
