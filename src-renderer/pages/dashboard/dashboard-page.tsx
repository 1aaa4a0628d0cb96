import { useLoad } from '../../api/context';
import type { RequestStats } from '../../api/types';
import { fmtCompact, fmtCost, fmtInt, fmtMs } from '../../components/format';
import { TimeChart } from '../../components/time-chart';
import { navigate, setParams, useLocation } from '../../router';

const RANGES: Record<string, number | null> = { '7d': 7, '30d': 30, '90d': 90, all: null };
const COLORS = { a: '#5b6cf0', b: '#2bb673', c: '#f0a03c', d: '#e0567a' };

const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Every day in [from, to], so days without traffic keep their place on the axis (as gaps). */
function dayRange(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`) && out.length < 400; t += 86400_000) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}

export function DashboardPage() {
  const { params } = useLocation();
  const range = params.get('range') ?? '30d';
  const days = RANGES[range] ?? null;
  // The clock is read once per load: the days asked for and the days on the axis come from the same
  // reading. Read again at each render, a page loaded before midnight and drawn after it (a hover
  // re-renders) shifted its axis a day past the days it had asked for.
  const loaded = useLoad(async (api, signal) => {
    const now = Date.now();
    const today = utcDate(now);
    const from = days === null ? null : utcDate(now - (days - 1) * 86400_000);
    const stats = await api<RequestStats>('/api/public/v2/requests/stats', { signal, query: { start_time: from === null ? undefined : `${from}T00:00:00Z` } });
    return { stats, from, today };
  }, [days]);
  const { error, loading } = loaded;
  const data = loaded.data?.stats;

  const byDay = data?.by_day ?? [];
  const last = byDay[byDay.length - 1]?.day;
  const labels =
    byDay.length === 0 || !loaded.data
      ? []
      : dayRange(loaded.data.from ?? byDay[0].day, last > loaded.data.today ? last : loaded.data.today);
  const index = new Map(byDay.map((d) => [d.day, d]));
  // A day without traffic has no latency (not 0 ms) and no bar: null leaves a gap in every chart.
  const pick = (f: (d: (typeof byDay)[number]) => number) => labels.map((l) => (index.has(l) ? f(index.get(l)!) : null));
  const t = data?.totals;

  return (
    <div className="page">
      <div className="page-head">
        <h1>Dashboard</h1>
        <span className="spacer" />
        <div className="row" role="group" aria-label="Time range">
          {Object.keys(RANGES).map((r) => (
            <button key={r} type="button" className={r === range ? 'primary small' : 'small'} aria-pressed={r === range} onClick={() => setParams({ range: r })}>
              {r === 'all' ? 'All time' : `Last ${r}`}
            </button>
          ))}
        </div>
      </div>
      <div className="page-body stack">
        {error ? <p className="error" role="alert">{error}</p> : null}
        {!loading && t && t.requests === 0 ? (
          <div className="empty">
            <h2>Nothing to chart yet</h2>
            <p>Requests, cost, tokens and latency appear here once your apps log requests.</p>
            <button type="button" className="primary" onClick={() => navigate('/requests')}>
              How to log requests →
            </button>
          </div>
        ) : null}
        {t && t.requests > 0 ? (
          <>
            <div className="cards" aria-label="Totals">
              <Stat label="Requests" value={fmtInt(t.requests)} />
              <Stat label="Errors" value={`${fmtInt(t.errors)} (${((t.errors / t.requests) * 100).toFixed(1)}%)`} />
              <Stat label="Cost" value={fmtCost(t.cost)} />
              <Stat label="Tokens" value={fmtCompact(t.input_tokens + t.output_tokens)} />
              <Stat label="Latency p50" value={fmtMs(t.latency_ms.p50)} />
              <Stat label="Latency p95" value={fmtMs(t.latency_ms.p95)} />
            </div>
            <div className="chart-grid">
              <TimeChart
                title="Requests"
                kind="bars"
                labels={labels}
                format={fmtCompact}
                series={[
                  { name: 'ok', color: COLORS.a, values: pick((d) => d.requests - d.errors) },
                  { name: 'errors', color: COLORS.d, values: pick((d) => d.errors) },
                ]}
              />
              <TimeChart title="Cost" kind="bars" labels={labels} format={fmtCost} series={[{ name: 'cost', color: COLORS.b, values: pick((d) => d.cost) }]} />
              <TimeChart
                title="Tokens"
                kind="bars"
                labels={labels}
                format={fmtCompact}
                series={[
                  { name: 'input', color: COLORS.a, values: pick((d) => d.input_tokens) },
                  { name: 'output', color: COLORS.c, values: pick((d) => d.output_tokens) },
                ]}
              />
              <TimeChart
                title="Latency"
                kind="lines"
                labels={labels}
                format={fmtMs}
                series={[
                  { name: 'p50', color: COLORS.a, values: pick((d) => d.latency_ms.p50) },
                  { name: 'p95', color: COLORS.d, values: pick((d) => d.latency_ms.p95) },
                ]}
              />
            </div>
            <ByModel stats={data!} />
          </>
        ) : null}
      </div>
    </div>
  );
}

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <div className="card stat">
      <div className="label">{label}</div>
      <div className="value">{value}</div>
    </div>
  );
}

function ByModel({ stats }: { stats: RequestStats }) {
  const max = Math.max(...stats.by_model.map((m) => m.requests), 1);
  return (
    <section className="card" aria-label="By model">
      <h3>By model</h3>
      <table className="grid">
        <thead>
          <tr>
            <th>Model</th>
            <th>Provider</th>
            <th style={{ width: '28%' }}>Requests</th>
            <th className="num">Cost</th>
            <th className="num">Tokens</th>
            <th className="num">p50</th>
            <th className="num">p95</th>
            <th className="num">Errors</th>
          </tr>
        </thead>
        <tbody>
          {stats.by_model.map((m) => (
            <tr
              key={`${m.provider}/${m.model}`}
              className="clickable"
              tabIndex={0}
              onClick={() => navigate(`/requests?model=${encodeURIComponent(m.model)}`)}
              onKeyDown={(e) => e.key === 'Enter' && navigate(`/requests?model=${encodeURIComponent(m.model)}`)}
            >
              <td><b>{m.model}</b></td>
              <td className="muted">{m.provider}</td>
              <td>
                <div className="row" style={{ flexWrap: 'nowrap' }}>
                  <div style={{ height: 8, borderRadius: 4, background: '#5b6cf0', width: `${(m.requests / max) * 100}%`, minWidth: 2 }} />
                  <span>{fmtInt(m.requests)}</span>
                </div>
              </td>
              <td className="num">{fmtCost(m.cost)}</td>
              <td className="num">{fmtCompact(m.input_tokens + m.output_tokens)}</td>
              <td className="num">{fmtMs(m.latency_ms.p50)}</td>
              <td className="num">{fmtMs(m.latency_ms.p95)}</td>
              <td className="num">{fmtInt(m.errors)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
