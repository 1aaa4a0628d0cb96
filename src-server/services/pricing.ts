import { notFound } from '../errors';
import { CACHE_WRITE_1H_PREMIUM, CACHE_WRITE_PREMIUM, PRICE_LIST, type ListedPrice } from '../providers/price-list';
import type { ChatAnswer } from '../providers/provider';
import type { PriceStore, TablePricedRequest } from '../store/prices';
import type { PriceSource } from '../store/requests';
import type { Writer } from '../store/writer';

/** One LLM call's usage. `cached_input_tokens` (cache reads) and `cache_write_tokens` are parts of
 * `input_tokens`, `reasoning_tokens` part of `output_tokens` (OpenAI's and the GenAI conventions';
 * readers of Anthropic's usage, whose `input_tokens` leaves both cache parts out, add them in); each
 * part is priced at its own rate. */
export interface Usage {
  provider: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens?: number | null;
  cache_write_tokens?: number | null;
  /** The part of `cache_write_tokens` written to Anthropic's 1-hour cache, priced at
   * `CACHE_WRITE_1H_PREMIUM` × the input rate; the rest of the writes are 5-minute ones. */
  cache_write_1h_tokens?: number | null;
  reasoning_tokens?: number | null;
  /** A price the caller's client computed and sent: it wins. */
  client_price?: number | null;
  /** A cost the provider's answer reported (e.g. OpenRouter's `usage.cost`): next. */
  provider_cost?: number | null;
}

export interface Quote {
  price: number;
  price_source: PriceSource;
}

export type PriceEntry = ListedPrice & { source: 'built-in' | 'user' };

const key = (provider: string, model: string) => `${provider}\u0000${model}`;
const builtIn = new Map(PRICE_LIST.map((p) => [key(p.provider, p.model), p]));

/** Floating-point noise (0.1 + 0.2) kept out of stored prices; far below a millionth of a cent. */
const round = (usd: number) => Math.round(usd * 1e12) / 1e12;

/** The token parts of a call that have a rate of their own (`TablePricedRequest` has the same names). */
export type PricedParts = Pick<
  Usage,
  'input_tokens' | 'output_tokens' | 'cached_input_tokens' | 'cache_write_tokens' | 'cache_write_1h_tokens' | 'reasoning_tokens'
>;

function cost(rates: ListedPrice, u: PricedParts): number {
  // Parts larger than the whole (a client's inconsistent counts) are held to it, reads first.
  const cached = Math.min(u.cached_input_tokens ?? 0, u.input_tokens);
  const written = Math.min(u.cache_write_tokens ?? 0, u.input_tokens - cached);
  const writtenForAnHour = Math.min(u.cache_write_1h_tokens ?? 0, written);
  const reasoning = Math.min(u.reasoning_tokens ?? 0, u.output_tokens);
  return round(
    ((u.input_tokens - cached - written) * rates.input_per_mtok +
      cached * rates.cached_input_per_mtok +
      (written - writtenForAnHour) * rates.cache_write_per_mtok +
      writtenForAnHour * rates.input_per_mtok * CACHE_WRITE_1H_PREMIUM +
      (u.output_tokens - reasoning) * rates.output_per_mtok +
      reasoning * rates.reasoning_per_mtok) / 1_000_000,
  );
}

/**
 * Prices LLM calls: the client's price, else the provider's reported cost, else the workspace's
 * price table (its own rows over the shipped list), else 0. Changing the table reprices nothing
 * already logged until `recompute` is asked for a range.
 */
