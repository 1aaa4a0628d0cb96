// Dataset groups are archived, not deleted: runs pin their versions, and an old run must still
// render (its rows read the dataset). Like templates, an archived name may be used again.
export default /* sql */ `
ALTER TABLE dataset_groups ADD COLUMN archived_at INTEGER;
DROP INDEX dataset_groups_name;
CREATE UNIQUE INDEX dataset_groups_name ON dataset_groups(workspace_id, name) WHERE archived_at IS NULL;
`;
