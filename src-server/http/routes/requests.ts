import {
  Deleted, DeleteRequestsBody, IdParam, RequestExportQuery, RequestItem, RequestListQuery, RequestPage, RequestStats, RequestStatsQuery,
} from '../../schemas/explorer';
import { ReviewBody } from '../../schemas/review';
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
      method: 'get', path: '/api/public/v2/requests/export', summary: 'Download every request matching the filters as JSONL or CSV (streamed)', tag: 'Requests',
      auth: 'key', query: RequestExportQuery,
      response: {
        mediaType: 'application/x-ndjson',
        description: 'One record per line as GET /api/public/v2/requests/{id} returns it; with `format=csv`, text/csv with the columns of API.md §7',
      },
      handler: async ({ query, principal, ctx }) => {
        const { fileName, stream } = await requests.export(principal.workspaceId, query);
        ctx.type = query.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8';
        ctx.attachment(fileName);
        return stream;
      },
    }),
    route({
      method: 'post', path: '/api/public/v2/requests/delete', summary: 'Delete requests by ids or by the explorer filters', tag: 'Requests',
      auth: 'key', body: DeleteRequestsBody,
      response: Deleted,
      handler: ({ body, principal }) => requests.deleteMany(principal.workspaceId, body),
    }),
    route({
      method: 'delete', path: '/api/public/v2/requests/:id', summary: 'Delete one request and everything that belongs to it', tag: 'Requests',
      auth: 'key', params: IdParam,
      response: Deleted,
      handler: ({ params, principal }) => requests.delete(principal.workspaceId, params.id),
    }),
    route({
      method: 'get', path: '/api/public/v2/requests/:id', summary: 'One logged request with scores, metadata and prompt link', tag: 'Requests',
      auth: 'key', params: IdParam,
      response: RequestItem,
      handler: ({ params, principal }) => requests.get(principal.workspaceId, params.id),
    }),
    route({
      method: 'patch', path: '/api/public/v2/requests/:id', summary: 'Review a request: set its note, add, change or remove named scores', tag: 'Requests',
      auth: 'key', params: IdParam, body: ReviewBody,
      response: RequestItem,
      handler: ({ params, body, principal }) => requests.review(principal.workspaceId, params.id, body),
    }),
  ];
}
