import { useEffect, useRef, useState } from 'react';
import { errorText, type Query } from '../../api/client';
import { useApi, useLoad } from '../../api/context';
import type { RequestItem, RequestPage } from '../../api/types';
import { ChatView } from '../../components/chat-view';
import { fmtCost, fmtMs, fmtTime } from '../../components/format';
import { isTyping } from '../../components/shortcuts';
import { navigate, setParams, useLocation } from '../../router';
import { QueueSetup, queueFilterText } from './queue-setup';

/** Score keys: 1–5 give 20, 40, 60, 80, 100 (a five-point scale on the API's 0–100); 0 gives 0. */
export const SCORE_KEYS: Record<string, number> = { '0': 0, '1': 20, '2': 40, '3': 60, '4': 80, '5': 100 };
/** A queue is a snapshot of at most this many requests, newest first: scoring one does not reshuffle the rest. */
const MAX_QUEUE = 1000;
const PAGE = 200;

/** The queue's filters in the page URL, as the explorer API's query; without `scored` the queue
 * holds the requests not scored yet (`scored=any` takes all). */
function queueQuery(params: URLSearchParams): Query {
  const scored = params.get('scored') ?? 'false';
  return {
    tags: params.getAll('tag'),
    model: params.get('model') ?? undefined,
    scored: scored === 'any' ? undefined : scored,
  };
}

async function loadQueue(api: ReturnType<typeof useApi>, query: Query, signal: AbortSignal) {
  const items: RequestItem[] = [];
  let cursor: string | null = null;
  do {
    const page: RequestPage = await api<RequestPage>('/api/public/v2/requests', { signal, query: { ...query, limit: PAGE, cursor: cursor ?? undefined } });
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor && items.length < MAX_QUEUE);
  return { items: items.slice(0, MAX_QUEUE), truncated: cursor !== null || items.length > MAX_QUEUE };
}

/**
 * Human review, one request at a time: pick requests by filter ("tag prod, not yet scored"),
 * then score each with a key, add a note, go on. Scores and notes are saved as they are given
 * (`PATCH /api/public/v2/requests/{id}`), so leaving half way loses nothing.
 */
