import { useState } from 'react';
import { errorText } from '../../api/client';
import { useApi, useLoad } from '../../api/context';
import type { Provider, ProviderClientInfo, ProviderTest } from '../../api/types';
import { countOf } from '../../components/format';

type ProviderClient = ProviderClientInfo;
type TestResult = ProviderTest;

const EMPTY = { name: '', client: 'openai', base_url: '', api_key: '' };

/** LLM providers the evaluation columns call (Ollama, LM Studio, vLLM… through an OpenAI-compatible base URL). */
export function ProvidersSection() {
  const api = useApi();
  const list = useLoad((a, signal) => a<{ items: Provider[] }>('/api/public/v2/providers', { signal }), []);
  const clients = useLoad((a, signal) => a<{ items: ProviderClient[] }>('/api/public/v2/provider-clients', { signal }), []);
  const [form, setForm] = useState(EMPTY);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<number | null>(null);
  const [tests, setTests] = useState<Record<number, TestResult | 'running'>>({});

  const add = async () => {
    setError(null);
    try {
      await api('/api/public/v2/providers', {
        body: { name: form.name.trim(), client: form.client, base_url: form.base_url.trim() || null, api_key: form.api_key || null },
      });
      setForm(EMPTY);
      list.reload();
    } catch (e) {
      setError(errorText(e));
    }
  };
  const remove = async (p: Provider) => {
    if (!confirm(`Delete provider "${p.name}"?`)) return;
    try {
      await api(`/api/public/v2/providers/${p.id}`, { method: 'DELETE' });
      list.reload();
    } catch (e) {
      setError(errorText(e));
    }
  };
  const test = async (p: Provider) => {
    setTests((t) => ({ ...t, [p.id]: 'running' }));
    try {
      const result = await api<TestResult>(`/api/public/v2/providers/${p.id}/test`, { method: 'POST' });
      setTests((t) => ({ ...t, [p.id]: result }));
    } catch (e) {
      setTests((t) => ({ ...t, [p.id]: { ok: false, latency_ms: 0, error: errorText(e) } }));
    }
  };

  const clientList = clients.data?.items ?? [];
  const clientName = (id: string) => clientList.find((c) => c.id === id)?.display_name ?? id;
  const builtIns = clientList.map((c, i) => (
    <span key={c.id}>
      {i > 0 ? ', ' : ''}
      <code>{c.id}</code> (<code>{c.api_key_env}</code>)
    </span>
  ));

  return (
    <section className="card stack" aria-label="Providers">
      <h2>Providers</h2>
      <p className="muted" style={{ margin: 0 }}>
        Built in, with keys from the server's environment: {builtIns}. Add any OpenAI-compatible server (Ollama:{' '}
        <code>http://127.0.0.1:11434/v1</code>) under its own name; it uses only the key you give it here.
      </p>
      <form
        className="row"
        style={{ alignItems: 'flex-end' }}
        onSubmit={(e) => {
          e.preventDefault();
          void add();
        }}
      >
        <label>
          Name
          <input aria-label="Provider name" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} placeholder="ollama" />
        </label>
        <label>
          Client
          <ClientSelect label="Provider client" clients={clientList} value={form.client} onChange={(client) => setForm({ ...form, client })} />
        </label>
        <label className="grow">
          Base URL
          <input aria-label="Provider base URL" value={form.base_url} onChange={(e) => setForm({ ...form, base_url: e.target.value })} placeholder="http://127.0.0.1:11434/v1" />
        </label>
        <label>
          API key
          <input aria-label="Provider API key" type="password" value={form.api_key} onChange={(e) => setForm({ ...form, api_key: e.target.value })} placeholder="optional" />
        </label>
        <button type="submit" className="primary" disabled={!form.name.trim()}>
          Add provider
        </button>
      </form>
      {error ? <p className="error" role="alert">{error}</p> : null}
      {list.error ? <p className="muted">{list.error}</p> : null}
      <table className="grid">
        <thead>
          <tr>
            <th>Name</th>
            <th>Client</th>
            <th>Base URL</th>
            <th>Key</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(list.data?.items ?? []).map((p) =>
            editing === p.id ? (
              <EditRow
                key={p.id}
                provider={p}
                clients={clientList}
                onDone={() => {
                  setEditing(null);
                  list.reload();
                }}
                onCancel={() => setEditing(null)}
              />
            ) : (
              <tr key={p.id}>
                <td><b>{p.name}</b></td>
                <td>{clientName(p.client)}</td>
                <td className="mono">{p.base_url ?? '—'}</td>
                <td className="mono">{p.api_key ?? '—'}</td>
                <td className="num">
                  <div className="row" style={{ justifyContent: 'flex-end' }}>
                    <TestOutcome result={tests[p.id]} />
                    <button type="button" className="small" onClick={() => void test(p)} disabled={tests[p.id] === 'running'}>
                      Test connection
                    </button>
                    <button type="button" className="small" onClick={() => setEditing(p.id)}>
                      Edit
                    </button>
                    <button type="button" className="small danger" onClick={() => void remove(p)}>
                      Delete
                    </button>
                  </div>
                </td>
              </tr>
            ),
          )}
          {list.data && list.data.items.length === 0 ? (
            <tr>
              <td colSpan={5} className="muted">
                No custom providers yet.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </section>
  );
}

