import { useEffect, useState } from 'react';
import { errorText } from '../../api/client';
import { useApi } from '../../api/context';
import type { DatasetRows, DatasetVersion, PublishedDataset } from '../../api/types';
import { countOf } from '../../components/format';
import { cellText, parseCell } from './cell-text';
import { emptyRowNumbers, onCellEnter } from './draft-cells';

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
    const empty = emptyRowNumbers(rows, columns);
    if (publish && empty.length > 0 && !confirm(`${countOf(empty.length, 'row')} without any value (${empty.join(', ')}) would be published as part of the dataset. Publish anyway?`)) return;
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
  const empty = emptyRowNumbers(rows, columns);
  return (
    <section className="stack" aria-label="Draft">
      <div className="row">
        <span className="muted">Draft · {countOf(rows.length, 'row')}{dirty ? ' · unsaved changes' : ''}</span>
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
      {empty.length > 0 ? (
        <p className="badge warn" role="status" data-testid="empty-rows">
          {empty.length === 1 ? `Row ${empty[0]} is empty` : `Rows ${empty.join(', ')} are empty`}: fill or delete {empty.length === 1 ? 'it' : 'them'} before publishing.
        </p>
      ) : null}
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
              <tr key={i} className={empty.includes(i + 1) ? 'empty-row' : undefined}>
                <td className="num muted" title={empty.includes(i + 1) ? 'Empty row' : undefined}>
                  {empty.includes(i + 1) ? <span aria-label={`Row ${i + 1} is empty`}>⚠ </span> : null}
                  {i + 1}
                </td>
                {columns.map((c) => (
                  <td key={c} style={{ padding: 2 }}>
                    <textarea
                      aria-label={`Row ${i + 1} ${c}`}
                      rows={1}
                      value={cellText(row[c])}
                      style={{ width: '100%', minWidth: 140, border: '1px solid transparent', background: 'transparent' }}
                      onChange={(e) => edit(rows.map((r, j) => (j === i ? { ...r, [c]: parseCell(e.target.value) } : r)))}
                      onKeyDown={(e) => onCellEnter(e, `Row ${i + 2} ${c}`)}
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
