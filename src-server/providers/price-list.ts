/**
 * The shipped price table: USD per million tokens, as the providers' public list prices stood on
 * 2025-11-01 (https://openai.com/api/pricing, https://platform.openai.com/docs/pricing,
 * https://www.anthropic.com/pricing, https://docs.anthropic.com/en/docs/about-claude/pricing),
 * standard tier, no batch discount. Reasoning and extended-thinking tokens are billed as output
 * tokens, so their rate is the output rate; `cached_input` is OpenAI's cached input and
 * Anthropic's cache read. `cache_write` is Anthropic's 5-minute cache write, 1.25× the input rate
 * for every Claude model; OpenAI bills no write premium (and reports no writes), so its rows carry
 * the input rate. A model name matches the row whose model is its longest prefix, so
 * dated snapshots (`gpt-4o-2024-08-06`, `claude-sonnet-4-20250514`) price like their family.
 * Each workspace can override a row or add its own in Settings → Prices (store/prices.ts).
 */
export interface ListedPrice {
  provider: string;
  model: string;
  input_per_mtok: number;
  output_per_mtok: number;
  cached_input_per_mtok: number;
  reasoning_per_mtok: number;
  cache_write_per_mtok: number;
}

/** Anthropic's 5-minute prompt-cache write over its input rate; also the rate a row saved without
 * one gets (schemas/prices.ts), since a write priced as plain input is the defect it replaces. */
export const CACHE_WRITE_PREMIUM = 1.25;

/** Anthropic's 1-hour prompt-cache write over the input rate, the same for every Claude model, so it
 * is derived from a row's input rate rather than kept as a rate of its own (docs/decisions.md,
 * "1-hour cache writes"). */
export const CACHE_WRITE_1H_PREMIUM = 2;

/** [provider, model, input, cached input, output]; reasoning = output, cache write as above. */
const ROWS: Array<[string, string, number, number, number]> = [
  ['openai', 'gpt-5', 1.25, 0.125, 10],
  ['openai', 'gpt-5-mini', 0.25, 0.025, 2],
  ['openai', 'gpt-5-nano', 0.05, 0.005, 0.4],
  ['openai', 'gpt-4.1', 2, 0.5, 8],
  ['openai', 'gpt-4.1-mini', 0.4, 0.1, 1.6],
  ['openai', 'gpt-4.1-nano', 0.1, 0.025, 0.4],
  ['openai', 'gpt-4o', 2.5, 1.25, 10],
  ['openai', 'gpt-4o-mini', 0.15, 0.075, 0.6],
  ['openai', 'o1', 15, 7.5, 60],
  ['openai', 'o3', 2, 0.5, 8],
  ['openai', 'o3-mini', 1.1, 0.55, 4.4],
  ['openai', 'o3-pro', 20, 20, 80],
  ['openai', 'o4-mini', 1.1, 0.275, 4.4],
  ['openai', 'gpt-4-turbo', 10, 10, 30],
  ['openai', 'gpt-3.5-turbo', 0.5, 0.5, 1.5],
  ['openai', 'text-embedding-3-small', 0.02, 0.02, 0],
  ['openai', 'text-embedding-3-large', 0.13, 0.13, 0],
  ['anthropic', 'claude-opus-4-5', 5, 0.5, 25],
  ['anthropic', 'claude-opus-4-1', 15, 1.5, 75],
  ['anthropic', 'claude-opus-4', 15, 1.5, 75],
  ['anthropic', 'claude-sonnet-4-5', 3, 0.3, 15],
  ['anthropic', 'claude-sonnet-4', 3, 0.3, 15],
  ['anthropic', 'claude-haiku-4-5', 1, 0.1, 5],
  ['anthropic', 'claude-3-7-sonnet', 3, 0.3, 15],
  ['anthropic', 'claude-3-5-sonnet', 3, 0.3, 15],
  ['anthropic', 'claude-3-5-haiku', 0.8, 0.08, 4],
  ['anthropic', 'claude-3-opus', 15, 1.5, 75],
  ['anthropic', 'claude-3-haiku', 0.25, 0.03, 1.25],
];

export const PRICE_LIST: readonly ListedPrice[] = ROWS.map(([provider, model, input, cached, output]) => ({
  provider,
  model,
  input_per_mtok: input,
  output_per_mtok: output,
  cached_input_per_mtok: cached,
  reasoning_per_mtok: output,
  cache_write_per_mtok: provider === 'anthropic' ? input * CACHE_WRITE_PREMIUM : input,
}));
