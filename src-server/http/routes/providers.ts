import { z } from 'zod';
import { providerModules } from '../../providers/index';
import { NoContent } from '../../schemas/common';
import { CreateProviderBody, PatchProviderBody, ProviderClientList, ProviderList, ProviderResponse, ProviderTestAnswer } from '../../schemas/providers';
import type { ProviderService } from '../../services/providers';
import { route, type Route } from '../route';

const IdParam = z.object({ id: z.coerce.number().pipe(z.number().int().min(1)) });
const tag = 'Providers';

export function providerRoutes(providers: ProviderService): Route[] {
  // What the UI's client picker offers, straight from the registry.
  const clients = Object.values(providerModules).map((m) => ({
    id: m.id, display_name: m.displayName, default_base_url: m.defaultBaseUrl, api_key_env: m.env.apiKey, base_url_env: m.env.baseUrl,
  }));
  return [
    route({
      method: 'get', path: '/api/public/v2/provider-clients', summary: 'The provider clients this server speaks, and the built-in providers of the same names', tag,
      auth: 'key',
      response: ProviderClientList,
      handler: () => ({ items: clients }),
    }),
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
      method: 'patch', path: '/api/public/v2/providers/:id', summary: 'Edit a provider: name, client, base URL or key (null clears)', tag,
      auth: 'key', params: IdParam, body: PatchProviderBody,
      response: ProviderResponse,
      handler: ({ params, body, principal }) => providers.update(principal.workspaceId, params.id, body),
    }),
    route({
      method: 'post', path: '/api/public/v2/providers/:id/test', summary: "Test a provider's connection by listing its models", tag,
      auth: 'key', params: IdParam,
      response: ProviderTestAnswer,
      handler: ({ params, principal, ctx }) => {
        // A user who leaves the page stops the probe.
        const gone = new AbortController();
        ctx.res.once('close', () => gone.abort());
        return providers.test(principal.workspaceId, params.id, gone.signal);
      },
    }),
    route({
      method: 'delete', path: '/api/public/v2/providers/:id', summary: 'Delete a provider', tag,
      auth: 'key', params: IdParam, status: 204,
      response: NoContent,
      handler: ({ params, principal }) => providers.remove(principal.workspaceId, params.id),
    }),
  ];
}
