import type { Db } from './db';
import type { NewRequest, RequestStore } from './requests';

export type SpanStatusCode = 'UNSET' | 'OK' | 'ERROR';

export interface SpanEvent {
  name: string;
  /** Epoch nanoseconds, decimal. */
  time_unix_nano: string;
  attributes: Record<string, unknown>;
}

/** A span as every ingest adapter produces it. Times are epoch nanoseconds as decimal strings. */
export interface NewSpan {
  workspace_id: number;
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  kind: string;
  start_ns: string;
  end_ns: string;
  status_code: SpanStatusCode;
  status_message: string;
  attributes: Record<string, unknown>;
  events: SpanEvent[];
  resource: Record<string, unknown>;
}

/** A span and, when it describes an LLM call, the request it becomes. */
export interface SpanWrite {
  span: NewSpan;
  request: NewRequest | null;
}

export interface SpanRecord extends Omit<NewSpan, 'workspace_id'> {
  request_id: number | null;
}

export interface TraceRecord {
  trace_id: string;
  name: string;
  start_ns: string;
  end_ns: string;
  span_count: number;
  error_count: number;
  /** ERROR when any span failed, else the root span's status (UNSET until the root arrives). */
  status: SpanStatusCode;
  input_tokens: number;
  output_tokens: number;
  price: number;
  request_count: number;
}

export interface TraceFilter {
  /** Bounds on the trace's start, epoch milliseconds. */
  startTime?: number;
  endTime?: number;
  name?: string;
  status?: SpanStatusCode;
  q?: string;
}

interface SpanRow {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  kind: string;
  start_ns: string;
  end_ns: string;
  status_code: SpanStatusCode;
  status_message: string;
  attributes: string;
  events: string;
  resource: string;
  request_id: number | null;
}

const NS_PER_MS = 1_000_000n;
const likePattern = (term: string) => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const STATUS_SQL = "CASE WHEN error_count > 0 THEN 'ERROR' ELSE coalesce(root_status, 'UNSET') END";

