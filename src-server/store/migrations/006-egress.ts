// The egress setting (one row per workspace; no row = online, nothing listed) and the hosts each
// run called. A host is counted before its call leaves, blocked attempts apart, so the log is
// complete even after a crash. `allowed_hosts` is a JSON array of lower-case host names.
export default /* sql */ `
CREATE TABLE egress_settings (
  workspace_id   INTEGER PRIMARY KEY REFERENCES workspaces(id),
  offline        INTEGER NOT NULL CHECK (offline IN (0, 1)),
  allowed_hosts  TEXT NOT NULL,
  updated_at     INTEGER NOT NULL
);
CREATE TABLE report_outbound_hosts (
  report_id  INTEGER NOT NULL REFERENCES reports(id),
  host       TEXT NOT NULL,
  calls      INTEGER NOT NULL DEFAULT 0,
  blocked    INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (report_id, host)
) WITHOUT ROWID;
`;
