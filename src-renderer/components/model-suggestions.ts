import { useEffect, useState } from 'react';
import { useApi, useLoad } from '../api/context';
import type { PriceList, Provider, ProviderTest } from '../api/types';

export interface ModelSuggestions {
  models: string[];
  /** Where they come from: a registered provider's own list, or the price table for a built-in. */
  from: 'provider' | 'prices' | null;
}

/**
 * Model names to suggest for a provider: a registered provider's list (its connection test), else
 * the models this workspace's price table (Settings → Prices) has for a built-in of that name,
 * without a call to the provider. Embedding models only where `embeddings`, and only there.
 */
export function useModelSuggestions(provider: string | undefined, registered: Provider[] | undefined, embeddings = false): ModelSuggestions {
  const api = useApi();
  const stored = provider ? registered?.find((p) => p.name === provider) : undefined;
  const prices = useLoad((a, signal) => a<PriceList>('/api/public/v2/prices', { signal }), []);
  const [listed, setListed] = useState<string[]>([]);
  useEffect(() => {
    setListed([]);
    if (!stored) return;
    let live = true;
    api<ProviderTest>(`/api/public/v2/providers/${stored.id}/test`, { method: 'POST' })
      .then((r) => live && setListed(r.models ?? []))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [api, stored]);
  if (stored) return { models: listed, from: listed.length ? 'provider' : null };
  const priced = (prices.data?.prices ?? []).filter((p) => p.provider === provider && /embed/i.test(p.model) === embeddings).map((p) => p.model);
  return { models: priced, from: priced.length ? 'prices' : null };
}

/** The hint under a model field that has suggestions. */
export function suggestionHint({ models, from }: ModelSuggestions, provider: string | undefined): string | null {
  if (from === 'provider') return `${models.length} models from ${provider}`;
  if (from === 'prices') return `${models.length} models from the price table; any name works`;
  return null;
}
