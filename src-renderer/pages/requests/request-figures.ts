import { fmtCost, fmtInt } from '../../components/format';

/**
 * What the table and the detail show for tokens and price: "—" when the figure was never given,
 * so an unknown cost does not read as free (docs/decisions.md, "Requests table").
 */
interface Figures {
  input_tokens: number | null;
  output_tokens: number | null;
  price: number;
  /** Where the price came from, once records carry it (API.md §7); older servers omit it. */
  price_source?: string;
}

/** Every real model call reads at least one token, so 0 in and 0 out means "not reported". */
export const tokensMissing = (r: Figures) => !r.input_tokens && !r.output_tokens;

export function priceMissing(r: Figures): boolean {
  if (r.price !== 0) return false;
  return r.price_source === undefined ? tokensMissing(r) : r.price_source === 'none';
}

export const totalTokensText = (r: Figures) => (tokensMissing(r) ? '—' : fmtInt((r.input_tokens ?? 0) + (r.output_tokens ?? 0)));
export const priceText = (r: Figures) => (priceMissing(r) ? '—' : fmtCost(r.price));
