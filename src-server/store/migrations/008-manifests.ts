// Run manifests (API.md §6): what a run resolved when it started (dataset version and its hash,
// prompt versions behind labels, providers, models, code hashes), as JSON, fixed for the run's life.
// NULL for pipelines and for runs started before this migration.
export default /* sql */ `
ALTER TABLE reports ADD COLUMN manifest TEXT;
`;
