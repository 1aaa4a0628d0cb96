import { useEffect, useState } from 'react';
import { errorText } from '../../api/client';
import { useApi, useLoad } from '../../api/context';
import type { RetentionPreview, RetentionSetting, StorageInfo } from '../../api/types';
import { countOf, fmtBytes } from '../../components/format';
import { Modal } from '../../components/modal';

/** Decimal GB, as `--max-gb` reads it. */
const GB = 1e9;

/** Friendlier names for the tables that usually hold the most. */
const TABLE_LABELS: Record<string, string> = {
  requests: 'Requests',
  requests_fts: 'Request text index',
  request_tags: 'Request tags',
  request_metadata: 'Request metadata',
  request_scores: 'Request scores',
  spans: 'Spans',
  traces: 'Traces',
  dataset_rows: 'Dataset rows',
  report_cells: 'Evaluation results',
  sqlite_schema: 'Schema',
};

/**
 * The database's size and what holds it (`GET /api/public/v2/system/storage`), and retention
 * (`PUT /api/public/v2/system/retention`): saving a setting that would delete requests asks first,
 * with the count the server previews.
 */
export function StorageSection() {
  const api = useApi();
  const storage = useLoad((a, signal) => a<StorageInfo>('/api/public/v2/system/storage', { signal }), []);
  const [days, setDays] = useState('');
  const [gb, setGb] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [confirming, setConfirming] = useState<{ setting: RetentionSetting; preview: RetentionPreview } | null>(null);

  useEffect(() => {
    const retention = storage.data?.retention;
    if (!retention) return;
    setDays(retention.keep_days === null ? '' : String(retention.keep_days));
    setGb(retention.max_bytes === null ? '' : String(retention.max_bytes / GB));
  }, [storage.data]);

  const setting = (): RetentionSetting => ({
    keep_days: days.trim() === '' ? null : Number(days),
    max_bytes: gb.trim() === '' ? null : Math.round(Number(gb) * GB),
  });

  const save = async (next: RetentionSetting) => {
    setError(null);
    try {
      await api<RetentionSetting>('/api/public/v2/system/retention', { method: 'PUT', body: next });
      setConfirming(null);
      setSaved(true);
      storage.reload();
    } catch (e) {
      setError(errorText(e));
    }
  };

  const review = async () => {
    setError(null);
    setSaved(false);
    const next = setting();
    const query = new URLSearchParams();
    if (next.keep_days !== null) query.set('keep_days', String(next.keep_days));
    if (next.max_bytes !== null) query.set('max_bytes', String(next.max_bytes));
    try {
      const preview = await api<RetentionPreview>(`/api/public/v2/system/retention/preview?${query}`);
      if (preview.requests + preview.spans === 0) await save(next);
      else setConfirming({ setting: next, preview });
    } catch (e) {
      setError(errorText(e));
    }
  };

  const data = storage.data;
  const total = data ? data.db_bytes + data.wal_bytes : 0;
  const largest = data?.tables.slice(0, 8) ?? [];
  const rest = data ? data.tables.slice(8).reduce((n, t) => n + t.bytes, 0) : 0;
  // Shares of the live pages (part of them may still sit in the write-ahead log, not the file).
  const live = Math.max(1, data?.tables.reduce((n, t) => n + t.bytes, 0) ?? 0);
  return (
    <section className="card stack" aria-label="Storage">
      <h2>Storage</h2>
      {storage.error ? <p className="muted">{storage.error}</p> : null}
      {data ? (
        <>
          <dl className="kv">
            <dt>On disk</dt>
            <dd data-testid="storage-total">
              {fmtBytes(total)}
              <span className="muted">
                {' '}
                (database file {fmtBytes(data.db_bytes)}, write-ahead log {fmtBytes(data.wal_bytes)} of changes not yet copied into it
                {data.free_bytes ? `, ${fmtBytes(data.free_bytes)} free inside` : ''})
              </span>
            </dd>
            <dt>Holds</dt>
            <dd>
              {countOf(data.requests, 'request')}, {countOf(data.spans, 'span')}
            </dd>
          </dl>
          <table className="grid" aria-label="What holds the space">
            <thead>
              <tr>
                <th>Table (with its indexes)</th>
                <th className="num">Size</th>
                <th style={{ width: '40%' }} />
              </tr>
            </thead>
            <tbody>
              {largest.map((t) => (
                <tr key={t.name}>
                  <td>
                    {TABLE_LABELS[t.name] ?? t.name} {TABLE_LABELS[t.name] ? <span className="muted mono">{t.name}</span> : null}
                  </td>
                  <td className="num">{fmtBytes(t.bytes)}</td>
                  <td>
                    <div style={{ height: 8, borderRadius: 4, background: 'var(--accent)', width: `${Math.min(100, Math.max(1, (100 * t.bytes) / live))}%` }} />
                  </td>
                </tr>
              ))}
              {rest ? (
                <tr>
                  <td className="muted">Everything else</td>
                  <td className="num">{fmtBytes(rest)}</td>
                  <td />
                </tr>
              ) : null}
            </tbody>
          </table>
        </>
      ) : null}
      <h3 style={{ margin: '8px 0 0' }}>Retention</h3>
      <p className="muted" style={{ margin: 0 }}>
        Older requests and traces are deleted in the background (checked hourly, and at once when you save), oldest first. Datasets,
        prompts and evaluation results are never deleted. These limits are for the whole data file, every workspace.
      </p>
      <form
        className="row"
        style={{ alignItems: 'flex-end', flexWrap: 'wrap' }}
        onSubmit={(e) => {
          e.preventDefault();
          void review();
        }}
      >
        <label>
          Keep requests for (days)
          <input aria-label="Keep days" type="number" min={1} max={36500} step={1} placeholder="forever" value={days} onChange={(e) => setDays(e.target.value)} style={{ width: 140 }} />
        </label>
        <label>
          At most (GB)
          <input aria-label="Max GB" type="number" min={0.001} step="any" placeholder="no limit" value={gb} onChange={(e) => setGb(e.target.value)} style={{ width: 140 }} />
        </label>
        <button type="submit" className="primary" disabled={!data}>
          Save retention
        </button>
        {saved ? <span className="badge ok" role="status">Saved</span> : null}
      </form>
      {error ? <p className="error" role="alert">{error}</p> : null}
      {confirming ? (
        <Modal title="Delete old data?" onClose={() => setConfirming(null)}>
          <p data-testid="retention-confirm">
            This setting deletes <b>{countOf(confirming.preview.requests, 'request')}</b>
            {confirming.preview.spans ? (
              <>
                {' '}
                and <b>{countOf(confirming.preview.spans, 'span')}</b>
              </>
            ) : null}{' '}
            now, oldest first. They cannot be recovered. Datasets, prompts and evaluation results stay.
          </p>
          <div className="row" style={{ justifyContent: 'flex-end' }}>
            <button type="button" onClick={() => setConfirming(null)}>
              Cancel
            </button>
            <button type="button" className="danger" onClick={() => void save(confirming.setting)}>
              Delete and save
            </button>
          </div>
        </Modal>
      ) : null}
    </section>
  );
}
