import { statSync } from 'node:fs';
import { AppError } from '../../errors';
import { dataFiles } from '../../data-dir';
import { SystemInfo } from '../../schemas/system';
import { DEFAULT_WORKSPACE_ID } from '../../services/auth';
import { route, type Route } from '../route';

const size = (file: string) => statSync(file, { throwIfNoEntry: false })?.size ?? 0;

/** Where the data lives and how big it is, for the UI's Settings page. */
export function systemRoutes(dataDir: string, version: string): Route[] {
  return [
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
