import { useCallback, type KeyboardEvent } from 'react';
import type { RequestItem } from '../../api/types';
import { previewText } from '../../components/chat-view';
import { VirtualRows } from '../../components/virtual-rows';
import { fmtCost, fmtInt, fmtMs, fmtTime } from '../../components/format';
import type { RequestPages } from './use-request-pages';

const COLUMNS = '28px 150px 74px minmax(120px, 180px) minmax(160px, 1fr) 80px 74px 80px minmax(80px, 160px)';
/** Beside the detail panel only what identifies a row fits. */
const COMPACT = '28px 136px 74px minmax(100px, 150px) minmax(120px, 1fr) 70px';
const ROW_HEIGHT = 34;

export const statusClass = (status: string) => (status === 'ERROR' ? 'bad' : status === 'WARNING' ? 'warn' : 'ok');

interface Props {
  pages: RequestPages;
  openId: number | null;
  cursor: number;
  checked: Set<number>;
  onCursor: (index: number) => void;
  onOpen: (id: number | null) => void;
  onToggle: (id: number) => void;
}

export function RequestTable({ pages, openId, cursor, checked, onCursor, onOpen, onToggle }: Props) {
  const compact = openId !== null;
  const columns = compact ? COMPACT : COLUMNS;
  const { items } = pages;
  const { hasMore, loading, loadMore } = pages;
  const nearEnd = useCallback(() => {
    if (hasMore && !loading) loadMore();
  }, [hasMore, loading, loadMore]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const move = (to: number) => {
      event.preventDefault();
      const next = Math.max(0, Math.min(items.length - 1, to));
      onCursor(next);
      if (openId !== null && items[next]) onOpen(items[next].id);
    };
    switch (event.key) {
      case 'ArrowDown':
      case 'j':
        return move(cursor + 1);
      case 'ArrowUp':
      case 'k':
        return move(cursor - 1);
      case 'PageDown':
        return move(cursor + 20);
      case 'PageUp':
        return move(cursor - 20);
      case 'Home':
        return move(0);
      case 'End':
        return move(items.length - 1);
      case 'Enter':
        event.preventDefault();
        if (items[cursor]) onOpen(items[cursor].id);
        return;
      case 'x':
      case ' ':
        event.preventDefault();
        if (items[cursor]) onToggle(items[cursor].id);
        return;
      case 'Escape':
        onOpen(null);
        return;
      default:
        return;
    }
  };

  const row = (index: number, style: { top: number; height: number }) => {
    const r: RequestItem | undefined = items[index];
    if (!r) {
      return (
        <div key={`more-${index}`} className="vt-row muted" style={{ ...style, gridTemplateColumns: '1fr' }}>
          <div>Loading more…</div>
        </div>
      );
    }
    const classes = ['vt-row', r.id === openId ? 'selected' : '', index === cursor ? 'cursor' : ''].join(' ');
    const score = Object.values(r.scores)[0];
    return (
      <div
        key={r.id}
        className={classes}
        role="row"
        aria-selected={r.id === openId}
        data-request-id={r.id}
        style={{ ...style, gridTemplateColumns: columns }}
        onClick={() => {
          onCursor(index);
          onOpen(r.id);
        }}
      >
        <div role="gridcell" onClick={(e) => e.stopPropagation()}>
          <input type="checkbox" aria-label={`Select request ${r.id}`} checked={checked.has(r.id)} onChange={() => onToggle(r.id)} />
        </div>
        <div role="gridcell" className="mono">{fmtTime(r.request_start_time)}</div>
        <div role="gridcell">
          <span className={`badge ${statusClass(r.status)}`}>{r.status.toLowerCase()}</span>
        </div>
        <div role="gridcell" title={`${r.provider} / ${r.model}`}>{r.model}</div>
        <div role="gridcell" className="preview">{previewText(r.input)}</div>
        {compact ? (
          <div role="gridcell" className="num">{fmtMs(r.latency_ms)}</div>
        ) : (
          <>
            <div role="gridcell" className="num" title={`${r.input_tokens} in / ${r.output_tokens} out`}>
              {fmtInt(r.input_tokens + r.output_tokens)}
            </div>
            <div role="gridcell" className="num">{fmtCost(r.price)}</div>
            <div role="gridcell" className="num">{fmtMs(r.latency_ms)}</div>
            <div role="gridcell">
              {score !== undefined ? <span className="badge accent">{score}</span> : null} {r.tags.slice(0, 3).map((t) => <span key={t} className="badge">{t}</span>)}
            </div>
          </>
        )}
      </div>
    );
  };

  return (
    <div className="vt">
      <div className="vt-head" role="row" style={{ gridTemplateColumns: columns }}>
        <div />
        <div>Time</div>
        <div>Status</div>
        <div>Model</div>
        <div>Input</div>
        {compact ? (
          <div className="num">Latency</div>
        ) : (
          <>
            <div className="num">Tokens</div>
            <div className="num">Cost</div>
            <div className="num">Latency</div>
            <div>Score · Tags</div>
          </>
        )}
      </div>
      <VirtualRows
        label="Requests"
        count={items.length + (hasMore ? 1 : 0)}
        rowHeight={ROW_HEIGHT}
        renderRow={row}
        onNearEnd={nearEnd}
        cursor={cursor}
        onKeyDown={onKeyDown}
      />
    </div>
  );
}
