import type { TraceSpan } from '../../api/types';

export interface SpanRow {
  span: TraceSpan;
  depth: number;
  hasChildren: boolean;
  /** From the trace's first start, in milliseconds (exact from nanoseconds). */
  offsetMs: number;
}

/** The server lists spans parents first, siblings by start (a depth-first walk); this adds depth and offsets. */
export function buildRows(spans: TraceSpan[]): SpanRow[] {
  if (spans.length === 0) return [];
  const start = spans.reduce((min, s) => (BigInt(s.start_time_unix_nano) < min ? BigInt(s.start_time_unix_nano) : min), BigInt(spans[0].start_time_unix_nano));
  const depthOf = new Map<string, number>();
  const rows = spans.map((span) => {
    const depth = span.parent_span_id !== null && depthOf.has(span.parent_span_id) ? depthOf.get(span.parent_span_id)! + 1 : 0;
    depthOf.set(span.span_id, depth);
    return { span, depth, hasChildren: false, offsetMs: Number(BigInt(span.start_time_unix_nano) - start) / 1e6 };
  });
  for (let i = 0; i < rows.length - 1; i++) rows[i].hasChildren = rows[i + 1].depth > rows[i].depth;
  return rows;
}

/** Rows not hidden under a collapsed span; one pass, since a subtree is the run of deeper rows after its root. */
export function visibleRows(rows: SpanRow[], collapsed: ReadonlySet<string>): SpanRow[] {
  const out: SpanRow[] = [];
  let hideDeeperThan = Infinity;
  for (const row of rows) {
    if (row.depth > hideDeeperThan) continue;
    hideDeeperThan = collapsed.has(row.span.span_id) ? row.depth : Infinity;
    out.push(row);
  }
  return out;
}

/** At first every span below the top two levels is folded, except the path down to `focus`. */
export function initialCollapsed(rows: SpanRow[], focus: string | null): Set<string> {
  const collapsed = new Set(rows.filter((r) => r.hasChildren && r.depth >= 1).map((r) => r.span.span_id));
  const parentOf = new Map(rows.map((r) => [r.span.span_id, r.span.parent_span_id]));
  for (let id = focus ? parentOf.get(focus) : null; id; id = parentOf.get(id)) collapsed.delete(id);
  return collapsed;
}
