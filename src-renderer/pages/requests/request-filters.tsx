import { useEffect, useRef, useState } from 'react';
import { useLoad } from '../../api/context';
import type { Page, PromptListItem, RequestStats } from '../../api/types';
import { useShortcut, isTyping } from '../../components/shortcuts';
import { setParams } from '../../router';
import { ReviewFilters } from '../review/review-filters';
import { RANGES } from './filter-params';

/** A moment as a `datetime-local` value (local time, minutes). */
const toLocalInput = (ms: number) => {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
};

/** Typing waits this long before the URL (and the query) follows, so each keystroke is not a request. */
const SEARCH_DEBOUNCE_MS = 250;

function ChipInput({ label, values, placeholder, onChange }: { label: string; values: string[]; placeholder: string; onChange: (v: string[]) => void }) {
  const [draft, setDraft] = useState('');
  return (
    <label>
      <span className="sr-only">{label}</span>
      <span className="row" style={{ gap: 4, flexWrap: 'nowrap' }}>
        {values.map((v) => (
          <span key={v} className="badge accent">
            {v}
            <button type="button" className="ghost small" aria-label={`Remove ${v}`} onClick={() => onChange(values.filter((x) => x !== v))}>
              ✕
            </button>
          </span>
        ))}
        <input
          aria-label={label}
          value={draft}
          placeholder={placeholder}
          style={{ width: 120 }}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && draft.trim()) {
              e.preventDefault();
              if (!values.includes(draft.trim())) onChange([...values, draft.trim()]);
              setDraft('');
            }
          }}
        />
      </span>
    </label>
  );
}

export function RequestFilters({ params }: { params: URLSearchParams }) {
  const [q, setQ] = useState(params.get('q') ?? '');
  const searchRef = useRef<HTMLInputElement>(null);
  const models = useLoad((api, signal) => api<RequestStats>('/api/public/v2/requests/stats', { signal }), []);
  const prompts = useLoad((api, signal) => api<Page<PromptListItem>>('/prompt-templates', { signal, query: { per_page: 100 } }), []);

  const urlQ = params.get('q') ?? '';
  useEffect(() => {
    if (urlQ === q) return;
    const timer = setTimeout(() => setParams({ q, request: null }), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [q, urlQ]);

  useShortcut((event) => {
    if (event.key === '/' && !isTyping(event)) {
      event.preventDefault();
      searchRef.current?.focus();
    }
  });

  const byModel = models.data?.by_model ?? [];
  const providers = [...new Set(byModel.map((m) => m.provider))];
  const select = (key: string) => ({
    value: params.get(key) ?? '',
    onChange: (e: { target: { value: string } }) => setParams({ [key]: e.target.value || null, request: null }),
  });
  // The open request and the sort order are not filters: clearing keeps them.
  const filterKeys = [...new Set(params.keys())].filter((k) => !['request', 'sort', 'order'].includes(k));
  const active = filterKeys.length > 0;

  return (
    <div className="filters" role="search">
      <label className="search">
        <input
          ref={searchRef}
          type="search"
          aria-label="Search"
          placeholder="Search input and output…   ( / )"
          value={q}
          onChange={(e) => setQ(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') setParams({ q, request: null });
            if (e.key === 'Escape') (e.target as HTMLInputElement).blur();
          }}
        />
      </label>
      <label>
        <span className="sr-only">Model</span>
        <select aria-label="Model" {...select('model')}>
          <option value="">Any model</option>
          {byModel.map((m) => (
            <option key={`${m.provider}/${m.model}`} value={m.model}>
              {m.model}
            </option>
          ))}
          {params.get('model') && !byModel.some((m) => m.model === params.get('model')) ? <option>{params.get('model')}</option> : null}
        </select>
      </label>
      <label>
        <span className="sr-only">Provider</span>
        <select aria-label="Provider" {...select('provider')}>
          <option value="">Any provider</option>
          {providers.map((p) => (
            <option key={p}>{p}</option>
          ))}
          {params.get('provider') && !providers.includes(params.get('provider')!) ? <option>{params.get('provider')}</option> : null}
        </select>
      </label>
      <label>
        <span className="sr-only">Status</span>
        <select aria-label="Status" {...select('status')}>
          <option value="">Any status</option>
          <option>SUCCESS</option>
          <option>WARNING</option>
          <option>ERROR</option>
        </select>
      </label>
      <label>
        <span className="sr-only">Time</span>
        <select
          aria-label="Time range"
          value={params.get('range') ?? (params.get('from') || params.get('to') ? 'custom' : '')}
          onChange={(e) =>
            e.target.value === 'custom'
              ? setParams({ range: null, from: toLocalInput(Date.now() - 86400_000), request: null })
              : setParams({ range: e.target.value || null, from: null, to: null, request: null })
          }
        >
          <option value="">All time</option>
          {Object.keys(RANGES).map((r) => (
            <option key={r} value={r}>
              Last {r}
            </option>
          ))}
          <option value="custom">Custom…</option>
        </select>
      </label>
      {params.get('from') || params.get('to') ? (
        <span className="row" style={{ flexWrap: 'nowrap', gap: 4 }}>
          <input aria-label="From" type="datetime-local" {...select('from')} />
          <span className="muted">→</span>
          <input aria-label="To" type="datetime-local" {...select('to')} />
        </span>
      ) : null}
      <label>
        <span className="sr-only">Score</span>
        <span className="row" style={{ flexWrap: 'nowrap', gap: 4 }}>
          <input aria-label="Minimum score" type="number" min={0} max={100} style={{ width: 78 }} placeholder="score ≥" {...select('score_min')} />
          <input aria-label="Maximum score" type="number" min={0} max={100} style={{ width: 78 }} placeholder="score ≤" {...select('score_max')} />
        </span>
      </label>
      <ReviewFilters params={params} />
      <ChipInput label="Tags" placeholder="tag ↵" values={params.getAll('tag')} onChange={(tag) => setParams({ tag, request: null })} />
      <ChipInput label="Metadata" placeholder="key=value ↵" values={params.getAll('meta')} onChange={(meta) => setParams({ meta, request: null })} />
      <label>
        <span className="sr-only">Prompt</span>
        <select aria-label="Prompt" {...select('prompt_id')}>
          <option value="">Any prompt</option>
          {(prompts.data?.items ?? []).map((p) => (
            <option key={p.id} value={p.id}>
              {p.prompt_name}
            </option>
          ))}
          {params.get('prompt_id') && !prompts.data?.items.some((p) => String(p.id) === params.get('prompt_id')) ? (
            <option value={params.get('prompt_id')!}>#{params.get('prompt_id')}</option>
          ) : null}
        </select>
      </label>
      {params.get('prompt_id') ? (
        <label>
          <span className="sr-only">Prompt version</span>
          <input aria-label="Prompt version" type="number" min={1} style={{ width: 92 }} placeholder="any version" {...select('prompt_version')} />
        </label>
      ) : null}
      {active ? (
        <button
          type="button"
          className="ghost"
          onClick={() => {
            setQ('');
            setParams({ ...Object.fromEntries(filterKeys.map((k) => [k, null])), request: null });
          }}
        >
          Clear filters
        </button>
      ) : null}
    </div>
  );
}
