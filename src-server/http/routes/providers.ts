import { z } from 'zod';
import { NoContent } from '../../schemas/common';
import { CreateProviderBody, ProviderList, ProviderResponse } from '../../schemas/providers';
import type { ProviderService } from '../../services/providers';
import { route, type Route } from '../route';

const IdParam = z.object({ id: z.coerce.number().pipe(z.number().int().min(1)) });
const tag = 'Providers';

export function providerRoutes(providers: ProviderService): Route[] {
  return [
    route({
      method: 'post', path: '/api/public/v2/providers', summary: 'Add an LLM provider (OpenAI-compatible or Anthropic)', tag,
      auth: 'key', body: CreateProviderBody, status: 201,
      response: ProviderResponse,
      handler: ({ body, principal }) => providers.create(principal.workspaceId, body),
    }),
    route({
      method: 'get', path: '/api/public/v2/providers', summary: 'List providers (API keys masked)', tag,
      auth: 'key',
      response: ProviderList,
      handler: ({ principal }) => providers.list(principal.workspaceId),
    }),
    route({
      method: 'delete', path: '/api/public/v2/providers/:id', summary: 'Delete a provider', tag,
      auth: 'key', params: IdParam, status: 204,
      response: NoContent,
      handler: ({ params, principal }) => providers.remove(principal.workspaceId, params.id),
    }),
  ];
}
