import { useState } from 'react';
import type { Query } from '../../api/client';
import { useApi } from '../../api/context';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { countOf, fmtInt } from '../../components/format';

/** The explorer's API query as `POST …/requests/delete` takes it: `metadata[k]=v` becomes `metadata: {k: v}`. */
export function filtersOf(query: Query): Record<string, unknown> {
  const filters: Record<string, unknown> = {};
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)) continue;
    const meta = /^metadata\[(.+)\]$/.exec(key);
    if (meta) metadata[meta[1]] = String(value);
    else filters[key] = value;
  }
  if (Object.keys(metadata).length > 0) filters.metadata = metadata;
  return filters;
}

const WHAT_GOES = 'The requests go with their scores, tags and metadata, and the dashboard stops counting them.';

/** "Delete…" for the checked requests. */
export function DeleteSelected({ ids, onDeleted }: { ids: number[]; onDeleted: () => void }) {
  const api = useApi();
  const [asking, setAsking] = useState(false);
  return (
    <>
      <button type="button" className="danger" onClick={() => setAsking(true)}>
        Delete selected…
      </button>
      {asking ? (
        <ConfirmDialog
          title={`Delete ${countOf(ids.length, 'request')}? This cannot be undone.`}
          message={WHAT_GOES}
          confirmLabel={`Delete ${countOf(ids.length, 'request')}`}
          onConfirm={async () => {
            await api('/api/public/v2/requests/delete', { body: { ids } });
            onDeleted();
          }}
          onClose={() => setAsking(false)}
        />
      ) : null}
    </>
  );
}

/**
 * "Delete all matching…": everything the current filters match, not only the loaded rows. The
 * count is the explorer's: exact unfiltered, "1,000+" past the server's counting cap.
 */
export function DeleteMatching({ query, total, filtered, capped, onDeleted }: { query: Query; total: number; filtered: boolean; capped: boolean; onDeleted: () => void }) {
  const api = useApi();
  const [asking, setAsking] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const howMany = capped ? `${fmtInt(total)}+ requests` : countOf(total, 'request');
  return (
    <>
      {total > 0 ? (
        <button type="button" className="danger" onClick={() => (setDone(null), setAsking(true))}>
          {filtered ? 'Delete all matching…' : 'Delete all…'}
        </button>
      ) : null}
      {done ? <span className="muted" role="status">{done}</span> : null}
      {asking ? (
        <ConfirmDialog
          title={`Delete ${howMany}? This cannot be undone.`}
          message={`Every request matching the current filters, not only those loaded on screen. ${WHAT_GOES}`}
          confirmLabel={`Delete ${howMany}`}
          onConfirm={async () => {
            const res = await api<{ deleted: number }>('/api/public/v2/requests/delete', { body: { filters: filtersOf(query) } });
            setDone(`Deleted ${countOf(res.deleted, 'request')}.`);
            onDeleted();
          }}
          onClose={() => setAsking(false)}
        />
      ) : null}
    </>
  );
}
