import type { TraceSpan } from '../../api/types';
import { fmtMs, fmtTime } from '../../components/format';
import { JsonView } from '../../components/json-view';
import { navigate, setParams } from '../../router';
import { RequestDetail } from '../requests/request-detail';

const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** A span's status, times, attributes and events; an LLM span also shows its request as chat. */
export function SpanDetail({ span }: { span: TraceSpan }) {
  const failed = span.status.code === 'ERROR';
  return (
    <aside className="detail" aria-label={`Span ${span.name}`}>
      <div className="detail-head">
        <h2 style={{ margin: 0 }}>{span.name || '(unnamed span)'}</h2>
        <span className={`badge ${failed ? 'bad' : span.status.code === 'OK' ? 'ok' : ''}`}>{span.status.code.toLowerCase()}</span>
        <span className="grow" />
        {span.request_id !== null ? (
          <button type="button" onClick={() => navigate(`/requests?request=${span.request_id}`)}>
            Open request
          </button>
        ) : null}
      </div>
      <div className="detail-body">
        <dl className="kv">
          <dt>Kind</dt>
          <dd>{span.kind.toLowerCase()}</dd>
          <dt>Started</dt>
          <dd>{fmtTime(span.start_time)}</dd>
          <dt>Duration</dt>
          <dd>{fmtMs(span.duration_ms)}</dd>
          <dt>Span id</dt>
          <dd className="mono">{span.span_id}</dd>
          {span.parent_span_id ? (
            <>
              <dt>Parent</dt>
              <dd className="mono">{span.parent_span_id}</dd>
            </>
          ) : null}
        </dl>
        {failed || span.status.message ? (
          <div className="card" style={{ borderColor: failed ? 'var(--bad)' : undefined }}>
            <h3>Status</h3>
            <div className={`mono ${failed ? 'error' : ''}`}>{span.status.message || span.status.code}</div>
          </div>
        ) : null}
        <section aria-label="Attributes">
          <h3>Attributes</h3>
          {Object.keys(span.attributes).length ? (
            <table className="grid">
              <tbody>
                {Object.entries(span.attributes).map(([key, value]) => (
                  <tr key={key}>
                    <td className="mono muted">{key}</td>
                    <td className="mono" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>{show(value)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p className="muted">None.</p>
          )}
        </section>
        {span.events.length ? (
          <section aria-label="Events">
            <h3>Events</h3>
            {span.events.map((event, i) => (
              <details key={i} open={event.name === 'exception'}>
                <summary className={event.name === 'exception' ? 'error' : undefined}>{event.name}</summary>
                <JsonView value={event.attributes} label={`Event ${event.name}`} />
              </details>
            ))}
          </section>
        ) : null}
        <details>
          <summary className="muted">Resource</summary>
          <JsonView value={span.resource} label="Resource" />
        </details>
        {span.request_id !== null ? (
          <section className="span-request" aria-label="Linked request">
            <RequestDetail id={span.request_id} onClose={() => setParams({ span: null })} />
          </section>
        ) : null}
      </div>
    </aside>
  );
}
