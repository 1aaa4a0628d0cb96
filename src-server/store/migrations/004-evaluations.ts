// Evaluation pipelines and their runs. A pipeline (is_blueprint = 1) and a final report (a run of
// it, is_blueprint = 0, parent_report_id = the pipeline) share one table: a run copies the
// pipeline's columns, so later edits to the pipeline never change a finished report.
// Times are epoch milliseconds; status is NULL for pipelines.
export default /* sql */ `
CREATE TABLE reports (
  id                INTEGER PRIMARY KEY,
  workspace_id      INTEGER NOT NULL REFERENCES workspaces(id),
  name              TEXT NOT NULL,
  folder_id         INTEGER,
  is_blueprint      INTEGER NOT NULL,
  parent_report_id  INTEGER REFERENCES reports(id),
  dataset_group_id  INTEGER NOT NULL,
  dataset_id        INTEGER NOT NULL,
  status            TEXT CHECK (status IN ('RUNNING', 'COMPLETED', 'FAILED', 'CANCELED')),
  error             TEXT,
  concurrency       INTEGER,
  score             REAL,
  score_type        TEXT,
  score_details     TEXT,
  score_card        TEXT,
  started_at        INTEGER,
  finished_at       INTEGER,
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL,
  archived_at       INTEGER
);
CREATE INDEX reports_workspace ON reports(workspace_id, is_blueprint, id DESC) WHERE archived_at IS NULL;
CREATE INDEX reports_parent ON reports(parent_report_id, id DESC) WHERE parent_report_id IS NOT NULL;
-- Read once per start to resume interrupted runs.
CREATE INDEX reports_running ON reports(status) WHERE status = 'RUNNING';

CREATE TABLE report_columns (
  id                INTEGER PRIMARY KEY,
  report_id         INTEGER NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
  position          INTEGER NOT NULL,
  name              TEXT NOT NULL,
  column_type       TEXT NOT NULL,
  configuration     TEXT NOT NULL,
  is_part_of_score  INTEGER NOT NULL DEFAULT 0,
  created_at        INTEGER NOT NULL,
  UNIQUE (report_id, name)
);
CREATE INDEX report_columns_order ON report_columns(report_id, position);

-- One row per finished cell, written as the cell finishes; a missing row is a queued cell. The
-- key clusters a report's cells by row, so a page of rows is one range read.
CREATE TABLE report_cells (
  report_id      INTEGER NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
  row_index      INTEGER NOT NULL,
  column_id      INTEGER NOT NULL,
  status         TEXT NOT NULL CHECK (status IN ('PASSED', 'FAILED', 'ERROR', 'SKIPPED')),
  value          TEXT,
  error          TEXT,
  cost           REAL NOT NULL DEFAULT 0,
  input_tokens   INTEGER NOT NULL DEFAULT 0,
  output_tokens  INTEGER NOT NULL DEFAULT 0,
  latency_ms     INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (report_id, row_index, column_id)
) WITHOUT ROWID;
`;
