import { IdParam } from '../../schemas/explorer';
import { CreateFolderBody, FolderList, FolderListQuery, FolderResponse, RenameFolderBody } from '../../schemas/folders';
import type { FolderService } from '../../services/folders';
import { route, type Route } from '../route';

export function folderRoutes(folders: FolderService): Route[] {
  return [
    route({
      method: 'post', path: '/api/public/v2/folders', summary: 'Create a folder (at the root or inside parent_id)', tag: 'Folders',
      auth: 'key', body: CreateFolderBody, status: 201,
      response: FolderResponse,
      handler: ({ body, principal }) => folders.create(principal.workspaceId, body),
    }),
    route({
      method: 'get', path: '/api/public/v2/folders', summary: 'List folders (all, or the children of parent_id)', tag: 'Folders',
      auth: 'key', query: FolderListQuery,
      response: FolderList,
      handler: ({ query, principal }) => folders.list(principal.workspaceId, query),
    }),
    route({
      method: 'get', path: '/api/public/v2/folders/:id', summary: 'One folder', tag: 'Folders',
      auth: 'key', params: IdParam,
      response: FolderResponse,
      handler: ({ params, principal }) => folders.get(principal.workspaceId, params.id),
    }),
    route({
      method: 'patch', path: '/api/public/v2/folders/:id', summary: 'Rename a folder (409 when a sibling has the name)', tag: 'Folders',
      auth: 'key', params: IdParam, body: RenameFolderBody,
      response: FolderResponse,
      handler: ({ params, body, principal }) => folders.rename(principal.workspaceId, params.id, body),
    }),
  ];
}
