import { useEffect, useState } from 'react';
import { errorText } from '../../api/client';
import { useApi, useLoad } from '../../api/context';

interface EgressSetting {
  offline: boolean;
  allowed_hosts: string[];
}

/**
 * The egress switch (`/api/public/v2/settings/egress`): while offline, provider calls, ENDPOINT
 * cells and connection tests reach only loopback and the hosts listed here.
 */
export function NetworkSection() {
  const api = useApi();
  const setting = useLoad((a, signal) => a<EgressSetting>('/api/public/v2/settings/egress', { signal }), []);
  const [offline, setOffline] = useState(false);
  const [hosts, setHosts] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    if (!setting.data) return;
    setOffline(setting.data.offline);
    setHosts(setting.data.allowed_hosts.join('\n'));
  }, [setting.data]);

  const save = async () => {
    setError(null);
    setSaved(false);
    const allowed_hosts = hosts.split(/[\s,]+/).map((h) => h.trim()).filter(Boolean);
    try {
      const next = await api<EgressSetting>('/api/public/v2/settings/egress', { method: 'PUT', body: { offline, allowed_hosts } });
      setHosts(next.allowed_hosts.join('\n'));
      setSaved(true);
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <section className="card stack" aria-label="Network">
      <h2>Network</h2>
      <p className="muted" style={{ margin: 0 }}>
        The server calls out only where you point it: provider base URLs and ENDPOINT columns. Offline, it calls only this machine
        (localhost, 127.0.0.1, ::1) and the hosts you list; anything else fails with a message naming the host.
      </p>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <label style={{ flexDirection: 'row', alignItems: 'center', gap: 8, fontSize: 13, color: 'var(--text)' }}>
          <input type="checkbox" aria-label="Offline" checked={offline} onChange={(e) => setOffline(e.target.checked)} style={{ width: 'auto' }} />
          Offline: only loopback and listed hosts
        </label>
        <label>
          Allowed hosts (one per line, no scheme or port)
          <textarea aria-label="Allowed hosts" rows={3} value={hosts} onChange={(e) => setHosts(e.target.value)} placeholder="gpu-box.lan" />
        </label>
        <div className="row">
          <button type="submit" className="primary" disabled={!setting.data}>
            Save network setting
          </button>
          {saved ? <span className="badge ok" role="status">Saved</span> : null}
        </div>
      </form>
      {error ? <p className="error" role="alert">{error}</p> : null}
      {setting.error ? <p className="muted">{setting.error}</p> : null}
    </section>
  );
}
