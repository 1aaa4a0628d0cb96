import { useState } from 'react';
import { useLoad } from '../../api/context';
import type { RequestItem } from '../../api/types';
import { ChatView } from '../../components/chat-view';
import { CopyButton } from '../../components/copy-button';
import { fmtInt, fmtMs, fmtRelative, fmtTime } from '../../components/format';
import { searchTerms } from '../../components/highlighted-text';
import { JsonView } from '../../components/json-view';
import { navigate } from '../../router';
import { priceText, tokensMissing } from './request-figures';
import { ReviewPanel } from '../review/review-panel';
import { statusClass } from './request-table';
import { TagChips } from './tag-chips';

interface JsonSchemaFormat {
  type: 'json_schema';
  json_schema?: { name?: string; schema?: unknown; strict?: boolean };
}

function structuredFormat(parameters: Record<string, unknown>): JsonSchemaFormat | null {
  const format = parameters.response_format as { type?: string } | undefined;
  return format?.type === 'json_schema' ? (format as JsonSchemaFormat) : null;
}

/** The assistant's text parsed as JSON, when the request asked for structured output. */
function parsedOutput(output: unknown): unknown {
  const o = output as { type?: string; messages?: { content?: { type?: string; text?: string }[] | string }[]; content?: { text?: string }[] };
  const blocks = o?.type === 'chat' ? o.messages?.[o.messages.length - 1]?.content : o?.content;
  const text = typeof blocks === 'string' ? blocks : (blocks ?? []).map((b) => b.text ?? '').join('');
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

type Tab = 'chat' | 'parameters' | 'raw';

function CloseButton({ onClose }: { onClose: () => void }) {
  return (
    <button type="button" className="ghost" aria-label="Close detail" title="Close (Esc)" onClick={onClose}>
      ✕
    </button>
  );
}

interface Props {
  id: number;
  /** The list's search text: its terms are marked in the input and output. */
  highlight?: string | null;
  filteredTags?: string[];
  onClose: () => void;
  /** A review saved in the detail, for the list to show it. */
  onChanged?: (r: RequestItem) => void;
}

export function RequestDetail({ id, highlight = null, filteredTags = [], onClose, onChanged }: Props) {
  const { data: r, error, reload } = useLoad((api, signal) => api<RequestItem>(`/api/public/v2/requests/${id}`, { signal }), [id]);
  const [tab, setTab] = useState<Tab>('chat');
  const terms = searchTerms(highlight);
  if (error) {
    return (
      <aside className="detail" aria-label={`Request ${id}`}>
        <div className="detail-head">
          <h2 style={{ margin: 0 }}>Request #{id}</h2>
          <span className="grow" />
          <CloseButton onClose={onClose} />
        </div>
        <div className="detail-body error" role="alert">{error}</div>
      </aside>
    );
  }
  if (!r || r.id !== id) return <aside className="detail" aria-busy="true"><div className="detail-body muted">Loading…</div></aside>;
  const format = structuredFormat(r.parameters);
  const structured = format ? parsedOutput(r.output) : undefined;
  return (
    <aside className="detail" aria-label={`Request ${r.id}`}>
      <div className="detail-head">
        <h2 style={{ margin: 0 }}>Request #{r.id}</h2>
        <span className={`badge ${statusClass(r.status)}`}>{r.status.toLowerCase()}</span>
        <span className="grow" />
        <CopyButton text={String(r.id)} label="Copy id" />
        <CloseButton onClose={onClose} />
      </div>
      <div className="detail-body">
        <dl className="kv">
          <dt>Model</dt>
          <dd>
            {r.provider} / <b>{r.model}</b>
          </dd>
          <dt>Started</dt>
          <dd title={r.request_start_time}>
            {fmtTime(r.request_start_time)} <span className="muted">· {fmtRelative(r.request_start_time)}</span>
          </dd>
          <dt>Latency</dt>
          <dd>{fmtMs(r.latency_ms)}</dd>
          <dt>Tokens</dt>
          <dd>
            {tokensMissing(r) ? <span className="muted">— not reported</span> : `${fmtInt(r.input_tokens)} in · ${fmtInt(r.output_tokens)} out`}
          </dd>
          <dt>Price</dt>
          <dd>{priceText(r) === '—' ? <span className="muted">— not reported</span> : priceText(r)}</dd>
          {r.tags.length ? (
            <>
              <dt>Tags</dt>
              <dd className="row">
                <TagChips tags={r.tags} filtered={filteredTags} />
              </dd>
            </>
          ) : null}
          {r.prompt_name || r.prompt_id ? (
            <>
              <dt>Prompt</dt>
              <dd>
                <a
                  href={`/prompts?template=${r.prompt_id ?? ''}`}
                  onClick={(e) => {
                    e.preventDefault();
                    if (r.prompt_id) navigate(`/prompts?template=${r.prompt_id}${r.prompt_version_number ? `&version=${r.prompt_version_number}` : ''}`);
                  }}
                >
                  {r.prompt_name ?? `#${r.prompt_id}`}
                  {r.prompt_version_number ? ` v${r.prompt_version_number}` : ''}
                </a>
                {r.prompt_version?.commit_message ? <span className="muted"> — {r.prompt_version.commit_message}</span> : null}
              </dd>
            </>
          ) : null}
          {r.function_name ? (
            <>
              <dt>Function</dt>
              <dd className="mono">{r.function_name}</dd>
            </>
          ) : null}
          {r.trace_id ? (
            <>
              <dt>Trace</dt>
              <dd>
                <a
                  href={`/traces?trace=${r.trace_id}&span=${r.span_id ?? ''}`}
                  onClick={(e) => {
                    e.preventDefault();
                    navigate(`/traces?trace=${r.trace_id}${r.span_id ? `&span=${r.span_id}` : ''}`);
                  }}
                >
                  Open trace
                </a>
              </dd>
            </>
          ) : null}
          {r.group_id ? (
            <>
              <dt>Group</dt>
              <dd>#{r.group_id}</dd>
            </>
          ) : null}
        </dl>
        <ReviewPanel
          request={r}
          onSaved={(saved) => {
            reload();
            onChanged?.(saved);
          }}
        />
        {r.error_message || r.error_type ? (
          <div className="card" style={{ borderColor: 'var(--bad)' }}>
            <h3>Error</h3>
            <div className="mono error">
              {r.error_type ? <b>{r.error_type}: </b> : null}
              {r.error_message}
            </div>
          </div>
        ) : null}
        {Object.keys(r.metadata).length ? (
          <section>
            <h3>Metadata</h3>
            <table className="grid">
              <tbody>
                {Object.entries(r.metadata).map(([k, v]) => (
                  <tr key={k}>
                    <td className="mono muted">{k}</td>
                    <td className="mono">{v}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        ) : null}
        <div className="tabs" role="tablist">
          {(['chat', 'parameters', 'raw'] as const).map((t) => (
            <button key={t} type="button" role="tab" aria-selected={tab === t} className={tab === t ? 'active' : ''} onClick={() => setTab(t)}>
              {t === 'chat' ? 'Input / output' : t === 'parameters' ? 'Parameters' : 'Raw JSON'}
            </button>
          ))}
        </div>
        {tab === 'chat' ? (
          <>
            {Object.keys(r.prompt_input_variables ?? {}).length ? (
              <section>
                <h3>Input variables</h3>
                <JsonView value={r.prompt_input_variables} />
              </section>
            ) : null}
            <section>
              <h3>Input</h3>
              <ChatView template={r.input} label="Input" highlight={terms} />
            </section>
            <section>
              <h3>Output</h3>
              <ChatView template={r.output} label="Output" highlight={terms} />
            </section>
            {format ? (
              <section aria-label="Structured output">
                <h3>Structured output {format.json_schema?.name ? `· ${format.json_schema.name}` : ''}</h3>
                {structured !== undefined ? <JsonView value={structured} label="Parsed output" /> : <p className="muted">The output is not valid JSON.</p>}
                <details>
                  <summary className="muted">JSON schema{format.json_schema?.strict ? ' (strict)' : ''}</summary>
                  <JsonView value={format.json_schema?.schema ?? format} label="JSON schema" />
                </details>
              </section>
            ) : null}
          </>
        ) : null}
        {tab === 'parameters' ? <JsonView value={r.parameters} label="Parameters" /> : null}
        {tab === 'raw' ? <JsonView value={r} label="Raw request" /> : null}
      </div>
    </aside>
  );
}
