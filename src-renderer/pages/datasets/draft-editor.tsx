import { useEffect, useState } from 'react';
import { errorText } from '../../api/client';
import { useApi } from '../../api/context';
import type { DatasetRows, DatasetVersion, PublishedDataset } from '../../api/types';
import { cellText, parseCell } from './cell-text';

/** The editor holds the whole draft in memory and writes it back in one PUT; beyond this it would be a spreadsheet. */
const MAX_EDITABLE_ROWS = 5000;

/** Edits the one draft: cells, rows and columns; saving publishes it as the next version. */
export function DraftEditor({ groupId, draft, onSaved }: { groupId: number; draft: DatasetVersion; onSaved: (publishedId?: number) => void }) {
  const api = useApi();
  const [columns, setColumns] = useState<string[]>(draft.column_names);
  const [rows, setRows] = useState<Record<string, unknown>[] | null>(null);
  const [dirty, setDirty] = useState(false);
  const [newColumn, setNewColumn] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let cancelled = false;
    (async () => {
      const collected: Record<string, unknown>[] = [];
      for (let p = 1; collected.length < MAX_EDITABLE_ROWS; p++) {
        const chunk = await api<DatasetRows>(`/api/public/v2/datasets/${draft.id}/rows`, { query: { page: p, per_page: 100 } });
        collected.push(...chunk.rows.map((r) => r.data));
        if (p >= chunk.pages) break;
      }
      if (!cancelled) {
        setRows(collected);
        setColumns(draft.column_names);
        setDirty(false);
      }
    })().catch((e: unknown) => !cancelled && setError(errorText(e)));
    return () => {
      cancelled = true;
    };
  }, [api, draft.id, draft.column_names]);

  const edit = (next: Record<string, unknown>[]) => {
    setRows(next);
    setDirty(true);
  };
  const save = async (publish: boolean) => {
    if (!rows) return;
    setBusy(true);
    setError(null);
    try {
      await api(`/api/public/v2/datasets/${draft.id}/rows`, { method: 'PUT', body: { rows, column_names: columns } });
      setDirty(false);
      if (publish) {
        const res = await api<PublishedDataset>('/api/public/v2/dataset-versions/save-draft', { body: { dataset_group_id: groupId } });
        onSaved(res.dataset_id);
      } else onSaved();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  if (!rows) return error ? <p className="error" role="alert">{error}</p> : <p className="muted">Loading the draft…</p>;
  const tooBig = draft.row_count > MAX_EDITABLE_ROWS;
  return (
    <section className="stack" aria-label="Draft">
      <div className="row">
        <span className="muted">Draft · {rows.length} rows{dirty ? ' · unsaved changes' : ''}</span>
        <span className="grow" />
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            const name = newColumn.trim();
            if (!name || columns.includes(name)) return;
            setColumns([...columns, name]);
            setNewColumn('');
            setDirty(true);
          }}
        >
          <input aria-label="New column name" placeholder="New column" value={newColumn} onChange={(e) => setNewColumn(e.target.value)} style={{ width: 140 }} />
          <button type="submit" className="small">+ Column</button>
        </form>
        <button type="button" className="small" onClick={() => edit([...rows, Object.fromEntries(columns.map((c) => [c, null]))])} disabled={columns.length === 0}>
          + Row
        </button>
        <button type="button" onClick={() => void save(false)} disabled={busy || !dirty || tooBig}>
          Save draft
        </button>
        <button type="button" className="primary" onClick={() => void save(true)} disabled={busy || rows.length === 0 || tooBig}>
          Save as new version
        </button>
      </div>
      {tooBig ? <p className="badge warn">This draft has more than {MAX_EDITABLE_ROWS} rows; edit it through the API (PUT …/rows).</p> : null}
      {error ? <p className="error" role="alert">{error}</p> : null}
      {columns.length === 0 ? <p className="muted">The draft is empty: add a column, import a file above, or copy a published version into it.</p> : null}
      <div style={{ overflow: 'auto', border: '1px solid var(--border)', borderRadius: 8 }}>
        <table className="grid" aria-label="Draft rows">
          <thead>
            <tr>
              <th className="num">#</th>
              {columns.map((c) => (
                <th key={c}>{c}</th>
              ))}
              <th />
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => (
              <tr key={i}>
                <td className="num muted">{i + 1}</td>
                {columns.map((c) => (
                  <td key={c} style={{ padding: 2 }}>
                    <textarea
                      aria-label={`Row ${i + 1} ${c}`}
                      rows={1}
                      value={cellText(row[c])}
                      style={{ width: '100%', minWidth: 140, border: '1px solid transparent', background: 'transparent' }}
                      onChange={(e) => edit(rows.map((r, j) => (j === i ? { ...r, [c]: parseCell(e.target.value) } : r)))}
                    />
                  </td>
                ))}
                <td>
                  <button type="button" className="ghost small" aria-label={`Delete row ${i + 1}`} onClick={() => edit(rows.filter((_, j) => j !== i))}>
                    ✕
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