export function ReviewQueuePage() {
  const api = useApi();
  const { params } = useLocation();
  const scoreName = params.get('name') || 'default';
  const filterKey = JSON.stringify(queueQuery(params));
  const queue = useLoad((a, signal) => loadQueue(a, JSON.parse(filterKey) as Query, signal), [filterKey]);
  const [index, setIndex] = useState(0);
  const [given, setGiven] = useState<Map<number, number>>(new Map());
  const [skipped, setSkipped] = useState<Set<number>>(new Set());
  const [notes, setNotes] = useState<Map<number, string>>(new Map());
  const [error, setError] = useState<string | null>(null);
  const noteRef = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    setIndex(0);
    setGiven(new Map());
    setSkipped(new Set());
    setNotes(new Map());
  }, [filterKey, scoreName]);

  const items = queue.data?.items ?? [];
  const current = items[index] as RequestItem | undefined;
  const note = current ? (notes.get(current.id) ?? current.note ?? '') : '';
  const noteChanged = current !== undefined && note !== (current.note ?? '');

  const patch = async (body: { note?: string | null; scores?: Record<string, number> }) => {
    if (!current) return false;
    setError(null);
    try {
      await api<RequestItem>(`/api/public/v2/requests/${current.id}`, { method: 'PATCH', body });
      return true;
    } catch (e) {
      setError(errorText(e));
      return false;
    }
  };
  const noteBody = () => (noteChanged ? { note: note.trim() === '' ? null : note } : {});
  const advance = () => setIndex((i) => Math.min(items.length, i + 1));

  const score = async (value: number) => {
    if (!current) return;
    if (!(await patch({ scores: { [scoreName]: value }, ...noteBody() }))) return;
    setGiven((m) => new Map(m).set(current.id, value));
    setSkipped((s) => (s.delete(current.id), new Set(s)));
    advance();
  };
  const next = async () => {
    if (noteChanged && !(await patch(noteBody()))) return;
    advance();
  };
  const skip = () => {
    if (!current) return;
    setSkipped((s) => new Set(s).add(current.id));
    advance();
  };

  // Capture phase on window: the score keys 0–5 are also the app's page shortcuts, which listen on
  // document; here they score.
  const handler = useRef<(event: KeyboardEvent) => void>(() => {});
  handler.current = (event) => {
    if (isTyping(event) || event.metaKey || event.ctrlKey || event.altKey || !current) return;
    const key = event.key.toLowerCase();
    let act: (() => unknown) | undefined;
    if (key in SCORE_KEYS) act = () => score(SCORE_KEYS[key]);
    else if (key === 'n' || event.key === 'ArrowRight') act = next;
    else if (key === 's') act = skip;
    else if (key === 'p' || event.key === 'ArrowLeft') act = () => setIndex((i) => Math.max(0, i - 1));
    else if (key === 'e') act = () => noteRef.current?.focus();
    if (!act) return;
    event.preventDefault();
    event.stopPropagation();
    void act();
  };
  useEffect(() => {
    const listener = (event: KeyboardEvent) => handler.current(event);
    window.addEventListener('keydown', listener, true);
    return () => window.removeEventListener('keydown', listener, true);
  }, []);

  const total = items.length;
  const position = Math.min(index + 1, total);
  return (
    <div className="page">
      <div className="page-head">
        <h1>Review queue</h1>
        {total > 0 ? (
          <span className="muted" data-testid="review-progress" aria-live="polite">
            {index >= total ? `Done · ${total} of ${total}` : `${position} of ${total}${queue.data?.truncated ? '+' : ''}`}
          </span>
        ) : null}
        {total > 0 ? (
          <div className="progress" aria-hidden="true" style={{ maxWidth: 240 }}>
            <div style={{ width: `${(Math.min(index, total) / total) * 100}%` }} />
          </div>
        ) : null}
        <span className="spacer" />
        <span className="muted">
          {given.size} scored · {skipped.size} skipped
        </span>
      </div>
      <QueueSetup params={params} scoreName={scoreName} />
      <div className="page-body">
        {queue.error ? <p className="error" role="alert">{queue.error}</p> : null}
        {queue.loading && !queue.data ? <p className="muted">Loading the queue…</p> : null}
        {queue.data && total === 0 ? <EmptyQueue params={params} /> : null}
        {queue.data && total > 0 && index >= total ? (
          <div className="empty">
            <h2>All {total} reviewed</h2>
            <p>
              {given.size} scored as “{scoreName}”, {skipped.size} skipped{total - given.size - skipped.size > 0 ? `, ${total - given.size - skipped.size} passed over` : ''}.
            </p>
            <div className="row" style={{ justifyContent: 'center' }}>
              <button type="button" onClick={() => setIndex(0)}>
                Go through again
              </button>
              <button type="button" className="primary" onClick={() => navigate(`/requests?score_name=${encodeURIComponent(scoreName)}`)}>
                See scored requests
              </button>
            </div>
          </div>
        ) : null}
        {current ? (
          <div className="stack" style={{ maxWidth: 980 }} aria-label={`Reviewing request ${current.id}`}>
            <div className="row">
              <b>#{current.id}</b>
              <span className="muted">{fmtTime(current.request_start_time)}</span>
              <span>
                {current.provider} / <b>{current.model}</b>
              </span>
              <span className="muted">
                {fmtMs(current.latency_ms)} · {fmtCost(current.price)}
              </span>
              {current.tags.map((t) => (
                <span key={t} className="badge">
                  {t}
                </span>
              ))}
              <span className="grow" />
              {Object.entries(current.scores).map(([n, v]) => (
                <span key={n} className="badge accent">
                  {n}: {given.has(current.id) && n === scoreName ? given.get(current.id) : v}
                </span>
              ))}
              {given.has(current.id) && !(scoreName in current.scores) ? <span className="badge accent">{scoreName}: {given.get(current.id)}</span> : null}
            </div>
            <section className="card">
              <h3 style={{ marginTop: 0 }}>Input</h3>
              <ChatView template={current.input} label="Input" />
            </section>
            <section className="card">
              <h3 style={{ marginTop: 0 }}>Output</h3>
              <ChatView template={current.output} label="Output" />
            </section>
            <label>
              Note <span className="muted">(e to edit, Esc to leave; saved with the score or on next)</span>
              <textarea
                ref={noteRef}
                aria-label="Review note"
                rows={2}
                value={note}
                onChange={(e) => setNotes((m) => new Map(m).set(current.id, e.target.value))}
                onKeyDown={(e) => {
                  if (e.key === 'Escape') e.currentTarget.blur();
                }}
              />
            </label>
            <div className="row" role="toolbar" aria-label="Score">
              <span className="muted">Score “{scoreName}”:</span>
              {Object.entries(SCORE_KEYS).map(([key, value]) => (
                <button key={key} type="button" onClick={() => void score(value)} title={`Key ${key}`}>
                  <kbd>{key}</kbd> {value}
                </button>
              ))}
              <span className="grow" />
              <button type="button" onClick={() => setIndex((i) => Math.max(0, i - 1))} disabled={index === 0}>
                <kbd>p</kbd> Previous
              </button>
              <button type="button" onClick={skip}>
                <kbd>s</kbd> Skip
              </button>
              <button type="button" className="primary" onClick={() => void next()}>
                <kbd>n</kbd> Next →
              </button>
            </div>
            {error ? <p className="error" role="alert">{error}</p> : null}
          </div>
        ) : null}
      </div>
    </div>
  );
}

function EmptyQueue({ params }: { params: URLSearchParams }) {
  const filters = queueFilterText(params);
  const onlyUnscored = (params.get('scored') ?? 'false') === 'false';
  return (
    <div className="empty">
      <h2>Nothing to review</h2>
      {/* Without filters (scored=any, no tag, no model) the queue is every request there is. */}
      <p>{filters ? `No request matches the queue’s filters: ${filters}.` : 'No requests have been logged yet.'}</p>
      {onlyUnscored ? <p>Requests that already have a score are left out; include them to look at them again.</p> : null}
      <div className="row" style={{ justifyContent: 'center' }}>
        {onlyUnscored ? (
          <button type="button" onClick={() => setParams({ scored: 'any' })}>
            Include scored requests
          </button>
        ) : null}
        <button type="button" onClick={() => navigate('/requests')}>
          Browse requests
        </button>
      </div>
      <p className="muted">Requests arrive from your app through the PromptLayer SDK, OpenTelemetry or /log-request; tag them (e.g. “prod”) to queue them here.</p>
    </div>
  );
}
