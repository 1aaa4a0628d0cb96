// Workspaces, keys, folders and the request log. Times are integer epoch milliseconds (UTC): they
// sort and compare as numbers in every index; the API turns them into ISO 8601.
export default /* sql */ `
CREATE TABLE workspaces (
  id         INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE api_keys (
  id           INTEGER PRIMARY KEY,
  workspace_id INTEGER NOT NULL REFERENCES workspaces(id),
  name         TEXT NOT NULL,
  prefix       TEXT NOT NULL,
  key_hash     TEXT NOT NULL UNIQUE,
  created_at   INTEGER NOT NULL,
  revoked_at   INTEGER
);
CREATE INDEX api_keys_workspace ON api_keys(workspace_id);

CREATE TABLE folders (
  id           INTEGER PRIMARY KEY,
  workspace_id INTEGER NOT NULL REFERENCES workspaces(id),
  parent_id    INTEGER REFERENCES folders(id),
  name         TEXT NOT NULL,
  created_at   INTEGER NOT NULL
);
CREATE INDEX folders_workspace ON folders(workspace_id, parent_id);

CREATE TABLE request_groups (
  id           INTEGER PRIMARY KEY,
  workspace_id INTEGER NOT NULL REFERENCES workspaces(id),
  created_at   INTEGER NOT NULL
);

CREATE TABLE requests (
  id                     INTEGER PRIMARY KEY,
  workspace_id           INTEGER NOT NULL REFERENCES workspaces(id),
  provider               TEXT NOT NULL,
  model                  TEXT NOT NULL,
  input                  TEXT NOT NULL,
  output                 TEXT NOT NULL,
  request_start_time     INTEGER NOT NULL,
  request_end_time       INTEGER NOT NULL,
  latency_ms             INTEGER NOT NULL,
  parameters             TEXT NOT NULL,
  tags                   TEXT NOT NULL,
  metadata               TEXT NOT NULL,
  prompt_id              INTEGER,
  prompt_name            TEXT,
  prompt_version_number  INTEGER,
  prompt_version_id      INTEGER,
  prompt_input_variables TEXT NOT NULL,
  input_tokens           INTEGER NOT NULL,
  output_tokens          INTEGER NOT NULL,
  price                  REAL NOT NULL,
  function_name          TEXT NOT NULL,
  score                  INTEGER,
  status                 TEXT NOT NULL,
  error_type             TEXT,
  error_message          TEXT,
  api_type               TEXT,
  group_id               INTEGER,
  created_at             INTEGER NOT NULL,
  -- The request's row in requests_fts: request_start_time * 2^20 + a sequence within that
  -- millisecond, so the text index's own rowid order is the explorer's order and a search walks
  -- it newest first, stopping after one page instead of sorting every match.
  fts_key                INTEGER UNIQUE
);
-- The explorer lists newest first and pages by (request_start_time, id); every list query walks
-- one of these indexes in that order instead of sorting.
CREATE INDEX requests_by_time   ON requests(workspace_id, request_start_time DESC, id DESC);
CREATE INDEX requests_by_model  ON requests(workspace_id, model, request_start_time DESC, id DESC);
CREATE INDEX requests_by_status ON requests(workspace_id, status, request_start_time DESC, id DESC);
CREATE INDEX requests_by_prompt ON requests(workspace_id, prompt_id, prompt_version_number, request_start_time DESC, id DESC)
  WHERE prompt_id IS NOT NULL;
CREATE INDEX requests_by_group  ON requests(group_id) WHERE group_id IS NOT NULL;

-- Side tables carry request_start_time so a tag or metadata filter walks its own index in list
-- order and stops after one page, however rare the tag.
CREATE TABLE request_tags (
  request_id         INTEGER NOT NULL REFERENCES requests(id) ON DELETE CASCADE,
  workspace_id       INTEGER NOT NULL,
  tag                TEXT NOT NULL,
  request_start_time INTEGER NOT NULL,
  PRIMARY KEY (request_id, tag)
) WITHOUT ROWID;
CREATE INDEX request_tags_lookup ON request_tags(workspace_id, tag, request_start_time DESC, request_id DESC);

CREATE TABLE request_metadata (
  request_id         INTEGER NOT NULL REFERENCES requests(id) ON DELETE CASCADE,
  workspace_id       INTEGER NOT NULL,
  key                TEXT NOT NULL,
  value              TEXT NOT NULL,
  request_start_time INTEGER NOT NULL,
  PRIMARY KEY (request_id, key)
) WITHOUT ROWID;
CREATE INDEX request_metadata_lookup ON request_metadata(workspace_id, key, value, request_start_time DESC, request_id DESC);

CREATE TABLE request_scores (
  request_id INTEGER NOT NULL REFERENCES requests(id) ON DELETE CASCADE,
  name       TEXT NOT NULL,
  value      INTEGER NOT NULL,
  PRIMARY KEY (request_id, name)
) WITHOUT ROWID;

-- Full text over the text of input and output (not their JSON keys), keyed by requests.fts_key. Trigrams match any
-- substring of 3+ characters, which is what makes Chinese and Japanese searchable without a
-- word segmenter. Contentless: the text already lives in requests, so it is not stored twice.
CREATE VIRTUAL TABLE requests_fts USING fts5(body, tokenize = 'trigram', content = '', contentless_delete = 1);

-- Dashboard rollups, kept in the same transaction as each insert, so /stats reads days x models
-- rows instead of scanning the log. Latency percentiles come from a log-scale histogram.
CREATE TABLE request_rollups (
  workspace_id  INTEGER NOT NULL,
  day           TEXT NOT NULL,
  provider      TEXT NOT NULL,
  model         TEXT NOT NULL,
  requests      INTEGER NOT NULL,
  errors        INTEGER NOT NULL,
  cost          REAL NOT NULL,
  input_tokens  INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  latency_ms_sum INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, day, provider, model)
) WITHOUT ROWID;

CREATE TABLE request_latency_buckets (
  workspace_id INTEGER NOT NULL,
  day          TEXT NOT NULL,
  provider     TEXT NOT NULL,
  model        TEXT NOT NULL,
  bucket       INTEGER NOT NULL,
  requests     INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, day, provider, model, bucket)
) WITHOUT ROWID;
`;
