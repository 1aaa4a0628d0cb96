import { useState } from 'react';
import { errorText } from '../../api/client';
import { useApi, useLoad } from '../../api/context';
import type { ApiKey, CreatedApiKey, SystemInfo } from '../../api/types';
import { CopyButton } from '../../components/copy-button';
import { fmtBytes, fmtTime } from '../../components/format';
import { ConnectSection } from './connect-section';
import { NetworkSection } from './network-section';
import { PricesSection } from './prices-section';
import { ProvidersSection } from './providers-section';
import { StorageSection } from './storage-section';

export function SettingsPage() {
  // A key created under "Connect an app" shows up in the key list at once.
  const [keysChanged, setKeysChanged] = useState(0);
  return (
    <div className="page">
      <div className="page-head">
        <h1>Settings</h1>
      </div>
      <div className="page-body stack" style={{ maxWidth: 980 }}>
        <ConnectSection onKeyCreated={() => setKeysChanged((n) => n + 1)} />
        <KeysSection changed={keysChanged} />
        <ProvidersSection />
        <NetworkSection />
        <PricesSection />
        <DataSection />
        <StorageSection />
      </div>
    </div>
  );
}

function KeysSection({ changed }: { changed: number }) {
  const api = useApi();
  const keys = useLoad((a, signal) => a<{ api_keys: ApiKey[] }>('/api/public/v2/api-keys', { signal }), [changed]);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [error, setError] = useState<string | null>(null);

  const create = async () => {
    setError(null);
    try {
      const res = await api<CreatedApiKey>('/api/public/v2/api-keys', { body: { name: name.trim() || 'Untitled key' } });
      setCreated({ name: res.api_key.name, key: res.key });
      setName('');
      keys.reload();
    } catch (e) {
      setError(errorText(e));
    }
  };
  const revoke = async (key: ApiKey) => {
    if (!confirm(`Revoke "${key.name}" (${key.prefix}…)? Apps using it will get 401.`)) return;
    try {
      await api(`/api/public/v2/api-keys/${key.id}`, { method: 'DELETE' });
      keys.reload();
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <section className="card stack" aria-label="API keys">
      <h2>API keys</h2>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          void create();
        }}
      >
        <input aria-label="New key name" placeholder="Key name, e.g. my-app" value={name} onChange={(e) => setName(e.target.value)} maxLength={255} />
        <button type="submit" className="primary">
          Create key
        </button>
      </form>
      {created ? (
        <div className="card" role="status" style={{ background: 'var(--ok-soft)' }}>
          <div>
            New key <b>{created.name}</b> — copy it now, it is shown only once:
          </div>
          <div className="row" style={{ marginTop: 6 }}>
            <code className="grow" data-testid="new-key">{created.key}</code>
            <CopyButton text={created.key} />
            <button type="button" className="ghost small" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        </div>
      ) : null}
      {error ? <p className="error" role="alert">{error}</p> : null}
      <table className="grid">
        <thead>
          <tr>
            <th>Name</th>
            <th>Key</th>
            <th>Created</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(keys.data?.api_keys ?? []).map((k) => (
            <tr key={k.id}>
              <td>
                {k.name} {k.current ? <span className="badge accent">this session</span> : null}
              </td>
              <td className="mono">{k.prefix}…</td>
              <td>{fmtTime(k.created_at)}</td>
              <td className="num">
                <button type="button" className="small danger" onClick={() => void revoke(k)} disabled={k.current} title={k.current ? 'This session uses this key' : undefined}>
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function DataSection() {
  const info = useLoad((a, signal) => a<SystemInfo>('/api/public/v2/system', { signal }), []);
  return (
    <section className="card stack" aria-label="Data">
      <h2>Data</h2>
      {info.error ? <p className="muted">{info.error}</p> : null}
      {info.data ? (
        <dl className="kv">
          <dt>Data folder</dt>
          <dd className="row">
            <code>{info.data.data_dir}</code> <CopyButton text={info.data.data_dir} />
          </dd>
          <dt>Database</dt>
          <dd>
            <code>{info.data.database_file}</code>
          </dd>
          <dt>Size</dt>
          <dd data-testid="db-size">
            {fmtBytes(info.data.database_bytes + info.data.wal_bytes)} <span className="muted">on disk (what holds it: Storage, below)</span>
          </dd>
          <dt>Version</dt>
          <dd>{info.data.version}</dd>
        </dl>
      ) : null}
    </section>
  );
}
