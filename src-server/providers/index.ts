import { z } from 'zod';
import { anthropic } from './anthropic';
import { openai } from './openai';
import type { Json, KwargsInput } from './kwargs-shape';
import type { ProviderModule } from './provider';

/**
 * One line per provider. Every entry is also a built-in provider of that name, reached with its
 * environment variables; adding one (Gemini, a native Ollama client) is its file plus a line here.
 */
export const providerModules = { openai, anthropic } satisfies Record<string, ProviderModule>;

export type ProviderId = keyof typeof providerModules;

export const PROVIDER_IDS = Object.keys(providerModules) as [ProviderId, ...ProviderId[]];

/** A stored provider's `client`. */
export const ProviderIdSchema = z.enum(PROVIDER_IDS);

export const isProviderId = (name: string): name is ProviderId => Object.hasOwn(providerModules, name);

export function providerModule(id: ProviderId): ProviderModule {
  return providerModules[id];
}

/** `metadata.model.api_type` when none is given: the provider's first API. */
export const defaultApiType = (module: ProviderModule) => Object.keys(module.apiTypes)[0];

/** What a name that is neither built in nor stored is taken to speak: the API most servers copy. */
export const FALLBACK_PROVIDER: ProviderId = 'openai';

/** Ready-to-send kwargs for the client's SDK call (`chat.completions.create`, `messages.create`...). */
export function buildLlmKwargs(client: ProviderId, apiType: string | undefined, input: KwargsInput): Json {
  const module: ProviderModule = providerModules[client];
  const build = (apiType !== undefined && Object.hasOwn(module.apiTypes, apiType) ? module.apiTypes[apiType] : undefined) ?? module.apiTypes[defaultApiType(module)];
  return build(input);
}
