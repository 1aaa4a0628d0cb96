import { invalidField, notFound } from '../errors';
import type { LogRequestBody } from '../schemas/logging';
import type { ExplorerFilters, RequestListQuery } from '../schemas/explorer';
import { MAX_TIMESTAMP_MS, MIN_TIMESTAMP_MS } from '../schemas/common';
import { isoDate } from '../iso-date';
import type { Writer } from '../store/writer';
import type { Ingest } from '../store/ingest';
import { keysetOf, type Keyset, type LoggedRequest, type PriceSource, type RequestFilter, type RequestOrder, type RequestStore } from '../store/requests';
import type { ReviewBody } from '../schemas/review';
import type { RequestStatsStore } from '../store/request-stats';
import { percentiles, utcDay } from '../store/request-stats';
import { type PromptLinks, requestAsVersion } from './prompt-links';
import { requestFilter } from './request-filter';
import { requestExportStream, type RequestExportFormat } from './request-export';
import { searchText } from '../store/text-index';

export interface RequestServiceDeps {
  store: RequestStore;
  stats: RequestStatsStore;
  writer: Writer;
  /** Where new requests are written (a dedicated thread; see store/ingest.ts). */
  ingest: Ingest;
  promptLinks: PromptLinks;
  now: () => number;
}

/** A request the server made itself, in the log's shapes (see `recordOwnCall`). */
export interface OwnCall {
  provider: string;
  model: string;
  input: { type: 'chat'; messages: Array<{ role: string; content: Array<{ type: 'text'; text: string }> }> };
  output: { type: 'chat'; messages: Array<{ role: string; content: Array<{ type: 'text'; text: string }> }> };
  startedAt: number;
  endedAt: number;
  parameters: Record<string, unknown>;
  tags: string[];
  metadata: Record<string, string>;
  inputTokens: number;
  outputTokens: number;
  priced: PricedUsage;
  functionName: string;
  status: 'SUCCESS' | 'ERROR';
  errorMessage: string | null;
}

/** A price a service computed for the call it logs (services/pricing.ts), with the token parts
 * priced at their own rate so a recompute can price them again. */
export interface PricedUsage {
  price: number;
  price_source: PriceSource;
  cached_input_tokens?: number | null;
  cache_write_tokens?: number | null;
  cache_write_1h_tokens?: number | null;
  reasoning_tokens?: number | null;
}

/** A logged request in the log body's own field names (API.md "A logged request"). */
export type RequestView = ReturnType<ReturnType<typeof createRequestService>['view']>;

/**
 * Requests deleted per transaction. A batch of 500 is ~15 ms of SQLite work (fts, rollups,
 * cascades), so ingest, on its own connection, waits at most that long for the write lock.
 */
const DELETE_BATCH = 500;
const DELETE_PAUSE_MS = 20;
/** Requests per export page: one page is what an export holds in memory at a time. */
const EXPORT_PAGE = 200;

