import { useState } from 'react';
import { errorText } from '../../api/client';
import { useApi, useLoad } from '../../api/context';

interface Provider {
  id: number;
  name: string;
  client: 'openai' | 'anthropic';
  base_url: string | null;
  api_key: string | null;
}

/** LLM providers the evaluation columns call (Ollama, LM Studio, vLLM… through an OpenAI-compatible base URL). */
export function ProvidersSection() {
  const api = useApi();
  const list = useLoad((a, signal) => a<{ items: Provider[] }>('/api/public/v2/providers', { signal }), []);
  const [form, setForm] = useState({ name: '', client: 'openai', base_url: '', api_key: '' });
  const [error, setError] = useState<string | null>(null);

  const add = async () => {
    setError(null);
    try {
      await api('/api/public/v2/providers', {
        body: { name: form.name.trim(), client: form.client, base_url: form.base_url.trim() || null, api_key: form.api_key || null },
      });
      setForm({ name: '', client: 'openai', base_url: '', api_key: '' });
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

  return (
    <section className="card stack" aria-label="Providers">
      <h2>Providers</h2>
      <p className="muted" style={{ margin: 0 }}>
        <code>openai</code> and <code>anthropic</code> are built in and use <code>OPENAI_API_KEY</code> / <code>ANTHROPIC_API_KEY</code> from the
        server's environment. Add any OpenAI-compatible server (Ollama: <code>http://127.0.0.1:11434/v1</code>) under its own name.
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
          <select aria-label="Provider client" value={form.client} onChange={(e) => setForm({ ...form, client: e.target.value })}>
            <option value="openai">OpenAI-compatible</option>
            <option value="anthropic">Anthropic</option>
          </select>
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
          {(list.data?.items ?? []).map((p) => (
            <tr key={p.id}>
              <td><b>{p.name}</b></td>
              <td>{p.client}</td>
              <td className="mono">{p.base_url ?? '—'}</td>
              <td className="mono">{p.api_key ?? '—'}</td>
              <td className="num">
                <button type="button" className="small danger" onClick={() => void remove(p)}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
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
