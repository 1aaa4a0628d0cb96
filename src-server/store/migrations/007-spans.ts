// Traces: spans beside requests, and a per-trace rollup kept in the same transaction as each span
// (like the dashboard rollups), so the trace list reads one row per trace instead of grouping
// spans. Times are integer epoch nanoseconds: OTLP's own unit, and sub-millisecond spans (a tool
// call, a cache hit) keep their width on the waterfall. They pass 2^53, so JS binds them as
// BigInt and reads them back as text (see store/spans.ts).
export default /* sql */ `
CREATE TABLE spans (
  id             INTEGER PRIMARY KEY,
  workspace_id   INTEGER NOT NULL REFERENCES workspaces(id),
  trace_id       TEXT NOT NULL,
  span_id        TEXT NOT NULL,
  parent_span_id TEXT,
  name           TEXT NOT NULL,
  kind           TEXT NOT NULL,
  start_ns       INTEGER NOT NULL,
  end_ns         INTEGER NOT NULL,
  status_code    TEXT NOT NULL,
  status_message TEXT NOT NULL,
  attributes     TEXT NOT NULL,
  events         TEXT NOT NULL,
  resource       TEXT NOT NULL,
  request_id     INTEGER,
  -- An exporter retrying a batch whose answer it lost sends the same spans again: kept once.
  UNIQUE (workspace_id, trace_id, span_id)
);
-- A request logged with span_id finds its span (and a span its request) by this.
CREATE INDEX spans_by_span_id ON spans(workspace_id, span_id);

CREATE TABLE traces (
  workspace_id  INTEGER NOT NULL,
  trace_id      TEXT NOT NULL,
  -- The span without a parent; until it arrives the trace is named after its earliest span.
  root_span_id  TEXT,
  name          TEXT NOT NULL,
  root_status   TEXT,
  start_ns      INTEGER NOT NULL,
  end_ns        INTEGER NOT NULL,
  span_count    INTEGER NOT NULL,
  error_count   INTEGER NOT NULL,
  input_tokens  INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  price         REAL NOT NULL,
  request_count INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, trace_id)
) WITHOUT ROWID;
CREATE INDEX traces_by_start ON traces(workspace_id, start_ns DESC, trace_id DESC);

ALTER TABLE requests ADD COLUMN span_id TEXT;
ALTER TABLE requests ADD COLUMN trace_id TEXT;
CREATE INDEX requests_by_span ON requests(workspace_id, span_id) WHERE span_id IS NOT NULL;
`;
