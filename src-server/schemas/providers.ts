import { z } from 'zod';
import { IsoDateTime, Success } from './common';

/** Built-in provider names resolve to the environment's keys; a stored provider may not shadow them. */
export const BUILT_IN_PROVIDERS = ['openai', 'anthropic'] as const;

export const ProviderClient = z.enum(['openai', 'anthropic']);

export const CreateProviderBody = z.object({
  name: z
    .string()
    .min(1)
    .max(255)
    .refine((n) => !(BUILT_IN_PROVIDERS as readonly string[]).includes(n.toLowerCase()), {
      message: "'openai' and 'anthropic' name the built-in providers; choose another name",
    }),
  client: ProviderClient,
  base_url: z
    .url({ protocol: /^https?$/, error: 'Expected an http(s) URL' })
    .max(2048)
    .nullish(),
  api_key: z.string().min(1).max(4096).nullish(),
});
export type CreateProviderBody = z.output<typeof CreateProviderBody>;

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
