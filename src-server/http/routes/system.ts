import { statSync } from 'node:fs';
import { AppError } from '../../errors';
import { dataFiles } from '../../data-dir';
import { RetentionBody, RetentionPreview, RetentionPreviewQuery, RetentionSetting, StorageInfo, SystemInfo } from '../../schemas/system';
import { DEFAULT_WORKSPACE_ID, type Principal } from '../../services/auth';
import type { RetentionService } from '../../services/retention';
import { route, type Route } from '../route';

const size = (file: string) => statSync(file, { throwIfNoEntry: false })?.size ?? 0;

/**
 * Storage figures and retention are for the whole data file, so they belong to its owner: the
 * default workspace's keys (another workspace would see, and prune, what is not its own).
 */
function requireOwner(principal: Principal, what: string): void {
  if (principal.workspaceId !== DEFAULT_WORKSPACE_ID) throw new AppError('forbidden', `Only a key of the default workspace can ${what}.`);
}

/** Where the data lives and how big it is, for the UI's Settings page; retention. */
export function systemRoutes(dataDir: string, version: string, retention: RetentionService): Route[] {
  const tag = 'System';
  return [
    route({
      method: 'get', path: '/api/public/v2/system/storage', summary: 'Database size, what holds it, and the retention setting (local owner only)', tag,
      auth: 'key', response: StorageInfo,
      handler: ({ principal }) => {
        requireOwner(principal, 'see the storage figures');
        return retention.storage();
      },
    }),
    route({
      method: 'put', path: '/api/public/v2/system/retention', summary: 'Keep N days and/or at most N bytes of requests and spans (local owner only)', tag,
      auth: 'key', body: RetentionBody, response: RetentionSetting,
      handler: ({ body, principal }) => {
        requireOwner(principal, 'change retention');
        return retention.put(body);
      },
    }),
    route({
      method: 'get', path: '/api/public/v2/system/retention/preview', summary: 'How many requests and spans a retention setting would delete now', tag,
      auth: 'key', query: RetentionPreviewQuery, response: RetentionPreview,
      handler: ({ query, principal }) => {
        requireOwner(principal, 'preview retention');
        return retention.preview(query);
      },
    }),
    route({
      method: 'get', path: '/api/public/v2/system', summary: 'Data folder and database size (local owner only)', tag: 'System', auth: 'key',
      response: SystemInfo,
      handler: ({ principal }) => {
        // A path on the host machine is the owner's business, not another workspace's.
        if (principal.workspaceId !== DEFAULT_WORKSPACE_ID) {
          throw new AppError('forbidden', 'Only a key of the default workspace can see where the data is stored.');
        }
        const files = dataFiles(dataDir);
        return {
          version,
          data_dir: dataDir,
          database_file: files.database,
          database_bytes: size(files.database),
          wal_bytes: size(`${files.database}-wal`),
        };
      },
    }),
  ];
}
