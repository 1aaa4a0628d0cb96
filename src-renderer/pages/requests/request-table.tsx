import { useCallback, type JSX, type KeyboardEvent } from 'react';
import type { RequestItem } from '../../api/types';
import { previewText } from '../../components/chat-view';
import { VirtualRows } from '../../components/virtual-rows';
import { fmtMs, fmtRelative, fmtTime } from '../../components/format';
import { priceText, tokensMissing, totalTokensText } from './request-figures';
import { SortHeader, type SortKey, type SortState } from './sort-header';
import { TagChips } from './tag-chips';
import { NoteMark } from '../review/review-badges';
import type { RequestPages } from './use-request-pages';

/**
 * The full column set lives in styles.css (`.request-columns`): below 1180 px wide the Tags column
 * folds away there, so the numeric columns stay on screen instead of being clipped at the right.
 */
const COLUMNS = 'var(--request-columns)';
/** Beside the detail only what identifies a row fits, plus the column the list is sorted by (`.request-compact` in styles.css). */
const COMPACT = 'var(--request-compact)';
const ROW_HEIGHT = 34;
const TITLES: Record<SortKey, string> = { time: 'Time', latency: 'Latency', cost: 'Cost', tokens: 'Tokens', score: 'Score' };

export const statusClass = (status: string) => (status === 'ERROR' ? 'bad' : status === 'WARNING' ? 'warn' : 'ok');

interface Props {
  pages: RequestPages;
  sort: SortState;
  /** Tags the list is filtered by: always shown in a row, highlighted. */
  filteredTags: string[];
  openId: number | null;
  cursor: number;
  checked: Set<number>;
  onCursor: (index: number) => void;
  onOpen: (id: number | null) => void;
  onToggle: (id: number) => void;
}

export function RequestTable({ pages, sort, filteredTags, openId, cursor, checked, onCursor, onOpen, onToggle }: Props) {
  const compact = openId !== null;
  const compactColumn = sort.sort === 'time' ? 'latency' : sort.sort;
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
    const score = r.scored ? (r.scores.default ?? Object.values(r.scores)[0]) : undefined;
    const cells: Record<Exclude<SortKey, 'time'>, JSX.Element> = {
      tokens: (
        <div role="gridcell" className={`num${tokensMissing(r) ? ' muted' : ''}`} title={tokensMissing(r) ? 'No token counts were logged' : `${r.input_tokens} in / ${r.output_tokens} out`}>
          {totalTokensText(r)}
        </div>
      ),
      cost: (
        <div role="gridcell" className={`num${priceText(r) === '—' ? ' muted' : ''}`} title={priceText(r) === '—' ? 'No price was logged or computed' : `$${r.price}`}>
          {priceText(r)}
        </div>
      ),
      latency: <div role="gridcell" className="num">{fmtMs(r.latency_ms)}</div>,
      score: (
        <div role="gridcell" className="num" title={Object.entries(r.scores).map(([name, value]) => `${name}: ${value}`).join(', ')}>
          {score !== undefined ? <span className="badge accent">{score}</span> : <span className="muted">—</span>}
        </div>
      ),
    };
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
        <div role="gridcell" className="mono" title={`${fmtRelative(r.request_start_time)} · ${r.request_start_time}`}>
          {fmtTime(r.request_start_time)}
        </div>
        <div role="gridcell">
          <span className={`badge ${statusClass(r.status)}`}>{r.status.toLowerCase()}</span>
        </div>
        <div role="gridcell" title={`${r.provider} / ${r.model}`}>{r.model}</div>
        <div role="gridcell" className="preview">{previewText(r.input)}</div>
        {compact ? (
          cells[compactColumn]
        ) : (
          <>
            {cells.tokens}
            {cells.cost}
            {cells.latency}
            {cells.score}
            <div role="gridcell" className="tags-cell">
              <NoteMark request={r} />
              <TagChips tags={r.tags} filtered={filteredTags} max={3} />
            </div>
          </>
        )}
      </div>
    );
  };

  return (
    <div className={compact ? 'vt request-compact' : 'vt request-columns'}>
      <div className="vt-head" role="row" style={{ gridTemplateColumns: columns }}>
        <div />
        <SortHeader label="Time" column="time" state={sort} />
        <div>Status</div>
        <div>Model</div>
        <div>Input</div>
        {compact ? (
          <SortHeader label={TITLES[compactColumn]} column={compactColumn} state={sort} numeric />
        ) : (
          <>
            <SortHeader label="Tokens" column="tokens" state={sort} numeric />
            <SortHeader label="Cost" column="cost" state={sort} numeric />
            <SortHeader label="Latency" column="latency" state={sort} numeric />
            <SortHeader label="Score" column="score" state={sort} numeric />
            <div className="tags-cell">Tags</div>
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
