import { IdParam, RequestItem, RequestListQuery, RequestPage, RequestStats, RequestStatsQuery } from '../../schemas/explorer';
import type { RequestService } from '../../services/requests';
import { route, type Route } from '../route';

export function requestRoutes(requests: RequestService): Route[] {
  return [
    route({
      method: 'get', path: '/api/public/v2/requests', summary: 'Search the request log, newest first (keyset pages)', tag: 'Requests',
      auth: 'key', query: RequestListQuery,
      response: RequestPage,
      handler: ({ query, principal }) => requests.list(principal.workspaceId, query),
    }),
    // Registered before /:id so "stats" is not read as an id.
    route({
      method: 'get', path: '/api/public/v2/requests/stats', summary: 'Counts, cost, tokens and latency per day and per model', tag: 'Requests',
      auth: 'key', query: RequestStatsQuery,
      response: RequestStats,
      handler: ({ query, principal }) => requests.stats(principal.workspaceId, query),
    }),
    route({
      method: 'get', path: '/api/public/v2/requests/:id', summary: 'One logged request with scores, metadata and prompt link', tag: 'Requests',
      auth: 'key', params: IdParam,
      response: RequestItem,
      handler: ({ params, principal }) => requests.get(principal.workspaceId, params.id),
    }),
  ];
}
