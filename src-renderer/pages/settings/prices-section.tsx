import { useState } from 'react';
import { errorText } from '../../api/client';
import { useApi, useLoad } from '../../api/context';
import type { PriceEntry, PriceList } from '../../api/types';
import { countOf } from '../../components/format';

const RATES = ['input_per_mtok', 'cached_input_per_mtok', 'cache_write_per_mtok', 'output_per_mtok', 'reasoning_per_mtok'] as const;
type Rate = (typeof RATES)[number];
const RATE_LABELS: Record<Rate, string> = {
  input_per_mtok: 'Input',
  cached_input_per_mtok: 'Cached input',
  cache_write_per_mtok: 'Cache write',
  output_per_mtok: 'Output',
  reasoning_per_mtok: 'Reasoning',
};
type Draft = { provider: string; model: string } & Record<Rate, string>;
// A new row's cache-write rate left empty is the server's default, 1.25 × input (Anthropic's write price).
const blank: Draft = { provider: '', model: '', input_per_mtok: '0', cached_input_per_mtok: '0', cache_write_per_mtok: '', output_per_mtok: '0', reasoning_per_mtok: '0' };
const draftOf = (p: PriceEntry): Draft => ({ provider: p.provider, model: p.model, ...Object.fromEntries(RATES.map((r) => [r, String(p[r])])) } as Draft);
const keyOf = (p: { provider: string; model: string }) => `${p.provider}/${p.model}`;
const usd = (n: number) => `$${n.toLocaleString(undefined, { maximumFractionDigits: 4 })}`;

/**
 * Settings → Prices: the price table that prices tracked, traced and evaluation calls when the
 * client sent no price (`/api/public/v2/prices`). Shipped rows can be changed and reset; custom and
 * local models added (0 by default). Past requests keep their price until a range is recomputed.
 */
