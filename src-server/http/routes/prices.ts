import { PriceBody, PriceDeleted, PriceKeyQuery, PriceList, PriceEntry, RecomputeBody, Recomputed } from '../../schemas/prices';
import type { PricingService } from '../../services/pricing';
import { route, type Route } from '../route';

const tag = 'Prices';

export function priceRoutes(pricing: PricingService): Route[] {
  return [
    route({
      method: 'get', path: '/api/public/v2/prices', summary: 'The price table: shipped list prices and this workspace’s own rows', tag,
      auth: 'key',
      response: PriceList,
      handler: ({ principal }) => ({ prices: pricing.list(principal.workspaceId) }),
    }),
    route({
      method: 'put', path: '/api/public/v2/prices', summary: 'Add or replace one price row (USD per million tokens)', tag,
      auth: 'key', body: PriceBody,
      response: PriceEntry,
      handler: ({ body, principal }) => pricing.put(principal.workspaceId, body),
    }),
    route({
      method: 'delete', path: '/api/public/v2/prices', summary: 'Remove a row of this workspace; a shipped model returns to its list price', tag,
      auth: 'key', query: PriceKeyQuery,
      response: PriceDeleted,
      handler: async ({ query, principal }) => ({
        success: true,
        price: await pricing.remove(principal.workspaceId, query.provider, query.model),
      }),
    }),
    route({
      method: 'post', path: '/api/public/v2/prices/recompute', summary: 'Reprice the table-priced requests of a time range with today’s table', tag,
      auth: 'key', body: RecomputeBody,
      response: Recomputed,
      handler: async ({ body, principal }) => ({
        updated: await pricing.recompute(principal.workspaceId, { start: body.start_time, end: body.end_time }),
      }),
    }),
  ];
}
