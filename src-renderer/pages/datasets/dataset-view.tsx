import { useEffect, useState } from 'react';
import { errorText } from '../../api/client';
import { loadSession } from '../../api/session';
import { useApi, useLoad } from '../../api/context';
import type { DatasetGroup, DatasetRows, DatasetVersion, PublishedDataset } from '../../api/types';
import { FileDrop } from '../../components/file-drop';
import { countOf, fmtInt, fmtTime } from '../../components/format';
import { setParams, useLocation } from '../../router';
import { DraftEditor } from './draft-editor';
import { cellText } from './cell-text';
import { Pager } from '../../components/pager';
import { ItemActions } from '../../components/item-actions';

const PER_PAGE = 100;

export function DatasetView({ group, onChanged }: { group: DatasetGroup; onChanged: () => void }) {
  const api = useApi();
  const { params } = useLocation();
  const versions = useLoad(
    (a, signal) => a<{ datasets: DatasetVersion[] }>('/api/public/v2/datasets', { signal, query: { dataset_group_id: group.id, per_page: 100 } }),
    [group.id],
  );
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const all = [...(versions.data?.datasets ?? [])].sort((a, b) => (a.version_number === -1 ? -1 : b.version_number === -1 ? 1 : b.version_number - a.version_number));
  const published = all.filter((v) => v.version_number > 0);
  const draft = all.find((v) => v.version_number === -1);
  const current = all.find((v) => v.id === Number(params.get('version'))) ?? published[0] ?? draft;
  const refresh = () => {
    versions.reload();
    onChanged();
  };
  const shownId = current?.id;
  useEffect(() => {
    setError(null);
  }, [shownId]);

  const importFile = async (file: { name: string; base64: string }) => {
    setError(null);
    setNotice(null);
    try {
      const res = await api<PublishedDataset>('/api/public/v2/dataset-versions/from-file', {
        body: { dataset_group_id: group.id, file_name: file.name, file_content_base64: file.base64 },
      });
      setNotice(`Imported ${file.name} as version ${res.version_number}.`);
      refresh();
      setParams({ version: String(res.dataset_id) });
    } catch (e) {
      setError(errorText(e));
    }
  };

  const download = async (format: 'csv' | 'jsonl') => {
    if (!current) return;
    const res = await fetch(`/api/public/v2/datasets/${current.id}/export?format=${format}`, {
      headers: { Authorization: `Bearer ${loadSession()?.token ?? ''}` },
    });
    const url = URL.createObjectURL(await res.blob());
    const a = document.createElement('a');
    a.href = url;
    a.download = `${group.name}-${current.version_number === -1 ? 'draft' : `v${current.version_number}`}.${format}`;
    a.click();
    URL.revokeObjectURL(url);
  };

  return (
    <div className="pane" aria-label={`Dataset ${group.name}`}>
      <div className="row">
        <h1>{group.name}</h1>
        <ItemActions
          kind="dataset"
          name={group.name}
          onRename={async (name) => {
            await api(`/api/public/v2/dataset-groups/${group.id}`, { method: 'PATCH', body: { name } });
            onChanged();
          }}
          onArchive={async () => {
            await api(`/api/public/v2/dataset-groups/${group.id}`, { method: 'DELETE' });
            setParams({ group: null, version: null });
            onChanged();
          }}
          archiveNote="Evaluation runs over its versions keep their results."
        />
        <span className="spacer grow" />
        <label className="row" style={{ flexDirection: 'row', alignItems: 'center' }}>
          Version
          <select aria-label="Version" value={current?.id ?? ''} onChange={(e) => setParams({ version: e.target.value })}>
            {all.map((v) => (
              <option key={v.id} value={v.id}>
                {v.version_number === -1 ? 'Draft (editable)' : `v${v.version_number}`} · {countOf(v.row_count, 'row')}
              </option>
            ))}
          </select>
        </label>
        {current && current.version_number > 0 ? (
          <>
            <button type="button" onClick={() => void download('csv')}>Export CSV</button>
            <button type="button" onClick={() => void download('jsonl')}>Export JSONL</button>
          </>
        ) : null}
      </div>
      <FileDrop accept=".csv,.json,.jsonl" hint="CSV (header row = columns), JSON (array of objects) or JSONL → publishes the next version" onFile={(f) => void importFile(f)} />
      {notice ? <p role="status" className="badge ok" style={{ alignSelf: 'flex-start' }}>{notice}</p> : null}
      {error ? <p className="error" role="alert">{error}</p> : null}
      {current?.version_number === -1 && draft ? (
        <DraftEditor
          groupId={group.id}
          draft={draft}
          onSaved={(datasetId) => {
            refresh();
            if (datasetId) setParams({ version: String(datasetId) });
          }}
        />
      ) : current ? (
        <PublishedRows
          version={current}
          draftId={draft?.id}
          onCopiedToDraft={() => {
            refresh();
            if (draft) setParams({ version: String(draft.id) });
          }}
        />
      ) : (
        <p className="muted">Loading…</p>
      )}
    </div>
  );
}

