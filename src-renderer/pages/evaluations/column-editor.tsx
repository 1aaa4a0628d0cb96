import { useState } from 'react';
import { errorText } from '../../api/client';
import { useApi, useLoad } from '../../api/context';
import type { ColumnType, ReportColumn } from '../../api/types';
import { Modal } from '../../components/modal';
import { SchemaForm, type JsonSchema } from '../../components/schema-form';

/** The server sends any JSON Schema; the form reads the subset `JsonSchema` names. */
export type ColumnTypeInfo = Omit<ColumnType, 'config_schema'> & { config_schema: JsonSchema };

export function useColumnTypes() {
  return useLoad((api, signal) => api<{ column_types: ColumnTypeInfo[] }>('/api/public/v2/column-types', { signal }), []);
}

const title = (id: string) => id.toLowerCase().replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());

interface Props {
  reportId: number;
  /** The column being edited; absent when adding. */
  column?: ReportColumn;
  /** Names of the columns to its left, which its configuration may read. */
  leftColumns: string[];
  onClose: () => void;
  onSaved: () => void;
}

export function ColumnEditor({ reportId, column, leftColumns, onClose, onSaved }: Props) {
  const api = useApi();
  const types = useColumnTypes();
  const [type, setType] = useState(column?.column_type ?? '');
  const [name, setName] = useState(column?.name ?? '');
  const [config, setConfig] = useState<Record<string, unknown>>(column?.configuration ?? {});
  const [scored, setScored] = useState(column?.is_part_of_score ?? false);
  const [error, setError] = useState<string | null>(null);
  const info = types.data?.column_types.find((t) => t.id === type);

  const save = async () => {
    setError(null);
    try {
      if (column) await api(`/report-columns/${column.id}`, { method: 'PATCH', body: { name: name.trim(), configuration: config, is_part_of_score: scored } });
      else await api('/report-columns', { body: { report_id: reportId, column_type: type, name: name.trim(), configuration: config, is_part_of_score: scored } });
      onSaved();
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <Modal title={column ? `Edit column "${column.name}"` : 'Add a column'} onClose={onClose}>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <label>
          Type
          <select aria-label="Column type" value={type} disabled={Boolean(column)} onChange={(e) => (setType(e.target.value), setConfig({}))}>
            <option value="">Choose a type…</option>
            {(types.data?.column_types ?? []).map((t) => (
              <option key={t.id} value={t.id}>
                {title(t.id)}
              </option>
            ))}
          </select>
        </label>
        {info ? <p className="muted" style={{ margin: 0 }}>{info.description}</p> : null}
        <label>
          Name
          <input aria-label="Column name" value={name} onChange={(e) => setName(e.target.value)} maxLength={255} placeholder="e.g. mentions refund" />
        </label>
        {info ? <SchemaForm schema={info.config_schema} value={config} columns={leftColumns} onChange={setConfig} /> : null}
        <label style={{ flexDirection: 'row', alignItems: 'center', gap: 6 }}>
          <input type="checkbox" checked={scored} onChange={(e) => setScored(e.target.checked)} aria-label="Part of the score" />
          Part of the score
        </label>
        {error ? <p className="error" role="alert">{error}</p> : null}
        <div className="row" style={{ justifyContent: 'flex-end' }}>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={!type || !name.trim()}>
            {column ? 'Save column' : 'Add column'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