export function createRequestService({ store, stats, writer, ingest, promptLinks, now }: RequestServiceDeps) {
  function view(row: LoggedRequest, scores: Record<string, number>) {
    const linked = row.prompt_version_id === null ? null : promptLinks.version(row.workspace_id, row.prompt_version_id);
    return {
      id: row.id,
      provider: row.provider,
      model: row.model,
      input: row.input,
      output: row.output,
      request_start_time: row.request_start_time,
      request_end_time: row.request_end_time,
      latency_ms: row.latency_ms,
      parameters: row.parameters,
      tags: row.tags,
      metadata: row.metadata,
      prompt_id: row.prompt_id,
      prompt_name: row.prompt_name,
      prompt_version_number: row.prompt_version_number,
      prompt_input_variables: row.prompt_input_variables,
      input_tokens: row.input_tokens,
      output_tokens: row.output_tokens,
      price: row.price,
      function_name: row.function_name,
      status: row.status,
      error_type: row.error_type,
      error_message: row.error_message,
      api_type: row.api_type,
      group_id: row.group_id,
      // The seed's `score` defaults to 0; `scored` tells that implied 0 from a score someone gave.
      score: scores.default ?? 0,
      scored: Object.keys(scores).length > 0,
      span_id: row.span_id,
      trace_id: row.trace_id,
      scores,
      note: row.note,
      price_source: row.price_source,
      prompt_version: linked ?? requestAsVersion(row.input, row.provider, row.model, row.parameters),
      created_at: row.created_at,
    };
  }

  /** Every match of the filter, newest first, a fresh keyset query per page (no cursor stays open
   * between pages, so writes may run while the caller works through them). */
  function* matchingPages(workspaceId: number, filter: RequestFilter, pageSize: number): Generator<LoggedRequest[]> {
    let after: Keyset | undefined;
    for (;;) {
      const page = store.list(workspaceId, filter, after, pageSize);
      if (page.length > 0) yield page;
      if (page.length < pageSize) return;
      after = keysetOf(page[page.length - 1]);
    }
  }

  /**
   * Deletes in transactions of DELETE_BATCH, one after the other, with a pause between them: the
   * ingest thread waiting for the write lock retries on SQLite's busy-handler schedule (every
   * 25–100 ms once it has waited a while), so back-to-back batches could starve it.
   */
  async function deleteBatches(workspaceId: number, batches: Iterable<number[]>): Promise<number> {
    let deleted = 0;
    let first = true;
    for (const ids of batches) {
      if (!first) await new Promise((resolve) => setTimeout(resolve, DELETE_PAUSE_MS));
      first = false;
      deleted += await writer.write(() => store.deleteRequests(workspaceId, ids));
    }
    return deleted;
  }

  /**
   * A text query reads the index, which the ingest thread writes after answering: it first waits
   * for every request acknowledged so far to be indexed (docs/decisions.md, "Text search after an
   * acknowledgement"). Other filters read the rows themselves.
   */
  async function textIndexed(filter: RequestFilter): Promise<void> {
    if (filter.q !== undefined && filter.q.trim() !== '') await ingest.indexText();
  }

  function requireRow(workspaceId: number, id: number): LoggedRequest {
    const row = store.get(workspaceId, id);
    if (!row) throw notFound('Request');
    return row;
  }

  return {
    view,

    /**
     * `POST /log-request`: answered only after the row (and its indexes) committed. A body's price
     * is the client's (`none` when it gave none); callers that priced the call say so in `priced`.
     * `inputJson` is `body.input` as JSON text, when the caller made it for its reply too.
     */
    async log(workspaceId: number, body: LogRequestBody, priced?: PricedUsage, inputJson = JSON.stringify(body.input)) {
      const wantsLink = body.prompt_id != null || (body.prompt_name != null && body.prompt_name !== '');
      const resolved = wantsLink
        ? promptLinks.resolve(workspaceId, {
            promptId: body.prompt_id,
            promptName: body.prompt_name,
            versionNumber: body.prompt_version_number,
          })
        : null;
      const scoreName = body.score_name ?? 'default';
      const createdAt = now();
      const id = await ingest.insert({
          workspace_id: workspaceId,
          provider: body.provider,
          model: body.model,
          input: inputJson,
          output: JSON.stringify(body.output),
          request_start_time: body.request_start_time,
          request_end_time: body.request_end_time,
          // Clock skew between client threads can put end before start; keep the log, not the sign.
          latency_ms: Math.max(0, body.request_end_time - body.request_start_time),
          parameters: JSON.stringify(body.parameters),
          tags: body.tags,
          metadata: body.metadata,
          scores: body.score == null ? {} : { [scoreName]: body.score },
          prompt_id: resolved?.promptId ?? body.prompt_id ?? null,
          prompt_name: resolved?.promptName ?? body.prompt_name ?? null,
          prompt_version_number: resolved?.versionNumber ?? body.prompt_version_number ?? null,
          prompt_version_id: resolved?.versionId ?? null,
          prompt_input_variables: JSON.stringify(body.prompt_input_variables),
          input_tokens: body.input_tokens,
          output_tokens: body.output_tokens,
          price: priced?.price ?? body.price ?? 0,
          price_source: priced?.price_source ?? (body.price === undefined ? 'none' : 'client'),
          cached_input_tokens: priced?.cached_input_tokens ?? null,
          cache_write_tokens: priced?.cache_write_tokens ?? null,
          cache_write_1h_tokens: priced?.cache_write_1h_tokens ?? null,
          reasoning_tokens: priced?.reasoning_tokens ?? null,
          function_name: body.function_name,
          status: body.status,
          error_type: body.error_type ?? null,
          error_message: body.error_message ?? null,
          api_type: body.api_type ?? null,
          group_id: body.group_id ?? null,
          created_at: createdAt,
          span_id: body.span_id ?? null,
          trace_id: null,
          searchText: searchText(body.input, body.output),
        });
      return {
        id,
        prompt_version:
          resolved?.version ?? requestAsVersion(body.input, body.provider, body.model, body.parameters),
        status: body.status,
        error_type: body.error_type ?? null,
        error_message: body.error_message ?? null,
        ...(wantsLink && !resolved
          ? { warning: 'The prompt link did not resolve to a template version in this workspace; the request was stored with the link as given.' }
          : {}),
      };
    },

    /**
     * A call the server made itself (an evaluation's LLM call), already in the log's shapes. It is
     * written by the ingest thread: its insert (10 indexes, the text index) was 10 % of the event
     * loop's busy time at 50 calls in flight, plus most of the commit's page writes (9 %). The run's cells stay on the
     * main connection's group commit, committed the turn they finish: through the ingest thread's
     * queue they waited 3–28 ms (p50–p90, 2 rows in flight), and a crash makes a resumed run call
     * again every finished call whose cell was not committed (docs/performance.md, evalmain). The
     * main connection takes the write lock without stopping the event loop (store/writer.ts).
     * `durable: false` resolves at the commit (see `Ingest.insert`).
     */
    recordOwnCall(workspaceId: number, call: OwnCall, options?: { durable?: boolean }): Promise<number> {
      const row = {
        workspace_id: workspaceId,
        provider: call.provider,
        model: call.model,
        input: JSON.stringify(call.input),
        output: JSON.stringify(call.output),
        request_start_time: call.startedAt,
        request_end_time: call.endedAt,
        latency_ms: Math.max(0, call.endedAt - call.startedAt),
        parameters: JSON.stringify(call.parameters),
        tags: call.tags,
        metadata: call.metadata,
        scores: {},
        prompt_id: null,
        prompt_name: null,
        prompt_version_number: null,
        prompt_version_id: null,
        prompt_input_variables: '{}',
        input_tokens: call.inputTokens,
        output_tokens: call.outputTokens,
        price: call.priced.price,
        price_source: call.priced.price_source,
        cached_input_tokens: call.priced.cached_input_tokens ?? null,
        cache_write_tokens: call.priced.cache_write_tokens ?? null,
        cache_write_1h_tokens: call.priced.cache_write_1h_tokens ?? null,
        reasoning_tokens: call.priced.reasoning_tokens ?? null,
        function_name: call.functionName,
        status: call.status,
        error_type: null,
        error_message: call.errorMessage,
        api_type: null,
        group_id: null,
        created_at: now(),
        span_id: null,
        trace_id: null,
        searchText: searchText(call.input, call.output),
      };
      return ingest.insert(row, options);
    },

    get(workspaceId: number, id: number) {
      const row = requireRow(workspaceId, id);
      return view(row, store.scores([id]).get(id)!);
    },

    async list(workspaceId: number, query: RequestListQuery) {
      const filter = requestFilter(query);
      await textIndexed(filter);
      const order: RequestOrder = { by: query.sort, direction: query.order };
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, order);
      const rows = store.list(workspaceId, filter, after, query.limit + 1, order);
      const page = rows.slice(0, query.limit);
      const scores = store.scores(page.map((r) => r.id));
      const last = page[page.length - 1];
      const unfiltered = Object.values(filter).every((v) => v === undefined || (Array.isArray(v) && v.length === 0));
      return {
        items: page.map((row) => view(row, scores.get(row.id)!)),
        next_cursor: rows.length > query.limit ? encodeCursor(keysetOf(last, order), order) : null,
        // `rows` are matches, so never fewer (a text count with filters may estimate, store.count).
        total_estimate: unfiltered ? stats.total(workspaceId) : Math.max(store.count(workspaceId, filter), rows.length),
      };
    },

    /** `GET …/requests/export`: every match as JSONL (records as `get` returns them) or CSV. */
    async export(workspaceId: number, query: ExplorerFilters & { format: RequestExportFormat; bom: boolean }) {
      const filter = requestFilter(query);
      await textIndexed(filter);
      const views = (function* () {
        for (const page of matchingPages(workspaceId, filter, EXPORT_PAGE)) {
          const scores = store.scores(page.map((r) => r.id));
          yield page.map((row) => view(row, scores.get(row.id)!));
        }
      })();
      const stamp = isoDate(now()).slice(0, 19).replaceAll(':', '-');
      return { fileName: `requests-${stamp}.${query.format}`, stream: requestExportStream(views, query.format, query.bom) };
    },

    /** `DELETE …/requests/{id}`: the request and everything that belongs to it. */
    async delete(workspaceId: number, id: number) {
      const deleted = await writer.write(() => store.deleteRequests(workspaceId, [id]));
      if (deleted === 0) throw notFound('Request');
      return { success: true as const, deleted };
    },

    /** `POST …/requests/delete`: by ids (unknown ones and other workspaces' count 0) or by filter. */
    async deleteMany(workspaceId: number, body: { ids?: number[]; filters?: ExplorerFilters }) {
      let batches: Iterable<number[]>;
      if (body.ids) {
        const ids = [...new Set(body.ids)];
        batches = Array.from({ length: Math.ceil(ids.length / DELETE_BATCH) }, (_, i) => ids.slice(i * DELETE_BATCH, (i + 1) * DELETE_BATCH));
      } else {
        const filter = requestFilter(body.filters ?? {});
        await textIndexed(filter);
        const pages = matchingPages(workspaceId, filter, DELETE_BATCH);
        batches = (function* () {
          for (const page of pages) yield page.map((r) => r.id);
        })();
      }
      return { success: true as const, deleted: await deleteBatches(workspaceId, batches) };
    },

    stats(workspaceId: number, query: { start_time?: number; end_time?: number; provider?: string; model?: string }) {
      const filter = {
        startDay: query.start_time === undefined ? undefined : utcDay(query.start_time),
        endDay: query.end_time === undefined ? undefined : utcDay(query.end_time),
        provider: query.provider,
        model: query.model,
      };
      return summarize(stats.rollups(workspaceId, filter), {
        total: stats.buckets(workspaceId, filter, 'total'),
        day: stats.buckets(workspaceId, filter, 'day'),
        model: stats.buckets(workspaceId, filter, 'model'),
      });
    },

    async addScore(workspaceId: number, requestId: number, name: string, score: number) {
      requireRow(workspaceId, requestId);
      await writer.write(() => store.addScore(requestId, name, score));
    },

    /** `PATCH …/requests/{id}`: scores merge by name (null removes one); a null or empty note removes it. */
    async review(workspaceId: number, requestId: number, body: ReviewBody) {
      requireRow(workspaceId, requestId);
      await writer.write(() => {
        // Checked again in the write: a request deleted meanwhile is a 404, not a score without its request.
        requireRow(workspaceId, requestId);
        if (body.note !== undefined) store.setNote(requestId, body.note || null);
        for (const [name, score] of Object.entries(body.scores ?? {})) {
          if (score === null) store.removeScore(requestId, name);
          else store.addScore(requestId, name, score);
        }
      });
      return view(requireRow(workspaceId, requestId), store.scores([requestId]).get(requestId)!);
    },

    async addMetadata(workspaceId: number, requestId: number, metadata: Record<string, string>) {
      requireRow(workspaceId, requestId);
      await writer.write(() => {
        if (!store.mergeMetadata(workspaceId, requestId, metadata)) throw notFound('Request');
      });
    },

    async setGroup(workspaceId: number, requestId: number, groupId: number) {
      requireRow(workspaceId, requestId);
      if (!store.groupExists(workspaceId, groupId)) throw notFound('Group');
      await writer.write(() => store.setGroup(requestId, groupId));
    },

    createGroup: (workspaceId: number) => writer.write(() => store.createGroup(workspaceId, now())),

    /** `track-prompt`: link an already logged request to a registry version. */
    async linkPrompt(
      workspaceId: number,
      requestId: number,
      link: { promptName: string; versionNumber?: number | null; label?: string | null },
      inputVariables: Record<string, unknown>,
    ): Promise<{ warning?: string }> {
      requireRow(workspaceId, requestId);
      const resolved = promptLinks.resolve(workspaceId, link);
      await writer.write(() =>
        store.setPromptLink(
          requestId,
          {
            promptId: resolved?.promptId ?? null,
            promptName: resolved?.promptName ?? link.promptName,
            versionNumber: resolved?.versionNumber ?? link.versionNumber ?? null,
            versionId: resolved?.versionId ?? null,
          },
          inputVariables,
        ),
      );
      return resolved ? {} : { warning: `Prompt template '${link.promptName}' did not resolve; the link was stored as given.` };
    },
  };
}

