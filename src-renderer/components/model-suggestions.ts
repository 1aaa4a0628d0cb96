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
  const key = stored ? listKey(stored) : null;
  const prices = useLoad((a, signal) => a<PriceList>('/api/public/v2/prices', { signal }), []);
  const [listed, setListed] = useState<{ key: string; models: string[] } | null>(null);
  useEffect(() => {
    if (!stored || !key) return;
    let live = true;
    let models = providerLists.get(key);
    if (!models) {
      models = api<ProviderTest>(`/api/public/v2/providers/${stored.id}/test`, { method: 'POST' }).then((r) => {
        if (!r.ok) throw new Error(r.error);
        return r.models ?? [];
      });
      providerLists.set(key, models);
      // A failed list is asked for again next time rather than remembered.
      models.catch(() => providerLists.delete(key));
    }
    models.then((m) => live && setListed({ key, models: m })).catch(() => undefined);
    return () => {
      live = false;
    };
    // `key` names everything about `stored` that the list depends on.
  }, [api, key]);
  if (stored) {
    const models = listed?.key === key ? listed.models : [];
    return { models, from: models.length ? 'provider' : null };
  }
  const priced = (prices.data?.prices ?? []).filter((p) => p.provider === provider && /embed/i.test(p.model) === embeddings).map((p) => p.model);
  return { models: priced, from: priced.length ? 'prices' : null };
}

/**
 * Each registered provider's model list, asked for once per page load and settings: the list is
 * a call to the provider, and a panel that mounts again (another version, another column) should
 * not repeat it.
 */
const providerLists = new Map<string, Promise<string[]>>();

function listKey(p: Provider): string {
  return JSON.stringify([p.id, p.client, p.base_url, p.has_api_key, p.api_key]);
}

/** The hint under a model field that has suggestions. */
export function suggestionHint({ models, from }: ModelSuggestions, provider: string | undefined): string | null {
  if (from === 'provider') return `${models.length} models from ${provider}`;
  if (from === 'prices') return `${models.length} models from the price table; any name works`;
  return null;
}
