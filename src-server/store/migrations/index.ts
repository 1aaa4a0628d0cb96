import foundation from './001-foundation';
import prompts from './002-prompts';
import datasets from './003-datasets';
import evaluations from './004-evaluations';
import egress from './006-egress';
import spans from './007-spans';
import manifests from './008-manifests';
import reviewPrices from './009-review-prices';
import archiveDatasetGroups from './010-archive-dataset-groups';
import textIndex from './011-text-index';
import retention from './012-retention';
import requestSorts from './013-request-sorts';
import ascendingIndexes from './016-ascending-indexes';
import textUnindexed from './017-text-unindexed';
import cacheWrites from './018-cache-writes';
import noteText from './019-note-text';
import cacheWrites1h from './020-cache-writes-1h';

export interface Migration {
  /** `NNN-name`, the file's name; applied in this order. Never edit one that has shipped. */
  id: string;
  sql: string;
}

/** One line per migration file. */
export const migrations: readonly Migration[] = [
  { id: '001-foundation', sql: foundation },
  { id: '002-prompts', sql: prompts },
  { id: '003-datasets', sql: datasets },
  { id: '004-evaluations', sql: evaluations },
  { id: '006-egress', sql: egress },
  { id: '007-spans', sql: spans },
  { id: '008-manifests', sql: manifests },
  { id: '009-review-prices', sql: reviewPrices },
  { id: '010-archive-dataset-groups', sql: archiveDatasetGroups },
  { id: '011-text-index', sql: textIndex },
  { id: '012-retention', sql: retention },
  { id: '013-request-sorts', sql: requestSorts },
  { id: '016-ascending-indexes', sql: ascendingIndexes },
  { id: '017-text-unindexed', sql: textUnindexed },
  { id: '018-cache-writes', sql: cacheWrites },
  { id: '019-note-text', sql: noteText },
  { id: '020-cache-writes-1h', sql: cacheWrites1h },
];