export type RequestService = ReturnType<typeof createRequestService>;

/** A cursor carries its order, so one from another sort is refused instead of skipping rows. */
function encodeCursor(k: Keyset, order: RequestOrder): string {
  return Buffer.from(JSON.stringify([k.value, k.id, order.by, order.direction])).toString('base64url');
}

function decodeCursor(cursor: string, order: RequestOrder): Keyset {
  let parsed: unknown[] = [];
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as unknown[];
  } catch {
    // the 422 below
  }
  // Cursors from before sorting existed are [startTime, id]: newest first.
  const [value, id, by = 'time', direction = 'desc'] = Array.isArray(parsed) ? parsed : [];
  const keyable = order.by === 'time'
    ? Number.isSafeInteger(value) && (value as number) >= MIN_TIMESTAMP_MS && (value as number) <= MAX_TIMESTAMP_MS
    : Number.isFinite(value);
  if (!keyable || !Number.isSafeInteger(id)) throw invalidField(['query', 'cursor'], 'Not a cursor returned by this endpoint');
  if (by !== order.by || direction !== order.direction) {
    throw invalidField(['query', 'cursor'], `This cursor belongs to a list sorted by ${String(by)} ${String(direction)}; start again without it`);
  }
  return { value: value as number, id: id as number };
}

