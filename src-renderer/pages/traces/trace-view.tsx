import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useLoad } from '../../api/context';
import type { TraceDetail } from '../../api/types';
import { CopyButton } from '../../components/copy-button';
import { countOf, fmtInt, fmtMs } from '../../components/format';
import { navigate, setParams } from '../../router';
import { SpanDetail } from './span-detail';
import { buildRows, initialCollapsed, visibleRows, type SpanRow } from './span-tree';

const ROW_HEIGHT = 28;

/** One trace: a collapsible span tree beside a waterfall on the trace's time axis, and the selected span. */
export function TraceView({ traceId, selectedId }: { traceId: string; selectedId: string | null }) {
  const { data, error } = useLoad((api, signal) => api<TraceDetail>(`/api/public/v2/traces/${traceId}`, { signal }), [traceId]);
  const rows = useMemo(() => (data ? buildRows(data.spans) : []), [data]);
  const [collapsed, setCollapsed] = useState<Set<string>>(new Set());
  // Folded once per loaded trace; selecting a span later must not unfold what the user folded.
  const focus = useRef(selectedId);
  focus.current = selectedId;
  useEffect(() => setCollapsed(initialCollapsed(rows, focus.current)), [rows]);
  const visible = useMemo(() => visibleRows(rows, collapsed), [rows, collapsed]);
  const selected = rows.find((r) => r.span.span_id === selectedId) ?? rows[0];
  const totalMs = useMemo(() => Math.max(1e-3, ...rows.map((r) => r.offsetMs + r.span.duration_ms)), [rows]);

  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: visible.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const cursor = selected ? visible.findIndex((r) => r === selected) : -1;
  useEffect(() => {
    if (cursor >= 0) virtualizer.scrollToIndex(cursor, { align: 'auto' });
  }, [cursor, virtualizer]);

  const select = (row: SpanRow | undefined) => row && setParams({ span: row.span.span_id });
  const toggle = (id: string, open?: boolean) =>
    setCollapsed((prev) => {
      const next = new Set(prev);
      if (open ?? next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (!selected) return;
    switch (event.key) {
      case 'ArrowDown':
        select(visible[Math.min(visible.length - 1, cursor + 1)]);
        break;
      case 'ArrowUp':
        select(visible[Math.max(0, cursor - 1)]);
        break;
      case 'ArrowRight':
        if (selected.hasChildren) toggle(selected.span.span_id, true);
        break;
      case 'ArrowLeft':
        if (selected.hasChildren && !collapsed.has(selected.span.span_id)) toggle(selected.span.span_id, false);
        else select(rows.find((r) => r.span.span_id === selected.span.parent_span_id));
        break;
      case 'Enter':
        if (selected.span.request_id !== null) navigate(`/requests?request=${selected.span.request_id}`);
        break;
      case 'Escape':
        navigate('/traces');
        break;
      default:
        return;
    }
    event.preventDefault();
  }

  if (error) return <p className="error" role="alert" style={{ padding: '8px 20px' }}>{error}</p>;
  if (!data) return <p className="muted" style={{ padding: '8px 20px' }} aria-busy="true">Loading trace…</p>;
  const root = rows[0];
  const errors = rows.filter((r) => r.span.status.code === 'ERROR').length;
  return (
    <div className="page" data-testid="trace-view">
      <div className="page-head">
        <button type="button" className="ghost" onClick={() => navigate('/traces')} title="Back to traces (Esc)">
          ← Traces
        </button>
        <h1>{root.span.name || '(unnamed span)'}</h1>
        <span className="muted">
          {countOf(rows.length, 'span')} · {fmtMs(totalMs)}
          {errors ? <span className="error"> · {fmtInt(errors)} failed</span> : null}
        </span>
        <span className="spacer" />
        <CopyButton text={traceId} label="Copy trace id" />
      </div>
      <div className="explorer with-detail">
        <div className="vt">
          <div className="vt-head waterfall-row">
            <div>Span</div>
            <div className="waterfall-axis">
              <span>0</span>
              <span>{fmtMs(totalMs / 2)}</span>
              <span>{fmtMs(totalMs)}</span>
            </div>
          </div>
          <div ref={scrollRef} className="vt-scroll" tabIndex={0} role="tree" aria-label="Spans" onKeyDown={onKeyDown}>
            <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
              {virtualizer.getVirtualItems().map((item) => {
                const row = visible[item.index];
                const { span } = row;
                const failed = span.status.code === 'ERROR';
                const open = row.hasChildren && !collapsed.has(span.span_id);
                return (
                  <div
                    key={span.span_id}
                    role="treeitem"
                    aria-level={row.depth + 1}
                    aria-expanded={row.hasChildren ? open : undefined}
                    aria-selected={row === selected}
                    data-span-id={span.span_id}
                    className={`vt-row waterfall-row ${row === selected ? 'selected cursor' : ''} ${failed ? 'failed' : ''}`}
                    style={{ top: item.start, height: ROW_HEIGHT }}
                    onClick={() => select(row)}
                  >
                    <div className="span-name" style={{ paddingLeft: 10 + row.depth * 14 }}>
                      {row.hasChildren ? (
                        <button
                          type="button"
                          className="ghost small twisty"
                          aria-label={open ? `Collapse ${span.name}` : `Expand ${span.name}`}
                          onClick={(e) => {
                            e.stopPropagation();
                            toggle(span.span_id);
                          }}
                        >
                          {open ? '▾' : '▸'}
                        </button>
                      ) : (
                        <span className="twisty" />
                      )}
                      <span className={failed ? 'error' : undefined}>{span.name || '(unnamed)'}</span>
                      {span.request_id !== null ? <span className="badge accent">LLM</span> : null}
                    </div>
                    <div className="waterfall-track">
                      <div
                        className={`waterfall-bar ${failed ? 'failed' : ''}`}
                        style={{ left: `${(row.offsetMs / totalMs) * 100}%`, width: `max(2px, ${(span.duration_ms / totalMs) * 100}%)` }}
                      />
                      <span className="waterfall-label">{fmtMs(span.duration_ms)}</span>
                    </div>
                  </div>
                );
              })}
            </div>
          </div>
          <div className="vt-foot">
            <span>
              <kbd>↑</kbd> <kbd>↓</kbd> move · <kbd>←</kbd> <kbd>→</kbd> fold · <kbd>Enter</kbd> open request · <kbd>Esc</kbd> back
            </span>
          </div>
        </div>
        {selected ? <SpanDetail span={selected.span} /> : null}
      </div>
    </div>
  );
}
