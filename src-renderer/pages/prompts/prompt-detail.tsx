import { useState } from 'react';
import { errorText } from '../../api/client';
import { useApi, useLoad } from '../../api/context';
import type { Page, PromptListItem, PromptVersion, ReleaseLabel } from '../../api/types';
import { ChatView } from '../../components/chat-view';
import { fmtTime } from '../../components/format';
import { ItemActions } from '../../components/item-actions';
import { JsonView } from '../../components/json-view';
import { setParams, useLocation } from '../../router';
import { PromptDiff } from './prompt-diff';
import { PromptEditor } from './prompt-editor';
import { PromptTry } from './prompt-try';

type Tab = 'version' | 'diff' | 'try';

export function PromptDetail({ id, onChanged }: { id: number; onChanged: () => void }) {
  const api = useApi();
  const { params } = useLocation();
  const [editing, setEditing] = useState(false);
  const [labelName, setLabelName] = useState('production');
  const [error, setError] = useState<string | null>(null);
  const head = useLoad((a, signal) => a<PromptListItem>(`/prompt-templates/${id}`, { signal }), [id]);
  const versions = useLoad((a, signal) => a<Page<PromptVersion>>(`/api/public/v2/prompt-templates/${id}/versions`, { signal, query: { per_page: 100 } }), [id]);
  const labels = useLoad((a, signal) => a<{ release_labels: ReleaseLabel[] }>(`/prompt-templates/${id}/labels`, { signal }), [id]);

  const items = versions.data?.items ?? [];
  const current = items.find((v) => v.version_number === Number(params.get('version'))) ?? items[0];
  const tab = (params.get('tab') as Tab | null) ?? 'version';
  const refresh = () => {
    head.reload();
    versions.reload();
    labels.reload();
    onChanged();
  };

  const moveLabel = async () => {
    if (!current || !labelName.trim()) return;
    setError(null);
    const existing = labels.data?.release_labels.find((l) => l.name === labelName.trim());
    if (existing?.prompt_version_number === current.version_number) return;
    // Apps fetch a prompt by label: moving one changes what they run at once, so it is confirmed.
    if (existing && !confirm(`Move “${existing.name}” from v${existing.prompt_version_number} to v${current.version_number}? Apps that fetch this prompt by “${existing.name}” will get v${current.version_number} right away.`)) return;
    try {
      if (existing) await api(`/prompt-labels/${existing.id}`, { method: 'PATCH', body: { prompt_version_number: current.version_number } });
      else await api(`/prompts/${id}/label`, { body: { name: labelName.trim(), prompt_version_number: current.version_number } });
      refresh();
    } catch (e) {
      setError(errorText(e));
    }
  };

  if (versions.error || head.error) return <div className="pane error">{versions.error ?? head.error}</div>;
  if (!current || !head.data) return <div className="pane muted">Loading…</div>;
  const model = current.metadata?.model;

  return (
    <div className="pane" aria-label={`Prompt ${head.data.prompt_name}`}>
      <div className="row">
        <h1>{head.data.prompt_name}</h1>
        {head.data.tags.map((t) => (
          <span key={t} className="badge">{t}</span>
        ))}
        <span className="spacer grow" />
        <ItemActions
          kind="prompt"
          name={head.data.prompt_name}
          onArchive={async () => {
            await api(`/api/public/v2/prompt-templates/${id}`, { method: 'DELETE' });
            setParams({ template: null, version: null, compare: null });
            onChanged();
          }}
          archiveNote="Logged requests keep their link to its versions, and the name can be published again."
        />
        <button type="button" className="primary" onClick={() => setEditing(true)}>
          New version
        </button>
      </div>
      {editing ? (
        <PromptEditor
          title={`New version of ${head.data.prompt_name}`}
          name={head.data.prompt_name}
          base={current}
          onClose={() => setEditing(false)}
          onPublished={(_, version) => {
            setEditing(false);
            refresh();
            setParams({ version: String(version), tab: null });
          }}
        />
      ) : null}
      {/* Columns in styles.css (`.prompt-layout`): the history stacks above the version in a narrow window. */}
      <div className="prompt-layout">
        <section className="card" style={{ padding: 0 }} aria-label="Version history">
          <table className="grid">
            <thead>
              <tr>
                <th>Version</th>
                <th>Labels · message</th>
              </tr>
            </thead>
            <tbody>
              {items.map((v) => (
                <tr
                  key={v.id}
                  tabIndex={0}
                  className={`clickable ${v === current ? 'selected' : ''}`}
                  aria-selected={v === current}
                  onClick={() => setParams({ version: String(v.version_number) })}
                  onKeyDown={(e) => e.key === 'Enter' && setParams({ version: String(v.version_number) })}
                >
                  <td>
                    <b>v{v.version_number}</b>
                    <div className="muted" style={{ fontSize: 11 }}>{fmtTime(v.created_at)}</div>
                  </td>
                  <td>
                    {v.release_labels.map((l) => (
                      <span key={l} className="badge accent" style={{ marginRight: 4 }}>{l}</span>
                    ))}
                    <div>{v.commit_message ?? <span className="muted">—</span>}</div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
        <div className="stack" style={{ minWidth: 0 }}>
          <div className="row">
            <div className="tabs grow" role="tablist">
              {(['version', 'diff', 'try'] as const).map((t) => (
                <button key={t} type="button" role="tab" aria-selected={tab === t} className={tab === t ? 'active' : ''} onClick={() => setParams({ tab: t === 'version' ? null : t })}>
                  {t === 'version' ? `Version ${current.version_number}` : t === 'diff' ? 'Compare versions' : 'Try it'}
                </button>
              ))}
            </div>
          </div>
          {tab === 'version' ? (
            <>
              <div className="row">
                <span className="muted">Label this version:</span>
                <input aria-label="Label name" list="label-names" value={labelName} onChange={(e) => setLabelName(e.target.value)} style={{ width: 160 }} />
                <datalist id="label-names">
                  {(labels.data?.release_labels ?? []).map((l) => (
                    <option key={l.id} value={l.name} />
                  ))}
                </datalist>
                <LabelButton labels={labels.data?.release_labels ?? []} name={labelName.trim()} version={current.version_number} onClick={() => void moveLabel()} />
                {error ? <span className="error" role="alert">{error}</span> : null}
              </div>
              {model ? (
                <dl className="kv">
                  <dt>Model</dt>
                  <dd>
                    {model.provider} / <b>{model.name}</b>
                  </dd>
                  <dt>Parameters</dt>
                  <dd className="mono">{JSON.stringify(model.parameters ?? {})}</dd>
                  {current.commit_message ? (
                    <>
                      <dt>Message</dt>
                      <dd>{current.commit_message}</dd>
                    </>
                  ) : null}
                </dl>
              ) : null}
              <ChatView template={current.prompt_template} label="Template" />
              {Object.keys(current.metadata ?? {}).some((k) => k !== 'model') ? (
                <JsonView value={Object.fromEntries(Object.entries(current.metadata).filter(([k]) => k !== 'model'))} label="Metadata" />
              ) : null}
            </>
          ) : null}
          {tab === 'diff' ? <PromptDiff versions={items} /> : null}
          {tab === 'try' ? (
            <PromptTry
              key={current.id}
              templateId={id}
              name={head.data.prompt_name}
              version={current}
              onPublished={(version) => {
                refresh();
                setParams({ version: String(version) });
              }}
            />
          ) : null}
        </div>
      </div>
    </div>
  );
}

/** "Add label", "Move label here", or nothing to do when the label already points at this version. */
function LabelButton({ labels, name, version, onClick }: { labels: ReleaseLabel[]; name: string; version: number; onClick: () => void }) {
  const existing = labels.find((l) => l.name === name);
  const here = existing?.prompt_version_number === version;
  return (
    <button type="button" onClick={onClick} disabled={!name || here}>
      {here ? 'Label is on this version' : existing ? `Move label here (from v${existing.prompt_version_number})` : 'Add label'}
    </button>
  );
}