export function createPricingService({ store, writer, now }: { store: PriceStore; writer: Writer; now: () => number }) {
  /** The row for a model: the longest model prefix among the provider's rows; a workspace's row
   * wins over the shipped one of the same name. */
  // A provider's candidate rows per workspace: every call a run makes is priced, and the table
  // changes only through `put` and `remove`, which empty this.
  const candidates = new Map<string, ListedPrice[]>();
  const rowsOf = (workspaceId: number, p: string) => {
    const at = `${workspaceId}\u0000${p}`;
    return candidates.get(at) ?? candidates.set(at, [...PRICE_LIST.filter((r) => r.provider === p), ...store.ofProvider(workspaceId, p)]).get(at)!;
  };

  function rateOf(workspaceId: number, provider: string, model: string): ListedPrice | undefined {
    const p = provider.trim().toLowerCase();
    const m = model.trim().toLowerCase();
    let best: ListedPrice | undefined;
    for (const row of rowsOf(workspaceId, p)) {
      if (m.startsWith(row.model) && (!best || row.model.length >= best.model.length)) best = row;
    }
    return best;
  }

  function quote(workspaceId: number, usage: Usage): Quote {
    if (usage.client_price != null) return { price: usage.client_price, price_source: 'client' };
    if (usage.provider_cost != null) return { price: usage.provider_cost, price_source: 'provider' };
    const rates = rateOf(workspaceId, usage.provider, usage.model);
    return rates ? { price: cost(rates, usage), price_source: 'table' } : { price: 0, price_source: 'none' };
  }

  function list(workspaceId: number): PriceEntry[] {
    const own = new Map(store.list(workspaceId).map((p) => [key(p.provider, p.model), p]));
    const entries: PriceEntry[] = [
      ...PRICE_LIST.filter((p) => !own.has(key(p.provider, p.model))).map((p) => ({ ...p, source: 'built-in' as const })),
      ...[...own.values()].map((p) => ({ ...p, source: 'user' as const })),
    ];
    return entries.sort((a, b) => a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model));
  }

  return {
    quote,
    list,

    /** A row without a cache-write rate gets Anthropic's premium over its input rate (price-list.ts). */
    async put(workspaceId: number, price: Omit<ListedPrice, 'cache_write_per_mtok'> & { cache_write_per_mtok?: number }): Promise<PriceEntry> {
      const row: ListedPrice = {
        ...price,
        provider: price.provider.trim().toLowerCase(),
        model: price.model.trim().toLowerCase(),
        cache_write_per_mtok: price.cache_write_per_mtok ?? price.input_per_mtok * CACHE_WRITE_PREMIUM,
      };
      await writer.write(() => {
        store.save(workspaceId, row, now());
        candidates.clear();
      });
      return { ...row, source: 'user' };
    },

    /** Removes a workspace's row; a shipped model returns to its shipped price. */
    async remove(workspaceId: number, provider: string, model: string): Promise<PriceEntry | null> {
      const p = provider.trim().toLowerCase();
      const m = model.trim().toLowerCase();
      const removed = await writer.write(() => {
        candidates.clear();
        return store.remove(workspaceId, p, m);
      });
      const shipped = builtIn.get(key(p, m));
      if (!removed && !shipped) throw notFound('Price');
      return shipped ? { ...shipped, source: 'built-in' } : null;
    },

    /** Reprices the table-priced requests that started in the range with today's table. */
    async recompute(workspaceId: number, range: { start: number; end: number }): Promise<number> {
      const priceOf = (r: TablePricedRequest) => {
        const rates = rateOf(workspaceId, r.provider, r.model);
        return rates ? cost(rates, r) : 0;
      };
      return writer.write(() => store.reprice(workspaceId, range, priceOf));
    },
  };
}

export type PricingService = ReturnType<typeof createPricingService>;

/** A call made through a provider connection: the table row of the connection's name, else of its
 * client (a registered `my-openai` prices `gpt-4o` like `openai`). */
export function quoteCall(quote: PriceQuote, workspaceId: number, connection: { name: string; client: string }, usage: Omit<Usage, 'provider'>): Quote {
  const byName = quote(workspaceId, { ...usage, provider: connection.name });
  return byName.price_source === 'none' && connection.client !== connection.name ? quote(workspaceId, { ...usage, provider: connection.client }) : byName;
}
/** The price seam other services take: `quote` of the pricing service. */
export type PriceQuote = PricingService['quote'];

/** A call's price with the token parts priced at their own rates, kept on its log entry so a
 * recompute prices them again (store/prices.ts). */
export type PricedCall = Quote & Pick<Usage, 'cached_input_tokens' | 'cache_write_tokens' | 'cache_write_1h_tokens' | 'reasoning_tokens'>;

/** A provider's answer priced through `quoteCall`. */
export function priceAnswer(
  quote: PriceQuote,
  workspaceId: number,
  connection: { name: string; client: string },
  model: string,
  answer: Omit<ChatAnswer, 'text'>,
): PricedCall {
  const parts = {
    cached_input_tokens: answer.cachedInputTokens || null,
    cache_write_tokens: answer.cacheWriteTokens || null,
    cache_write_1h_tokens: answer.cacheWrite1hTokens || null,
    reasoning_tokens: answer.reasoningTokens || null,
  };
  return { ...quoteCall(quote, workspaceId, connection, { model, input_tokens: answer.inputTokens, output_tokens: answer.outputTokens, ...parts }), ...parts };
}