export function createSpanStore(db: Db, requests: RequestStore) {
  const insertSpan = db.prepare(`
    INSERT OR IGNORE INTO spans (workspace_id, trace_id, span_id, parent_span_id, name, kind, start_ns, end_ns,
      status_code, status_message, attributes, events, resource)
    VALUES (@workspace_id, @trace_id, @span_id, @parent_span_id, @name, @kind, @start_ns, @end_ns,
      @status_code, @status_message, @attributes, @events, @resource)`);
  const setSpanRequest = db.prepare('UPDATE spans SET request_id = ? WHERE workspace_id = ? AND trace_id = ? AND span_id = ?');
  const spanBySpanId = db.prepare<[number, string], { trace_id: string; request_id: number | null }>(
    'SELECT trace_id, request_id FROM spans WHERE workspace_id = ? AND span_id = ? LIMIT 1',
  );
  const waitingRequest = db.prepare<[number, string], { id: number; input_tokens: number; output_tokens: number; price: number }>(
    'SELECT id, input_tokens, output_tokens, price FROM requests WHERE workspace_id = ? AND span_id = ? AND trace_id IS NULL ORDER BY id LIMIT 1',
  );
  const setRequestTrace = db.prepare('UPDATE requests SET trace_id = ? WHERE id = ?');
  // In an UPSERT's SET every expression reads the row as it was, so `name` can still test whether
  // the root had arrived before this span.
  const upsertTrace = db.prepare(`
    INSERT INTO traces (workspace_id, trace_id, root_span_id, name, root_status, start_ns, end_ns, span_count,
      error_count, input_tokens, output_tokens, price, request_count)
    VALUES (@workspace_id, @trace_id, @root_span_id, @name, @root_status, @start_ns, @end_ns, 1,
      @errors, 0, 0, 0, 0)
    ON CONFLICT (workspace_id, trace_id) DO UPDATE SET
      name = CASE
        WHEN traces.root_span_id IS NULL AND excluded.root_span_id IS NOT NULL THEN excluded.name
        WHEN traces.root_span_id IS NULL AND excluded.start_ns < traces.start_ns THEN excluded.name
        ELSE traces.name END,
      root_status = CASE WHEN traces.root_span_id IS NULL THEN excluded.root_status ELSE traces.root_status END,
      root_span_id = coalesce(traces.root_span_id, excluded.root_span_id),
      start_ns = min(traces.start_ns, excluded.start_ns),
      end_ns = max(traces.end_ns, excluded.end_ns),
      span_count = traces.span_count + 1,
      error_count = traces.error_count + excluded.error_count`);
  const addRequestToTrace = db.prepare(`
    UPDATE traces SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, price = price + ?,
      request_count = request_count + 1
    WHERE workspace_id = ? AND trace_id = ?`);
  const spansOfTrace = db.prepare<[number, string], SpanRow>(`
    SELECT trace_id, span_id, parent_span_id, name, kind, CAST(start_ns AS TEXT) AS start_ns, CAST(end_ns AS TEXT) AS end_ns,
      status_code, status_message, attributes, events, resource, request_id
    FROM spans WHERE workspace_id = ? AND trace_id = ? ORDER BY start_ns, id`);

  const deleteTraceSpans = db.prepare<[number, string]>('DELETE FROM spans WHERE workspace_id = ? AND trace_id = ?');
  const deleteTrace = db.prepare<[number, string]>('DELETE FROM traces WHERE workspace_id = ? AND trace_id = ?');

  function linkToTrace(workspaceId: number, traceId: string, request: { id: number; input_tokens: number; output_tokens: number; price: number }) {
    setRequestTrace.run(traceId, request.id);
    addRequestToTrace.run(request.input_tokens, request.output_tokens, request.price, workspaceId, traceId);
  }

  return {
    /**
     * Writes one span, its trace's rollup and its request; call inside a transaction. A request
     * already logged with this span's id (`/log-request` with `span_id`) is linked rather than a
     * second one made from the span's attributes. Returns false for a span already stored.
     */
    insert({ span, request }: SpanWrite): boolean {
      const inserted = insertSpan.run({
        ...span,
        start_ns: BigInt(span.start_ns),
        end_ns: BigInt(span.end_ns),
        attributes: JSON.stringify(span.attributes),
        events: JSON.stringify(span.events),
        resource: JSON.stringify(span.resource),
      }).changes > 0;
      if (!inserted) return false;
      const ws = span.workspace_id;
      const isRoot = span.parent_span_id === null;
      upsertTrace.run({
        workspace_id: ws,
        trace_id: span.trace_id,
        root_span_id: isRoot ? span.span_id : null,
        name: span.name,
        root_status: isRoot ? span.status_code : null,
        start_ns: BigInt(span.start_ns),
        end_ns: BigInt(span.end_ns),
        errors: span.status_code === 'ERROR' ? 1 : 0,
      });
      const waiting = waitingRequest.get(ws, span.span_id);
      let requestId: number | null = null;
      if (waiting) {
        linkToTrace(ws, span.trace_id, waiting);
        requestId = waiting.id;
      } else if (request) {
        requestId = requests.insert({ ...request, span_id: span.span_id, trace_id: span.trace_id });
        addRequestToTrace.run(request.input_tokens, request.output_tokens, request.price, ws, span.trace_id);
      }
      if (requestId !== null) setSpanRequest.run(requestId, ws, span.trace_id, span.span_id);
      return true;
    },

    /** Removes traces with all their spans (their requests stay); call inside a transaction.
     * Returns how many spans went. */
    removeTraces(workspaceId: number, traceIds: string[]): number {
      let removed = 0;
      for (const traceId of traceIds) {
        removed += deleteTraceSpans.run(workspaceId, traceId).changes;
        deleteTrace.run(workspaceId, traceId);
      }
      return removed;
    },

    /** After a request with `span_id` is written: join it to its span's trace if the span is here. */
    linkRequest(request: NewRequest & { id: number }): void {
      if (request.span_id === null) return;
      const span = spanBySpanId.get(request.workspace_id, request.span_id);
      if (!span) return;
      linkToTrace(request.workspace_id, span.trace_id, request);
      if (span.request_id === null) setSpanRequest.run(request.id, request.workspace_id, span.trace_id, request.span_id);
    },

    trace(workspaceId: number, traceId: string): SpanRecord[] {
      // A trace's spans nearly all share one resource (and have no events): parsed once each.
      const parsed = new Map<string, unknown>();
      const parseOnce = (text: string) => (parsed.has(text) ? parsed.get(text) : parsed.set(text, JSON.parse(text)).get(text));
      return spansOfTrace.all(workspaceId, traceId).map((row) => ({
        ...row,
        attributes: JSON.parse(row.attributes) as Record<string, unknown>,
        events: (row.events === '[]' ? [] : JSON.parse(row.events)) as SpanEvent[],
        resource: parseOnce(row.resource) as Record<string, unknown>,
      }));
    },

    /** Newest first; `total` counts every match. */
    list(workspaceId: number, filter: TraceFilter, offset: number, limit: number): { traces: TraceRecord[]; total: number } {
      const where = ['t.workspace_id = ?'];
      const params: unknown[] = [workspaceId];
      if (filter.startTime !== undefined) (where.push('t.start_ns >= ?'), params.push(BigInt(filter.startTime) * NS_PER_MS));
      if (filter.endTime !== undefined) (where.push('t.start_ns <= ?'), params.push(BigInt(filter.endTime) * NS_PER_MS));
      if (filter.name !== undefined) (where.push('t.name = ?'), params.push(filter.name));
      if (filter.status !== undefined) (where.push(`${STATUS_SQL} = ?`), params.push(filter.status));
      if (filter.q) {
        where.push(`EXISTS (SELECT 1 FROM spans s WHERE s.workspace_id = t.workspace_id AND s.trace_id = t.trace_id
          AND (s.name LIKE ? ESCAPE '\\' OR EXISTS (SELECT 1 FROM json_tree(s.attributes) a WHERE a.atom LIKE ? ESCAPE '\\')))`);
        params.push(likePattern(filter.q), likePattern(filter.q));
      }
      const sqlWhere = where.join(' AND ');
      const total = db.prepare<unknown[], { n: number }>(`SELECT count(*) AS n FROM traces t WHERE ${sqlWhere}`).get(...params)!.n;
      const traces = db
        .prepare<unknown[], TraceRecord>(`
          SELECT trace_id, name, CAST(start_ns AS TEXT) AS start_ns, CAST(end_ns AS TEXT) AS end_ns, span_count, error_count,
            ${STATUS_SQL} AS status, input_tokens, output_tokens, price, request_count
          FROM traces t WHERE ${sqlWhere} ORDER BY t.start_ns DESC, t.trace_id DESC LIMIT ? OFFSET ?`)
        .all(...params, limit, offset);
      return { traces, total };
    },
  };
}

export type SpanStore = ReturnType<typeof createSpanStore>;
