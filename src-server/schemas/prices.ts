import { z } from 'zod';
import { Timestamp } from './common';

/** Where a request's price came from: the client's body, the provider's answer, the price table, or nowhere (0). */
export const PriceSource = z.enum(['client', 'provider', 'table', 'none']);

/** USD per million tokens; a million dollars per million tokens is past any real price. */
const Rate = z.number().min(0).max(1_000_000);
const Name = z.string().trim().min(1).max(255);

/** `PUT /api/public/v2/prices`: one row, added or replacing the one of the same provider and model. */
export const PriceBody = z.object({
  provider: Name,
  model: Name,
  input_per_mtok: Rate,
  output_per_mtok: Rate,
  cached_input_per_mtok: Rate.default(0),
  reasoning_per_mtok: Rate.default(0),
  cache_write_per_mtok: Rate.optional().meta({
    description: 'Prompt-cache writes (Anthropic cache_creation_input_tokens); default 1.25 × input_per_mtok, Anthropic’s 5-minute write price. 1-hour writes (cache_creation.ephemeral_1h_input_tokens) are priced at 2 × input_per_mtok.',
  }),
});

export const PriceKeyQuery = z.object({ provider: Name, model: Name });

/** `POST /api/public/v2/prices/recompute`: both ends included. */
export const RecomputeBody = z
  .object({ start_time: Timestamp, end_time: Timestamp })
  .refine((r) => r.end_time >= r.start_time, { message: 'end_time is before start_time', path: ['end_time'] });

// Responses

export const PriceEntry = PriceBody.required().extend({ source: z.enum(['built-in', 'user']) });
export const PriceList = z.object({ prices: z.array(PriceEntry) });
export const PriceDeleted = z.object({ success: z.literal(true), price: PriceEntry.nullable() });
export const Recomputed = z.object({ updated: z.number().int() });
