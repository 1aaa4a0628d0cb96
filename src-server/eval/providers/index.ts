import { anthropic } from './anthropic';
import { openai } from './openai';
import type { ProviderClient, ProviderConnection } from './provider';

/** One line per provider client. */
export const providerClients: Record<ProviderConnection['client'], ProviderClient> = { openai, anthropic };