function ClientSelect({ label, clients, value, onChange }: { label: string; clients: ProviderClient[]; value: string; onChange: (id: string) => void }) {
  return (
    <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value)}>
      {clients.length === 0 ? <option value={value}>{value}</option> : null}
      {clients.map((c) => (
        <option key={c.id} value={c.id}>
          {c.display_name}
        </option>
      ))}
    </select>
  );
}

function TestOutcome({ result }: { result: TestResult | 'running' | undefined }) {
  if (result === undefined) return null;
  if (result === 'running') return <span className="muted" role="status">Testing…</span>;
  if (result.ok) {
    const models = result.models ?? [];
    // The first few names are what the playground's Model field wants; the rest are in the tooltip.
    const shown = models.slice(0, 4).join(', ') + (models.length > 4 ? ` +${models.length - 4} more` : '');
    return (
      <>
        <span className="badge ok" role="status" title={models.join(', ')}>
          Connected · {result.latency_ms} ms · {countOf(models.length, 'model')}
        </span>
        {shown ? <span className="muted mono" data-testid="provider-models" title={models.join(', ')}>{shown}</span> : null}
      </>
    );
  }
  return (
    <span className="error" role="status" style={{ maxWidth: 360, whiteSpace: 'normal', textAlign: 'left' }}>
      Failed: {result.error}
    </span>
  );
}

/** Edits one provider in place (`PATCH`): an empty key field keeps the stored key. */
function EditRow({ provider, clients, onDone, onCancel }: { provider: Provider; clients: ProviderClient[]; onDone: () => void; onCancel: () => void }) {
  const api = useApi();
  const [form, setForm] = useState({ name: provider.name, client: provider.client as string, base_url: provider.base_url ?? '', api_key: '', clearKey: false });
  const [error, setError] = useState<string | null>(null);
  const save = async () => {
    setError(null);
    const body: Record<string, unknown> = { name: form.name.trim(), client: form.client, base_url: form.base_url.trim() || null };
    if (form.clearKey) body.api_key = null;
    else if (form.api_key) body.api_key = form.api_key;
    try {
      await api(`/api/public/v2/providers/${provider.id}`, { method: 'PATCH', body });
      onDone();
    } catch (e) {
      setError(errorText(e));
    }
  };
  return (
    <tr aria-label={`Edit provider ${provider.name}`}>
      <td>
        <input aria-label="Edit provider name" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
      </td>
      <td>
        <ClientSelect label="Edit provider client" clients={clients} value={form.client} onChange={(client) => setForm({ ...form, client })} />
      </td>
      <td>
        <input aria-label="Edit provider base URL" value={form.base_url} onChange={(e) => setForm({ ...form, base_url: e.target.value })} style={{ width: '100%' }} />
      </td>
      <td>
        <input
          aria-label="Edit provider API key"
          type="password"
          value={form.api_key}
          disabled={form.clearKey}
          onChange={(e) => setForm({ ...form, api_key: e.target.value })}
          placeholder={provider.api_key ? `keep ${provider.api_key}` : 'none'}
        />
        {provider.api_key ? (
          <label style={{ flexDirection: 'row', alignItems: 'center', gap: 4 }}>
            <input type="checkbox" checked={form.clearKey} onChange={(e) => setForm({ ...form, clearKey: e.target.checked })} /> remove key
          </label>
        ) : null}
        {error ? <p className="error" role="alert">{error}</p> : null}
      </td>
      <td className="num">
        <div className="row" style={{ justifyContent: 'flex-end' }}>
          <button type="button" className="small primary" onClick={() => void save()} disabled={!form.name.trim()}>
            Save
          </button>
          <button type="button" className="small ghost" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </td>
    </tr>
  );
}
