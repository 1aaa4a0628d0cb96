import type { ListedPrice } from '../providers/price-list';
import type { Db } from './db';
import { utcDay } from './request-stats';

/** A request priced from the table, with what a recompute needs to price it again. */
export interface TablePricedRequest {
  id: number;
  provider: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number | null;
  cache_write_tokens: number | null;
  cache_write_1h_tokens: number | null;
  reasoning_tokens: number | null;
  price: number;
  request_start_time: number;
  trace_id: string | null;
}

/** A workspace's own price rows (provider and model lower case), and repricing of logged requests. */
export function createPriceStore(db: Db) {
  const s = {
    all: db.prepare<[number], ListedPrice>(
      `SELECT provider, model, input_per_mtok, output_per_mtok, cached_input_per_mtok, reasoning_per_mtok, cache_write_per_mtok
       FROM prices WHERE workspace_id = ? ORDER BY provider, model`,
    ),
    ofProvider: db.prepare<[number, string], ListedPrice>(
      `SELECT provider, model, input_per_mtok, output_per_mtok, cached_input_per_mtok, reasoning_per_mtok, cache_write_per_mtok
       FROM prices WHERE workspace_id = ? AND provider = ?`,
    ),
    upsert: db.prepare(
      `INSERT INTO prices (workspace_id, provider, model, input_per_mtok, output_per_mtok, cached_input_per_mtok, reasoning_per_mtok,
         cache_write_per_mtok, updated_at)
       VALUES (@workspace_id, @provider, @model, @input_per_mtok, @output_per_mtok, @cached_input_per_mtok, @reasoning_per_mtok,
         @cache_write_per_mtok, @updated_at)
       ON CONFLICT (workspace_id, provider, model) DO UPDATE SET input_per_mtok = excluded.input_per_mtok,
         output_per_mtok = excluded.output_per_mtok, cached_input_per_mtok = excluded.cached_input_per_mtok,
         reasoning_per_mtok = excluded.reasoning_per_mtok, cache_write_per_mtok = excluded.cache_write_per_mtok,
         updated_at = excluded.updated_at`,
    ),
    remove: db.prepare<[number, string, string]>('DELETE FROM prices WHERE workspace_id = ? AND provider = ? AND model = ?'),
    tablePriced: db.prepare<[number, number, number], TablePricedRequest>(
      `SELECT id, provider, model, input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, cache_write_1h_tokens,
         reasoning_tokens, price,
         request_start_time, trace_id
       FROM requests WHERE workspace_id = ? AND request_start_time >= ? AND request_start_time <= ? AND price_source = 'table'`,
    ),
    setPrice: db.prepare<[number, number]>('UPDATE requests SET price = ? WHERE id = ?'),
    addRollupCost: db.prepare<[number, number, string, string, string]>(
      'UPDATE request_rollups SET cost = cost + ? WHERE workspace_id = ? AND day = ? AND provider = ? AND model = ?',
    ),
    addTracePrice: db.prepare<[number, number, string]>('UPDATE traces SET price = price + ? WHERE workspace_id = ? AND trace_id = ?'),
  };
  return {
    list: (workspaceId: number): ListedPrice[] => s.all.all(workspaceId),
    ofProvider: (workspaceId: number, provider: string): ListedPrice[] => s.ofProvider.all(workspaceId, provider),
    save: (workspaceId: number, price: ListedPrice, at: number) => void s.upsert.run({ workspace_id: workspaceId, ...price, updated_at: at }),
    /** False when the workspace had no such row. */
    remove: (workspaceId: number, provider: string, model: string) => s.remove.run(workspaceId, provider, model).changes > 0,

    /**
     * Gives every table-priced request of the range the price `priceOf` says, keeping the
     * dashboard's rollups and the traces' totals in step; call inside a transaction.
     * Returns how many requests changed price.
     */
    reprice(workspaceId: number, range: { start: number; end: number }, priceOf: (r: TablePricedRequest) => number): number {
      let changed = 0;
      // .all(), not .iterate(): better-sqlite3 refuses writes on a connection while a read is open.
      for (const request of s.tablePriced.all(workspaceId, range.start, range.end)) {
        const price = priceOf(request);
        if (price === request.price) continue;
        const delta = price - request.price;
        s.setPrice.run(price, request.id);
        s.addRollupCost.run(delta, workspaceId, utcDay(request.request_start_time), request.provider, request.model);
        if (request.trace_id !== null) s.addTracePrice.run(delta, workspaceId, request.trace_id);
        changed++;
      }
      return changed;
    },
  };
}

export type PriceStore = ReturnType<typeof createPriceStore>;