function PublishedRows({ version, draftId, onCopiedToDraft }: { version: DatasetVersion; draftId?: number; onCopiedToDraft: () => void }) {
  const api = useApi();
  const [page, setPage] = useState(1);
  const [q, setQ] = useState('');
  const rows = useLoad(
    (a, signal) => a<DatasetRows>(`/api/public/v2/datasets/${version.id}/rows`, { signal, query: { page, per_page: PER_PAGE, q: q || undefined } }),
    [version.id, page, q],
  );
  const [error, setError] = useState<string | null>(null);

  const copyToDraft = async () => {
    if (!draftId) return;
    setError(null);
    try {
      const collected: Record<string, unknown>[] = [];
      for (let p = 1; ; p++) {
        const chunk = await api<DatasetRows>(`/api/public/v2/datasets/${version.id}/rows`, { query: { page: p, per_page: 100 } });
        collected.push(...chunk.rows.map((r) => r.data));
        if (p >= chunk.pages) break;
      }
      await api(`/api/public/v2/datasets/${draftId}/rows`, { method: 'PUT', body: { rows: collected, column_names: version.column_names } });
      onCopiedToDraft();
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <section className="stack" aria-label="Rows">
      <div className="row">
        <span className="muted">
          v{version.version_number} · published {fmtTime(version.created_at)} · {countOf(version.row_count, 'row')} · read-only
        </span>
        <span className="grow" />
        <input type="search" aria-label="Search rows" placeholder="Search rows…" value={q} onChange={(e) => (setQ(e.target.value), setPage(1))} />
        <button type="button" onClick={() => void copyToDraft()} disabled={!draftId}>
          Edit a copy in the draft
        </button>
      </div>
      {error ? <p className="error" role="alert">{error}</p> : null}
      <RowsTable columns={rows.data?.columns ?? version.column_names} rows={rows.data?.rows ?? []} />
      <Pager page={page} pages={rows.data?.pages} onPage={setPage} />
    </section>
  );
}

export function RowsTable({ columns, rows }: { columns: string[]; rows: { row_index: number; data: Record<string, unknown> }[] }) {
  return (
    <div style={{ overflow: 'auto', border: '1px solid var(--border)', borderRadius: 8 }}>
      <table className="grid" aria-label="Dataset rows">
        <thead>
          <tr>
            <th className="num">#</th>
            {columns.map((c) => (
              <th key={c}>{c}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.row_index}>
              <td className="num muted">{r.row_index + 1}</td>
              {columns.map((c) => (
                <td key={c}>
                  <div className="cell-value">{cellText(r.data[c])}</div>
                </td>
              ))}
            </tr>
          ))}
          {rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length + 1} className="muted">
                No rows.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </div>
  );
}