export function PricesSection() {
  const api = useApi();
  const list = useLoad((a, signal) => a<PriceList>('/api/public/v2/prices', { signal }), []);
  const [filter, setFilter] = useState('');
  const [editing, setEditing] = useState<string | null>(null);
  const [draft, setDraft] = useState<Draft>(blank);
  const [adding, setAdding] = useState<Draft>(blank);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [range, setRange] = useState({ from: '', to: '' });

  const run = async (work: () => Promise<string>) => {
    setError(null);
    setStatus(null);
    try {
      setStatus(await work());
      list.reload();
      return true;
    } catch (e) {
      setError(errorText(e));
      return false;
    }
  };
  const put = (d: Draft) =>
    api<PriceEntry>('/api/public/v2/prices', {
      method: 'PUT',
      body: {
        provider: d.provider,
        model: d.model,
        ...Object.fromEntries(RATES.map((r) => [r, d[r].trim() === '' ? (r === 'cache_write_per_mtok' ? undefined : 0) : Number(d[r])])),
      },
    });
  const remove = (p: PriceEntry) =>
    run(async () => {
      const answer = await api<{ price: PriceEntry | null }>('/api/public/v2/prices', { method: 'DELETE', query: { provider: p.provider, model: p.model } });
      return `${keyOf(p)} ${answer.price ? 'is back to its list price' : 'removed'}.`;
    });
  const recompute = () =>
    run(async () => {
      const answer = await api<{ updated: number }>('/api/public/v2/prices/recompute', {
        method: 'POST',
        body: { start_time: new Date(range.from).toISOString(), end_time: new Date(`${range.to}T23:59:59.999`).toISOString() },
      });
      return `${answer.updated.toLocaleString()} table-priced request${answer.updated === 1 ? '' : 's'} repriced.`;
    });

  const prices = list.data?.prices ?? [];
  const needle = filter.trim().toLowerCase();
  const shown = prices.filter((p) => !needle || keyOf(p).includes(needle));

  return (
    <section className="card stack" aria-label="Prices">
      <h2>Prices</h2>
      <p className="muted" style={{ margin: 0 }}>
        USD per million tokens. Tracked requests, traced LLM calls and evaluation calls without a price of their own are priced from this
        table (a price the client sends or the provider reports wins). Models match the longest listed prefix, so dated snapshots price like
        their family. Changes apply to new requests; recompute a range to reprice past ones.
      </p>
      <div className="row">
        <input aria-label="Filter prices" placeholder="filter: provider or model" value={filter} onChange={(e) => setFilter(e.target.value)} style={{ width: 220 }} />
        <span className="muted">
          {shown.length} of {countOf(prices.length, 'row')}
        </span>
      </div>
      <div style={{ maxHeight: 360, overflow: 'auto' }}>
        <table className="grid" aria-label="Price table">
          <thead>
            <tr>
              <th>Provider</th>
              <th>Model</th>
              {RATES.map((r) => (
                <th key={r} className="num">
                  {RATE_LABELS[r]}
                </th>
              ))}
              <th>Source</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {shown.map((p) =>
              editing === keyOf(p) ? (
                <tr key={keyOf(p)}>
                  <td>{p.provider}</td>
                  <td className="mono">{p.model}</td>
                  {RATES.map((r) => (
                    <td key={r}>
                      <input aria-label={`${RATE_LABELS[r]} per million`} type="number" min={0} step="any" value={draft[r]} onChange={(e) => setDraft({ ...draft, [r]: e.target.value })} style={{ width: 90 }} />
                    </td>
                  ))}
                  <td />
                  <td className="row" style={{ flexWrap: 'nowrap' }}>
                    <button
                      type="button"
                      className="primary"
                      onClick={() => void run(async () => (await put(draft), `${keyOf(p)} saved.`)).then((ok) => ok && setEditing(null))}
                    >
                      Save
                    </button>
                    <button type="button" className="ghost" onClick={() => setEditing(null)}>
                      Cancel
                    </button>
                  </td>
                </tr>
              ) : (
                <tr key={keyOf(p)}>
                  <td>{p.provider}</td>
                  <td className="mono">{p.model}</td>
                  {RATES.map((r) => (
                    <td key={r} className="num">
                      {usd(p[r])}
                    </td>
                  ))}
                  <td>
                    <span className={`badge ${p.source === 'user' ? 'accent' : ''}`}>{p.source}</span>
                  </td>
                  <td className="row" style={{ flexWrap: 'nowrap' }}>
                    <button
                      type="button"
                      className="ghost small"
                      aria-label={`Edit ${keyOf(p)}`}
                      onClick={() => {
                        setEditing(keyOf(p));
                        setDraft(draftOf(p));
                      }}
                    >
                      Edit
                    </button>
                    {p.source === 'user' ? (
                      <button
                        type="button"
                        className="ghost small"
                        aria-label={`Delete ${keyOf(p)}`}
                        title="Deletes your row: a shipped model goes back to its list price, a custom model leaves the table"
                        onClick={() => void remove(p)}
                      >
                        Delete
                      </button>
                    ) : null}
                  </td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      </div>
      <form
        className="row"
        aria-label="Add a model price"
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => (await put(adding), `${adding.provider}/${adding.model} added.`)).then((ok) => ok && setAdding(blank));
        }}
      >
        <input aria-label="New price provider" placeholder="provider (e.g. ollama)" value={adding.provider} onChange={(e) => setAdding({ ...adding, provider: e.target.value })} style={{ width: 150 }} required />
        <input aria-label="New price model" placeholder="model (e.g. llama3.1)" value={adding.model} onChange={(e) => setAdding({ ...adding, model: e.target.value })} style={{ width: 170 }} required />
        {RATES.map((r) => (
          <label key={r} style={{ fontSize: 12 }}>
            {RATE_LABELS[r]}
            <input
              aria-label={`New ${RATE_LABELS[r]} per million`}
              type="number"
              min={0}
              step="any"
              placeholder={r === 'cache_write_per_mtok' ? '1.25 × input' : undefined}
              value={adding[r]}
              onChange={(e) => setAdding({ ...adding, [r]: e.target.value })}
              style={{ width: 80 }}
            />
          </label>
        ))}
        <button type="submit">Add model</button>
      </form>
      <form
        className="row"
        aria-label="Recompute prices"
        onSubmit={(e) => {
          e.preventDefault();
          void recompute();
        }}
      >
        <span className="muted">Reprice table-priced requests from</span>
        <input aria-label="Recompute from" type="date" required value={range.from} onChange={(e) => setRange({ ...range, from: e.target.value })} />
        <span className="muted">to</span>
        <input aria-label="Recompute to" type="date" required value={range.to} onChange={(e) => setRange({ ...range, to: e.target.value })} />
        <button type="submit">Recompute</button>
      </form>
      {status ? <p className="badge ok" role="status" style={{ alignSelf: 'flex-start' }}>{status}</p> : null}
      {error ? <p className="error" role="alert">{error}</p> : null}
      {list.error ? <p className="muted">{list.error}</p> : null}
    </section>
  );
}
