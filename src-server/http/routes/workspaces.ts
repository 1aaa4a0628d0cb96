import { IdParam } from '../../schemas/explorer';
import { NoContent } from '../../schemas/common';
import { ApiKeyList, CreateApiKeyBody, CreatedApiKey, CreatedWorkspace, CreateWorkspaceBody, Session } from '../../schemas/workspaces';
import type { AuthService } from '../../services/auth';
import { isoDate as iso } from '../../iso-date';
import { route, type Route } from '../route';

export function workspaceRoutes(auth: AuthService): Route[] {
  return [
    route({
      method: 'post', path: '/api/public/v2/workspaces', summary: 'Create a workspace and its first key (owner only)', tag: 'Workspaces',
      auth: 'key', body: CreateWorkspaceBody, status: 201,
      response: CreatedWorkspace,
      handler: ({ body, principal }) => auth.createWorkspace(principal, body.name),
    }),
    route({
      method: 'post', path: '/api/public/v2/api-keys', summary: "Create an API key in the caller's workspace (shown once)", tag: 'Workspaces',
      auth: 'key', body: CreateApiKeyBody, status: 201,
      response: CreatedApiKey,
      handler: ({ body, principal }) => {
        const { key, apiKey } = auth.createKey(principal, body.name);
        return { api_key: { ...apiKey, created_at: iso(apiKey.created_at) }, key };
      },
    }),
    route({
      method: 'get', path: '/api/public/v2/api-keys', summary: 'List active API keys (prefix only)', tag: 'Workspaces', auth: 'key',
      response: ApiKeyList,
      handler: ({ principal }) => ({
        api_keys: auth.listKeys(principal).map((k) => ({ ...k, created_at: iso(k.created_at), current: k.id === principal.keyId })),
      }),
    }),
    route({
      method: 'delete', path: '/api/public/v2/api-keys/:id', summary: 'Revoke an API key', tag: 'Workspaces', auth: 'key',
      params: IdParam, status: 204,
      response: NoContent,
      handler: ({ params, principal }) => auth.revokeKey(principal, params.id),
    }),
    route({
      method: 'post', path: '/api/public/v2/session', summary: 'Exchange an API key for the Bearer token the desktop UI uses', tag: 'Workspaces',
      auth: 'key',
      response: Session,
      handler: ({ principal }) => auth.openSession(principal),
    }),
  ];
}
