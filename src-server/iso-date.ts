/** Epoch milliseconds as API.md's timestamps: ISO 8601 UTC. */
export const isoDate = (epochMs: number): string => new Date(epochMs).toISOString();
