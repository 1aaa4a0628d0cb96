/**
 * USD per million tokens (input, output) for models a run commonly calls, so a report's cost adds
 * up without a network lookup. Unknown models (local servers, new names) cost 0: better an
 * honest zero than a guess. Longest matching prefix wins, so dated snapshots price like their family.
 */
const PRICES: Record<string, [number, number]> = {
  'gpt-4o-mini': [0.15, 0.6],
  'gpt-4o': [2.5, 10],
  'gpt-4.1-nano': [0.1, 0.4],
  'gpt-4.1-mini': [0.4, 1.6],
  'gpt-4.1': [2, 8],
  'gpt-5-nano': [0.05, 0.4],
  'gpt-5-mini': [0.25, 2],
  'gpt-5': [1.25, 10],
  'o4-mini': [1.1, 4.4],
  'o3': [2, 8],
  'gpt-3.5-turbo': [0.5, 1.5],
  'text-embedding-3-small': [0.02, 0],
  'text-embedding-3-large': [0.13, 0],
  'claude-3-5-haiku': [0.8, 4],
  'claude-haiku-4-5': [1, 5],
  'claude-3-5-sonnet': [3, 15],
  'claude-3-7-sonnet': [3, 15],
  'claude-sonnet-4': [3, 15],
  'claude-opus-4': [15, 75],
};

export function priceOf(model: string, inputTokens: number, outputTokens: number): number {
  let best: [number, number] | undefined;
  let bestLength = 0;
  for (const [prefix, price] of Object.entries(PRICES)) {
    if (model.startsWith(prefix) && prefix.length > bestLength) {
      best = price;
      bestLength = prefix.length;
    }
  }
  if (!best) return 0;
  return (inputTokens * best[0] + outputTokens * best[1]) / 1_000_000;
}
