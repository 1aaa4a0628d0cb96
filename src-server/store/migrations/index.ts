import foundation from './001-foundation';

/** Ordered: entry N is schema version N+1. Append only; never edit a released migration. */
export const migrations: readonly string[] = [foundation];
