import { z } from 'zod';
import { isProviderId, PROVIDER_IDS, ProviderIdSchema } from '../providers/index';
import { IsoDateTime, Success } from './common';

/** A provider client id: the registry's ids. */
export const ProviderClient = ProviderIdSchema;

const ProviderName = z
  .string()
  .min(1)
  .max(255)
  // Built-in provider names resolve to the environment's keys; a stored provider may not shadow them.
  .refine((n) => !isProviderId(n.toLowerCase()), { message: `${PROVIDER_IDS.map((id) => `'${id}'`).join(', ')} name the built-in providers; choose another name` });

const BaseUrl = z.url({ protocol: /^https?$/, error: 'Expected an http(s) URL' }).max(2048);
const ApiKey = z.string().min(1).max(4096);

export const CreateProviderBody = z.object({
  name: ProviderName,
  client: ProviderIdSchema,
  base_url: BaseUrl.nullish(),
  api_key: ApiKey.nullish(),
});
export type CreateProviderBody = z.output<typeof CreateProviderBody>;

/** `PATCH /api/public/v2/providers/{id}`: only the keys given change; `null` clears a base URL or key. */
export const PatchProviderBody = z.object({
  name: ProviderName.optional(),
  client: ProviderIdSchema.optional(),
  base_url: BaseUrl.nullable().optional(),
  api_key: ApiKey.nullable().optional(),
});
export type PatchProviderBody = z.output<typeof PatchProviderBody>;

export const ProviderTestAnswer = z.object({
  ok: z.boolean(),
  latency_ms: z.number().int().min(0),
  models: z.array(z.string()).optional(),
  error: z.string().optional(),
});
// Responses

/** A stored provider; `api_key` is masked (enough to recognise, never to use). */
export const Provider = z.object({
  id: z.number().int(),
  name: z.string(),
  client: ProviderClient,
  base_url: z.string().nullable(),
  api_key: z.string().nullable(),
  has_api_key: z.boolean(),
  created_at: IsoDateTime,
});
export const ProviderResponse = z.object({ success: Success, provider: Provider });
export const ProviderList = z.object({ items: z.array(Provider) });

/** `GET /api/public/v2/provider-clients`: the registry's clients, for the UI's picker. */
export const ProviderClientList = z.object({
  items: z.array(z.object({
    id: ProviderClient,
    display_name: z.string(),
    default_base_url: z.string(),
    api_key_env: z.string().nullable(),
    base_url_env: z.string().nullable(),
  })),
});