type Rollup = ReturnType<RequestStatsStore['rollups']>[number];
type Bucket = ReturnType<RequestStatsStore['buckets']>[number];

/** Totals, per day and per model, each with latency percentiles from the merged histograms. */
function summarize(rollups: Rollup[], buckets: { total: Bucket[]; day: Bucket[]; model: Bucket[] }) {
  type Acc = { requests: number; errors: number; cost: number; input_tokens: number; output_tokens: number; latency_ms_sum: number; hist: Map<number, number> };
  const fresh = (): Acc => ({ requests: 0, errors: 0, cost: 0, input_tokens: 0, output_tokens: 0, latency_ms_sum: 0, hist: new Map() });
  const total = fresh();
  const byDay = new Map<string, Acc>();
  const byModel = new Map<string, Acc & { provider: string; model: string }>();
  const dayOf = (day: string) => byDay.get(day) ?? byDay.set(day, fresh()).get(day)!;
  const modelOf = (provider: string, model: string) => {
    const key = JSON.stringify([provider, model]);
    return byModel.get(key) ?? byModel.set(key, { ...fresh(), provider, model }).get(key)!;
  };
  for (const r of rollups) {
    for (const acc of [total, dayOf(r.day), modelOf(r.provider, r.model)]) {
      acc.requests += r.requests;
      acc.errors += r.errors;
      acc.cost += r.cost;
      acc.input_tokens += r.input_tokens;
      acc.output_tokens += r.output_tokens;
      acc.latency_ms_sum += r.latency_ms_sum;
    }
  }
  const add = (acc: Acc, b: Bucket) => acc.hist.set(b.bucket, (acc.hist.get(b.bucket) ?? 0) + b.requests);
  for (const b of buckets.total) add(total, b);
  for (const b of buckets.day) add(dayOf(b.day), b);
  for (const b of buckets.model) add(modelOf(b.provider, b.model), b);
  const shape = ({ hist, latency_ms_sum, ...acc }: Acc) => {
    const [p50, p95, p99] = percentiles(hist, [50, 95, 99]);
    return {
      ...acc,
      cost: Math.round(acc.cost * 1e6) / 1e6,
      latency_ms: { avg: acc.requests ? Math.round(latency_ms_sum / acc.requests) : 0, p50, p95, p99 },
    };
  };
  return {
    totals: shape(total),
    by_day: [...byDay.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([day, acc]) => ({ day, ...shape(acc) })),
    by_model: [...byModel.values()]
      .sort((a, b) => b.requests - a.requests)
      .map(({ provider, model, ...acc }) => ({ provider, model, ...shape(acc) })),
  };
}
