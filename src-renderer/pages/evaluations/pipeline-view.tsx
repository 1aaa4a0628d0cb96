import { useState } from 'react';
import { errorText } from '../../api/client';
import { useApi, useLoad } from '../../api/context';
import type { DatasetVersion, PipelineSummary, ReportColumn, ReportDetail } from '../../api/types';
import { fmtScore, fmtTime, scoreUnitTitle } from '../../components/format';
import { setParams } from '../../router';
import { ColumnList, columnProblems } from './builder/column-list';
import { PreviewPanel } from './builder/preview-panel';
import { ItemActions } from '../../components/item-actions';
import { ColumnEditor } from './column-editor';
import { compareIds, MAX_COMPARED } from './compare-order';
import { RunDialog } from './run-dialog';
import { ScoreChart } from './score-chart';
import { runStatusClass } from './run-view';

export function PipelineView({ pipeline, onChanged }: { pipeline: PipelineSummary; onChanged: () => void }) {
  const api = useApi();
  const detail = useLoad((a, signal) => a<ReportDetail>(`/reports/${pipeline.id}`, { signal }), [pipeline.id]);
  const [editing, setEditing] = useState<ReportColumn | 'new' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const [picked, setPicked] = useState<number[]>([]);
  const columns = [...(detail.data?.report_columns ?? [])].sort((a, b) => a.position - b.position);
  const refresh = () => {
    detail.reload();
    onChanged();
  };
  const act = async (work: () => Promise<unknown>) => {
    setError(null);
    try {
      await work();
      refresh();
    } catch (e) {
      setError(errorText(e));
    }
  };
  // Runs use the latest published version; flag columns that read one it lacks (decisions.md).
  const versions = useLoad(
    (a, signal) => a<{ datasets: DatasetVersion[] }>('/api/public/v2/datasets', { signal, query: { dataset_group_id: pipeline.dataset_group_id, include_draft: 'false', per_page: 100 } }),
    [pipeline.dataset_group_id, pipeline.updated_at],
  );
  const latest = (versions.data?.datasets ?? []).reduce<DatasetVersion | null>((best, v) => (!best || v.version_number > best.version_number ? v : best), null);
  const pipelineDataset = columns.filter((c) => c.column_type === 'DATASET').map((c) => c.name);
  const runVersion = latest && latest.column_names.join('\u0000') !== pipelineDataset.join('\u0000') ? latest : null;
  const problems = columnProblems(columns, runVersion);
  const moveTo = (c: ReportColumn, position: number) => act(() => api(`/report-columns/${c.id}`, { method: 'PATCH', body: { position } }));
  const remove = (c: ReportColumn) => confirm(`Delete column "${c.name}"?`) && void act(() => api(`/report-columns/${c.id}`, { method: 'DELETE' }));
  // The run dialog picks the version; this only asks before a run the latest version would refuse.
  const openRun = () => {
    if (problems.size && !confirm(`${problems.size} column(s) read a column the dataset's latest version lacks; a run on it will be refused. Continue (and pick another version)?`)) return;
    setRunning(true);
  };
  const firstEval = columns.findIndex((c) => c.column_type !== 'DATASET');

  return (
    <div className="pane" aria-label={`Pipeline ${pipeline.name}`}>
      <div className="row">
        <h1>{pipeline.name}</h1>
        <ItemActions
          kind="pipeline"
          name={pipeline.name}
          onRename={async (name) => {
            await api(`/api/public/v2/reports/${pipeline.id}`, { method: 'PATCH', body: { name } });
            onChanged();
          }}
          onArchive={async () => {
            await api(`/api/public/v2/reports/${pipeline.id}`, { method: 'DELETE' });
            setParams({ pipeline: null, run: null, compare: null });
            onChanged();
          }}
          archiveNote="Its runs leave the list with it."
        />
        <span className="spacer grow" />
        {problems.size ? <span className="badge bad" role="status">⚠ {problems.size} column{problems.size > 1 ? 's' : ''} with a missing input</span> : null}
        <button type="button" className="primary" onClick={openRun} disabled={firstEval < 0}>
          ▶ Run…
        </button>
      </div>
      {running ? (
        <RunDialog
          pipeline={pipeline}
          columns={columns}
          onClose={() => setRunning(false)}
          onStarted={(id) => {
            onChanged();
            setParams({ run: String(id) }, { replace: false });
          }}
        />
      ) : null}
      {error ? <p className="error" role="alert">{error}</p> : null}
      <section className="card stack" aria-label="Columns">
        <div className="row">
          <h2 className="grow" style={{ margin: 0 }}>Columns</h2>
          <button type="button" onClick={() => setEditing('new')}>
            + Add column
          </button>
        </div>
        <ColumnList columns={columns} runVersion={runVersion} onEdit={setEditing} onDelete={remove} onMove={(c, position) => void moveTo(c, position)} />
        {firstEval < 0 ? <p className="muted">Add a column to evaluate each row: e.g. “Contains” to check an expected word, or “Prompt template” to call a model.</p> : null}
      </section>
      {editing ? (
        <ColumnEditor
          reportId={pipeline.id}
          column={editing === 'new' ? undefined : editing}
          leftColumns={(editing === 'new' ? columns : columns.slice(0, columns.indexOf(editing))).map((c) => c.name)}
          takenNames={columns.map((c) => c.name)}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            refresh();
          }}
        />
      ) : null}
      <PreviewPanel pipelineId={pipeline.id} disabled={firstEval < 0} />
      <section className="card stack" aria-label="Runs">
        <div className="row">
          <h2 className="grow" style={{ margin: 0 }}>Runs</h2>
          <button type="button" disabled={picked.length < 2} onClick={() => setParams({ compare: compareIds(pipeline.runs, picked).join(',') }, { replace: false })}>
            Compare selected ({picked.length}/{MAX_COMPARED})
          </button>
        </div>
        <table className="grid">
          <thead>
            <tr>
              <th />
              <th>Run</th>
              <th>Status</th>
              <th className="num">Score</th>
              <th>Started</th>
            </tr>
          </thead>
          <tbody>
            {pipeline.runs.map((r) => (
              <tr key={r.id} className="clickable" onClick={() => setParams({ run: String(r.id) }, { replace: false })}>
                <td onClick={(e) => e.stopPropagation()}>
                  <input
                    type="checkbox"
                    aria-label={`Pick ${r.name} to compare`}
                    checked={picked.includes(r.id)}
                    onChange={(e) => setPicked(e.target.checked ? [...picked, r.id].slice(-MAX_COMPARED) : picked.filter((id) => id !== r.id))}
                  />
                </td>
                <td><b>{r.name}</b></td>
                <td>
                  <span className={`badge ${runStatusClass(r.status)}`}>{r.status.toLowerCase()}</span>
                </td>
                <td className="num" data-testid="run-list-score" title={scoreUnitTitle(r.score_unit)}>{fmtScore(r.score, r.score_unit)}</td>
                <td>{fmtTime(r.created_at)}</td>
              </tr>
            ))}
            {pipeline.runs.length === 0 ? (
              <tr>
                <td colSpan={5} className="muted">
                  No runs yet.
                </td>
              </tr>
            ) : null}
          </tbody>
        </table>
        <ScoreChart runs={pipeline.runs} />
      </section>
    </div>
  );
}
