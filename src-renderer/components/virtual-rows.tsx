import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';

export interface VirtualRowsProps {
  count: number;
  rowHeight: number;
  renderRow: (index: number, style: { top: number; height: number }) => ReactNode;
  /** Called when the visible window gets within `threshold` rows of the end (load the next page). */
  onNearEnd?: () => void;
  threshold?: number;
  /** The keyboard cursor; kept in view when it moves. */
  cursor?: number;
  onKeyDown?: (event: KeyboardEvent<HTMLDivElement>) => void;
  label: string;
}

/** Rows drawn beyond the viewport each way, so a fast flick does not show blank space. */
const OVERSCAN = 10;

/**
 * A list that renders only the rows in view (fixed height, absolutely placed), so a million
 * loaded-on-demand rows cost the same to draw as forty.
 */
export function VirtualRows({ count, rowHeight, renderRow, onNearEnd, threshold = 60, cursor, onKeyDown, label }: VirtualRowsProps) {
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setHeight(el.clientHeight);
    const observer = new ResizeObserver(() => setHeight(el.clientHeight));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - OVERSCAN);
  const last = Math.min(count, Math.ceil((scrollTop + height) / rowHeight) + OVERSCAN);

  useEffect(() => {
    if (onNearEnd && count > 0 && last >= count - threshold) onNearEnd();
  }, [last, count, threshold, onNearEnd]);

  useEffect(() => {
    const el = ref.current;
    if (!el || cursor === undefined || cursor < 0) return;
    const top = cursor * rowHeight;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + rowHeight > el.scrollTop + el.clientHeight) el.scrollTop = top + rowHeight - el.clientHeight;
  }, [cursor, rowHeight]);

  const rows: ReactNode[] = [];
  for (let i = first; i < last; i++) rows.push(renderRow(i, { top: i * rowHeight, height: rowHeight }));
  return (
    <div
      ref={ref}
      className="vt-scroll"
      tabIndex={0}
      role="grid"
      aria-label={label}
      aria-rowcount={count}
      onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
      onKeyDown={onKeyDown}
    >
      <div style={{ height: count * rowHeight, position: 'relative' }}>{rows}</div>
    </div>
  );
}
