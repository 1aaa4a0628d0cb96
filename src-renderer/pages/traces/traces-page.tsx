import { useEffect, useState, type KeyboardEvent } from 'react';
import { useLoad } from '../../api/context';
import type { TraceList } from '../../api/types';
import { countOf, fmtCost, fmtInt, fmtMs, fmtTime } from '../../components/format';
import { Pager } from '../../components/pager';
import { navigate, setParams, useLocation } from '../../router';
import { TraceView } from './trace-view';

/** `/traces`: the list; `/traces?trace=<id>&span=<id>`: one trace with a span selected. */
export function TracesPage() {
  const { params } = useLocation();
  const traceId = params.get('trace');
  if (traceId) return <TraceView traceId={traceId} selectedId={params.get('span')} />;
  return <TraceListView params={params} />;
}

function TraceListView({ params }: { params: URLSearchParams }) {
  const page = Number(params.get('page') ?? 1) || 1;
  const q = params.get('q') ?? '';
  const status = params.get('status') ?? '';
  const { data, error, loading, reload } = useLoad(
    (api, signal) => api<TraceList>('/api/public/v2/traces', { query: { page, per_page: 50, q, status }, signal }),
    [page, q, status],
  );
  const [cursor, setCursor] = useState(0);
  const [text, setText] = useState(q);
  useEffect(() => setCursor(0), [page, q, status]);
  const traces = data?.traces ?? [];
  const open = (traceId: string) => navigate(`/traces?trace=${traceId}`);

  function onKeyDown(event: KeyboardEvent<HTMLTableElement>) {
    if (event.key === 'ArrowDown') setCursor((c) => Math.min(traces.length - 1, c + 1));
    else if (event.key === 'ArrowUp') setCursor((c) => Math.max(0, c - 1));
    else if (event.key === 'Enter' && traces[cursor]) open(traces[cursor].trace_id);
    else return;
    event.preventDefault();
  }

  return (
    <div className="page">
      <div className="page-head">
        <h1>Traces</h1>
        <span className="muted" data-testid="trace-count">{loading && !data ? 'Loading…' : countOf(data?.total ?? 0, 'trace')}</span>
        <span className="spacer" />
        <button type="button" onClick={reload} title="Reload">
          ↻ Refresh
        </button>
      </div>
      <form
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setParams({ q: text, page: null });
        }}
      >
        <label className="search">
          Search span names and attribute values
          <input type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder="e.g. checkout, gpt-4o" />
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => setParams({ status: e.target.value, page: null })}>
            <option value="">Any</option>
            <option value="ERROR">Failed</option>
            <option value="OK">OK</option>
            <option value="UNSET">Unset</option>
          </select>
        </label>
      </form>
      {error ? <p className="error" role="alert" style={{ padding: '8px 20px' }}>{error}</p> : null}
      <div className="page-body">
        {data && traces.length === 0 ? (
          <div className="empty">
            <h2>{q || status ? 'No traces match' : 'No traces yet'}</h2>
            <p>Send OpenTelemetry spans to <code>/v1/traces</code> or enable tracing in the PromptLayer SDK; see the README, “Connect OpenTelemetry”.</p>
          </div>
        ) : (
          <table className="grid" tabIndex={0} aria-label="Traces" onKeyDown={onKeyDown}>
            <thead>
              <tr>
                <th>Root span</th>
                <th>Started</th>
                <th className="num">Duration</th>
                <th className="num">Spans</th>
                <th className="num">Errors</th>
                <th className="num">Tokens</th>
                <th className="num">Cost</th>
              </tr>
            </thead>
            <tbody>
              {traces.map((trace, i) => (
                <tr
                  key={trace.trace_id}
                  data-trace-id={trace.trace_id}
                  className={`clickable ${i === cursor ? 'selected' : ''}`}
                  onClick={() => open(trace.trace_id)}
                >
                  <td className={trace.error_count ? 'error' : undefined}>{trace.name || '(unnamed)'}</td>
                  <td>{fmtTime(trace.start_time)}</td>
                  <td className="num">{fmtMs(trace.duration_ms)}</td>
                  <td className="num">{fmtInt(trace.span_count)}</td>
                  <td className="num">{trace.error_count ? <span className="badge bad">{fmtInt(trace.error_count)}</span> : '0'}</td>
                  <td className="num">{fmtInt(trace.input_tokens + trace.output_tokens)}</td>
                  <td className="num">{fmtCost(trace.price)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <Pager page={page} pages={data?.pages} onPage={(p) => setParams({ page: String(p) })} />
      </div>
    </div>
  );
}
