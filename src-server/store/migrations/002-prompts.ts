// The prompt registry and the providers its versions run on. A version row is never updated
// after insert (immutability is the registry's promise); labels are the only moving pointers.
export default /* sql */ `
CREATE TABLE providers (
  id           INTEGER PRIMARY KEY,
  workspace_id INTEGER NOT NULL REFERENCES workspaces(id),
  name         TEXT NOT NULL,
  client       TEXT NOT NULL,
  base_url     TEXT,
  api_key      TEXT,
  created_at   INTEGER NOT NULL
);
CREATE UNIQUE INDEX providers_name ON providers(workspace_id, name);

CREATE TABLE prompt_templates (
  id             INTEGER PRIMARY KEY,
  workspace_id   INTEGER NOT NULL REFERENCES workspaces(id),
  name           TEXT NOT NULL,
  folder_id      INTEGER REFERENCES folders(id),
  tags           TEXT NOT NULL,
  latest_version INTEGER NOT NULL DEFAULT 0,
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL,
  archived_at    INTEGER
);
-- An archived name may be published again as a new template; live names stay unique.
CREATE UNIQUE INDEX prompt_templates_name ON prompt_templates(workspace_id, name) WHERE archived_at IS NULL;
-- Lists are newest first (last publish), paged by (updated_at, id).
CREATE INDEX prompt_templates_recent ON prompt_templates(workspace_id, updated_at DESC, id DESC) WHERE archived_at IS NULL;

CREATE TABLE prompt_template_tags (
  template_id INTEGER NOT NULL REFERENCES prompt_templates(id),
  tag         TEXT NOT NULL,
  PRIMARY KEY (tag, template_id)
) WITHOUT ROWID;
CREATE INDEX prompt_template_tags_template ON prompt_template_tags(template_id);

CREATE TABLE prompt_versions (
  id             INTEGER PRIMARY KEY,
  template_id    INTEGER NOT NULL REFERENCES prompt_templates(id),
  version_number INTEGER NOT NULL,
  prompt_template TEXT NOT NULL,
  commit_message TEXT,
  metadata       TEXT NOT NULL,
  -- A provider the version runs on; no foreign key, so deleting a provider leaves versions intact.
  provider_id    INTEGER,
  created_at     INTEGER NOT NULL,
  UNIQUE (template_id, version_number)
);

CREATE TABLE release_labels (
  id           INTEGER PRIMARY KEY,
  workspace_id INTEGER NOT NULL,
  template_id  INTEGER NOT NULL REFERENCES prompt_templates(id),
  name         TEXT NOT NULL,
  version_id   INTEGER NOT NULL REFERENCES prompt_versions(id),
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL,
  UNIQUE (template_id, name)
);
-- "Templates that carry label X" walks this index instead of every template.
CREATE INDEX release_labels_by_name ON release_labels(workspace_id, name, template_id);
CREATE INDEX release_labels_by_version ON release_labels(version_id);
`;
