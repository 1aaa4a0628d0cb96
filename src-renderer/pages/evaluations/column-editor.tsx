import { useState } from 'react';
import { ApiError, errorText } from '../../api/client';
import { useApi, useLoad } from '../../api/context';
import type { ColumnType, ReportColumn } from '../../api/types';
import { Modal } from '../../components/modal';
import type { JsonSchema } from '../../components/schema-form';
import { COLUMN_KINDS, type ColumnTypeId, type KindGroup } from './builder/column-kinds';
import { COLUMN_FORMS, initialConfig } from './builder/forms';

/** The server sends any JSON Schema; the form reads the subset `JsonSchema` names. */
export type ColumnTypeInfo = Omit<ColumnType, 'config_schema'> & { config_schema: JsonSchema };

export function useColumnTypes() {
  return useLoad((api, signal) => api<{ column_types: ColumnTypeInfo[] }>('/api/public/v2/column-types', { signal }), []);
}

const GROUPS: KindGroup[] = ['Call a model', 'Check a value', 'Extract and transform', 'Numbers', 'Combine', 'Code and APIs', 'People'];

interface Props {
  reportId: number;
  /** The column being edited; absent when adding. */
  column?: ReportColumn;
  /** Names of the columns to its left, which its configuration may read. */
  leftColumns: string[];
  /** Every column name in the pipeline, for a fresh column's unique default name. */
  takenNames: string[];
  onClose: () => void;
  onSaved: () => void;
}

/** The 422's field messages by configuration key path; `name` for the column's name. */
function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError) || !error.detail) return {};
  const out: Record<string, string> = {};
  for (const d of error.detail) {
    const [, where, ...path] = d.loc;
    out[where === 'configuration' ? path.join('.') : String(where)] ??= d.msg;
  }
  return out;
}

function uniqueName(base: string, taken: string[]) {
  if (!taken.includes(base)) return base;
  for (let n = 2; ; n++) if (!taken.includes(`${base} ${n}`)) return `${base} ${n}`;
}

/** Add or edit a column: a form made for its type, or its configuration as JSON ("Advanced"). */
export function ColumnEditor({ reportId, column, leftColumns, takenNames, onClose, onSaved }: Props) {
  const api = useApi();
  const types = useColumnTypes();
  const [type, setType] = useState<ColumnTypeId | ''>((column?.column_type as ColumnTypeId | undefined) ?? '');
  const [name, setName] = useState(column?.name ?? '');
  const [config, setConfig] = useState<Record<string, unknown>>(column?.configuration ?? {});
  const [scored, setScored] = useState(column?.is_part_of_score ?? false);
  const [mode, setMode] = useState<'guided' | 'json'>('guided');
  const [jsonText, setJsonText] = useState('');
  const [jsonBad, setJsonBad] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const info = types.data?.column_types.find((t) => t.id === type);
  const kind = type ? COLUMN_KINDS[type] : undefined;
  const Form = type ? COLUMN_FORMS[type] : undefined;

  const pickType = (next: ColumnTypeId | '') => {
    setType(next);
    setConfig(next ? initialConfig(next, leftColumns) : {});
    setErrors({});
    if (next && (!name.trim() || Object.values(COLUMN_KINDS).some((k) => name === k.suggestedName || name.startsWith(`${k.suggestedName} `)))) {
      setName(uniqueName(COLUMN_KINDS[next].suggestedName, takenNames));
    }
  };
  const switchMode = (next: 'guided' | 'json') => {
    if (next === 'json') setJsonText(JSON.stringify(config, null, 2));
    else if (jsonBad) return;
    setMode(next);
  };

  const save = async () => {
    setError(null);
    setErrors({});
    try {
      const body = { name: name.trim(), configuration: config, is_part_of_score: scored };
      if (column) await api(`/report-columns/${column.id}`, { method: 'PATCH', body });
      else await api('/report-columns', { body: { report_id: reportId, column_type: type, ...body } });
      onSaved();
    } catch (e) {
      setError(errorText(e));
      setErrors(fieldErrors(e));
    }
  };

  return (
    <Modal title={column ? `Edit column "${column.name}"` : 'Add a column'} onClose={onClose}>
      <form
        className="stack builder"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <div className="builder-grid">
          <label>
            Type
            <select aria-label="Column type" value={type} disabled={Boolean(column)} onChange={(e) => pickType(e.target.value as ColumnTypeId | '')}>
              <option value="">Choose a type…</option>
              {GROUPS.map((group) => (
                <optgroup key={group} label={group}>
                  {(types.data?.column_types ?? []).filter((t) => COLUMN_KINDS[t.id as ColumnTypeId]?.group === group).map((t) => (
                    <option key={t.id} value={t.id}>{COLUMN_KINDS[t.id as ColumnTypeId].title}</option>
                  ))}
                </optgroup>
              ))}
            </select>
          </label>
          <label>
            Name
            <input aria-label="Column name" value={name} onChange={(e) => setName(e.target.value)} maxLength={255} placeholder="e.g. mentions refund" />
            {errors.name ? <span className="error">{errors.name}</span> : null}
          </label>
        </div>
        {info && kind ? (
          <div className="builder-about">
            <b>{kind.title}</b> — {info.description}
            <div className="muted">
              Example: {kind.example.split('`').map((part, i) => (i % 2 ? <code key={i} className="builder-ref">{part}</code> : part))}
            </div>
          </div>
        ) : null}
        {Form ? (
          <>
            <div className="tabs" role="tablist" aria-label="Form or JSON">
              <button type="button" role="tab" aria-selected={mode === 'guided'} className={mode === 'guided' ? 'active' : ''} onClick={() => switchMode('guided')}>Guided</button>
              <button type="button" role="tab" aria-selected={mode === 'json'} className={mode === 'json' ? 'active' : ''} onClick={() => switchMode('json')}>Advanced (JSON)</button>
            </div>
            {mode === 'guided' ? (
              <Form config={config} onChange={setConfig} columns={leftColumns} errors={errors} />
            ) : (
              <label>
                Configuration (JSON)
                <textarea aria-label="Configuration JSON" className="mono" rows={12} value={jsonText}
                  onChange={(e) => {
                    setJsonText(e.target.value);
                    try {
                      const parsed: unknown = JSON.parse(e.target.value);
                      const ok = Boolean(parsed) && typeof parsed === 'object' && !Array.isArray(parsed);
                      setJsonBad(!ok);
                      if (ok) setConfig(parsed as Record<string, unknown>);
                    } catch {
                      setJsonBad(true);
                    }
                  }} />
                {jsonBad ? <span className="error">Not a JSON object; the last valid one is kept.</span> : null}
              </label>
            )}
          </>
        ) : null}
        <label style={{ flexDirection: 'row', alignItems: 'center', gap: 6 }}>
          <input type="checkbox" checked={scored} onChange={(e) => setScored(e.target.checked)} aria-label="Part of the score" />
          Part of the score
        </label>
        {error ? <p className="error" role="alert">{error}</p> : null}
        <div className="row" style={{ justifyContent: 'flex-end' }}>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={!type || !name.trim() || (mode === 'json' && jsonBad)}>
            {column ? 'Save column' : 'Add column'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
