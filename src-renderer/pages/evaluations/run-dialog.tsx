import { useState } from 'react';
import { errorText } from '../../api/client';
import { useApi, useLoad } from '../../api/context';
import type { DatasetVersionPage, PipelineSummary, ReportColumn, RunStarted } from '../../api/types';
import { countOf, fmtInt } from '../../components/format';
import { Modal } from '../../components/modal';

/** Column types whose every cell calls a model (one call per row), with the names PromptLayer gives them. */
export const LLM_COLUMN_TYPES: Record<string, string> = {
  PROMPT_TEMPLATE: 'Prompt Template',
  LLM_ASSERTION: 'LLM Assertion',
  AI_DATA_EXTRACTION: 'AI Data Extraction',
  COSINE_SIMILARITY: 'Cosine Similarity',
};

const DRAFT = -1;

/**
 * "Run" on a pipeline: which dataset version to run on (the latest published one unless the person
 * picks another; the draft only after a warning, since it can still change and a run on it cannot
 * be repeated exactly) and what it will cost in model calls before anything is spent.
 */
export function RunDialog({ pipeline, columns, onClose, onStarted }: {
  pipeline: PipelineSummary;
  columns: ReportColumn[];
  onClose: () => void;
  onStarted: (runId: number) => void;
}) {
  const api = useApi();
  const versions = useLoad(
    (a, signal) => a<DatasetVersionPage>('/api/public/v2/datasets', { signal, query: { dataset_group_id: pipeline.dataset_group_id, per_page: 100 } }),
    [pipeline.dataset_group_id],
  );
  const [name, setName] = useState('');
  const [picked, setPicked] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const list = versions.data?.datasets ?? [];
  const published = list.filter((v) => v.version_number !== DRAFT);
  const draft = list.find((v) => v.version_number === DRAFT);
  const version = list.find((v) => v.version_number === picked) ?? published[0];
  const isDraft = version?.version_number === DRAFT;
  const llmColumns = columns.filter((c) => c.column_type in LLM_COLUMN_TYPES);
  const rows = version?.row_count ?? 0;

  const start = async () => {
    if (!version) return;
    setError(null);
    setBusy(true);
    try {
      const res = await api<RunStarted>(`/reports/${pipeline.id}/run`, {
        body: {
          name: name.trim() || `Run ${pipeline.runs.length + 1}`,
          dataset_version_number: version.version_number,
          ...(isDraft ? { allow_draft: true } : {}),
        },
      });
      onStarted(res.report_id);
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };

  return (
    <Modal title={`Run ${pipeline.name}`} onClose={onClose}>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void start();
        }}
      >
        <label>
          Run name
          <input aria-label="Run name" autoFocus placeholder={`Run ${pipeline.runs.length + 1}`} value={name} onChange={(e) => setName(e.target.value)} maxLength={255} />
        </label>
        <label>
          Dataset version
          <select aria-label="Dataset version" value={version?.version_number ?? ''} onChange={(e) => setPicked(Number(e.target.value))} disabled={!list.length}>
            {published.map((v, i) => (
              <option key={v.id} value={v.version_number}>
                v{v.version_number} · {countOf(v.row_count, 'row')}
                {i === 0 ? ' (latest)' : ''}
              </option>
            ))}
            {draft ? <option value={DRAFT}>Draft (unpublished) · {countOf(draft.row_count, 'row')}</option> : null}
          </select>
        </label>
        {versions.error ? <p className="error" role="alert">{versions.error}</p> : null}
        {versions.data && published.length === 0 && !draft ? <p className="muted">This dataset has no version to run on yet.</p> : null}
        {isDraft ? (
          <p className="run-warning" role="note" aria-label="Draft warning">
            ⚠ The draft is not published: its rows can still change, so this run cannot be repeated exactly or compared fairly with later runs.
            Publish the draft on the Datasets page to keep a fixed version.
          </p>
        ) : null}
        <div className="card stack" aria-label="Estimate" style={{ gap: 4 }}>
          <div>
            <b data-testid="estimate">
              {fmtInt(rows)} {rows === 1 ? 'row' : 'rows'} × {countOf(llmColumns.length, 'LLM column')} = {countOf(rows * llmColumns.length, 'LLM call')}
            </b>
          </div>
          {llmColumns.length ? (
            <div className="muted">
              Calls a model: {llmColumns.map((c) => `${c.name} (${LLM_COLUMN_TYPES[c.column_type]})`).join(', ')}
            </div>
          ) : (
            <div className="muted">No column calls a model: this run costs nothing.</div>
          )}
        </div>
        {version && rows === 0 ? <p className="muted">This version has no rows: there is nothing to run.</p> : null}
        {error ? <p className="error" role="alert">{error}</p> : null}
        <div className="row" style={{ justifyContent: 'flex-end' }}>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={!version || busy || rows === 0}>
            {isDraft ? '▶ Run on the draft' : '▶ Start run'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
