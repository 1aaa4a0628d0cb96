// Dataset groups hold numbered versions. One row of `datasets` per version:
//   version_number >= 1  published, immutable;
//   version_number = -1  the group's one editable draft (the UNIQUE below enforces "one");
//   version_number NULL  an import still streaming in: invisible to every read, deleted if the
//                        import fails or the process dies, numbered only when it completes.
export default /* sql */ `
CREATE TABLE dataset_groups (
  id           INTEGER PRIMARY KEY,
  workspace_id INTEGER NOT NULL REFERENCES workspaces(id),
  folder_id    INTEGER REFERENCES folders(id),
  name         TEXT NOT NULL,
  created_at   INTEGER NOT NULL
);
CREATE UNIQUE INDEX dataset_groups_name ON dataset_groups(workspace_id, name);
CREATE INDEX dataset_groups_folder ON dataset_groups(workspace_id, folder_id);

CREATE TABLE datasets (
  id               INTEGER PRIMARY KEY,
  dataset_group_id INTEGER NOT NULL REFERENCES dataset_groups(id),
  version_number   INTEGER CHECK (version_number IS NULL OR version_number = -1 OR version_number >= 1),
  column_names     TEXT NOT NULL,
  row_count        INTEGER NOT NULL DEFAULT 0,
  created_at       INTEGER NOT NULL,
  UNIQUE (dataset_group_id, version_number)
);

-- row_index is 0-based and dense within a dataset, so a page is a range on this key, not an OFFSET.
-- A rowid table (not WITHOUT ROWID): rows are often hundreds of bytes, past the size where a
-- clustered key pays off.
CREATE TABLE dataset_rows (
  id         INTEGER PRIMARY KEY,
  dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
  row_index  INTEGER NOT NULL,
  data       TEXT NOT NULL
);
CREATE UNIQUE INDEX dataset_rows_order ON dataset_rows(dataset_id, row_index);
`;
