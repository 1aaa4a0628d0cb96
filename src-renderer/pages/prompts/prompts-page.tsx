import { useEffect, useState } from 'react';
import { useLoad } from '../../api/context';
import type { Page, PromptListItem } from '../../api/types';
import { countOf, fmtTime } from '../../components/format';
import { navigate, setParams, useLocation } from '../../router';
import { PromptDetail } from './prompt-detail';
import { PromptEditor } from './prompt-editor';
import { FoldersDialog } from './folders-dialog';
import { moveFocusInList } from '../../components/shortcuts';

/** `/prompts/<name>`: the template's name, URL-decoded; null on `/prompts` itself. */
function nameInPath(path: string): string | null {
  const match = /^\/prompts\/([^/]+)\/?$/.exec(path);
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1];
  }
}

export function PromptsPage() {
  const { path } = useLocation();
  const name = nameInPath(path);
  return name === null ? <PromptRegistry /> : <PromptByName name={name} />;
}

/**
 * A deep link by name resolves to the template's id on the server (names are unique per
 * workspace, and the named one may be outside the first page of the list), then becomes the
 * page's canonical `?template=<id>` URL; until then nothing of another prompt is shown.
 */
function PromptByName({ name }: { name: string }) {
  const { params } = useLocation();
  const found = useLoad((api, signal) => api<PromptListItem>(`/prompt-templates/${encodeURIComponent(name)}`, { signal }), [name]);
  const id = found.data?.id;
  useEffect(() => {
    if (id === undefined) return;
    const query = new URLSearchParams(params);
    query.set('template', String(id));
    navigate(`/prompts?${query.toString()}`, { replace: true });
  }, [id, params]);
  return (
    <div className="page">
      <div className="page-head">
        <h1>Prompts</h1>
      </div>
      {found.error ? (
        <p className="error" role="alert" style={{ padding: '8px 20px' }}>
          {found.error}
        </p>
      ) : (
        <p className="muted" style={{ padding: '8px 20px' }}>
          Opening “{name}”…
        </p>
      )}
    </div>
  );
}

function PromptRegistry() {
  const { params } = useLocation();
  const [filter, setFilter] = useState('');
  const [creating, setCreating] = useState(false);
  const [folders, setFolders] = useState(false);
  const list = useLoad(
    (api, signal) => api<Page<PromptListItem>>('/prompt-templates', { signal, query: { per_page: 100, name: filter || undefined } }),
    [filter],
  );
  const selected = Number(params.get('template')) || list.data?.items[0]?.id || null;
  const items = list.data?.items ?? [];
  const emptyRegistry = !list.loading && items.length === 0 && !filter;

  return (
    <div className="page">
      <div className="page-head">
        <h1>Prompts</h1>
        <span className="muted">{list.data ? countOf(list.data.total, 'template') : ''}</span>
        <span className="spacer" />
        <button type="button" onClick={() => setFolders(true)}>
          Folders…
        </button>
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          + New prompt
        </button>
      </div>
      {folders ? <FoldersDialog onClose={() => setFolders(false)} /> : null}
      {creating ? (
        <PromptEditor
          title="New prompt"
          onClose={() => setCreating(false)}
          onPublished={(id) => {
            setCreating(false);
            list.reload();
            setParams({ template: String(id), version: null, compare: null }, { replace: false });
          }}
        />
      ) : null}
      {list.error ? <p className="error" role="alert" style={{ padding: '8px 20px' }}>{list.error}</p> : null}
      {emptyRegistry ? (
        <div className="empty">
          <h2>No prompt templates yet</h2>
          <p>
            Keep prompts here instead of in code: every change is a numbered, immutable version, and release labels such as{' '}
            <code>production</code> pick which one your app fetches with <code>promptlayer.templates.get(name)</code>.
          </p>
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            Create your first prompt
          </button>
        </div>
      ) : (
        <div className="split">
          <div className="list" role="listbox" aria-label="Prompt templates" onKeyDown={moveFocusInList}>
            <div style={{ padding: 8 }}>
              <input type="search" aria-label="Filter prompts" placeholder="Filter by name…" value={filter} onChange={(e) => setFilter(e.target.value)} style={{ width: '100%' }} />
            </div>
            {items.map((p) => (
              <div
                key={p.id}
                role="option"
                tabIndex={0}
                aria-selected={p.id === selected}
                className={`list-item ${p.id === selected ? 'active' : ''}`}
                onClick={() => setParams({ template: String(p.id), version: null, compare: null }, { replace: false })}
                onKeyDown={(e) => e.key === 'Enter' && setParams({ template: String(p.id), version: null, compare: null }, { replace: false })}
              >
                <span className="title">{p.prompt_name}</span>
                <span className="row" style={{ gap: 4 }}>
                  <span className="badge">v{p.version}</span>
                  {p.release_labels.map((l) => (
                    <span key={l} className="badge accent">{l}</span>
                  ))}
                  <span className="muted" style={{ fontSize: 11 }}>{fmtTime(p.created_at)}</span>
                </span>
              </div>
            ))}
          </div>
          {selected ? <PromptDetail key={selected} id={selected} onChanged={list.reload} /> : <div />}
        </div>
      )}
    </div>
  );
}
