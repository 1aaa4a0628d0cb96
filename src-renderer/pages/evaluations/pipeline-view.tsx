import { useState } from 'react';
import { errorText } from '../../api/client';
import { useApi, useLoad } from '../../api/context';
import type { PipelineSummary, ReportColumn, ReportDetail } from '../../api/types';
import { fmtTime } from '../../components/format';
import { setParams } from '../../router';
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
  const move = (c: ReportColumn, by: number) => act(() => api(`/report-columns/${c.id}`, { method: 'PATCH', body: { position: c.position + by } }));
  const remove = (c: ReportColumn) => confirm(`Delete column "${c.name}"?`) && void act(() => api(`/report-columns/${c.id}`, { method: 'DELETE' }));
  const firstEval = columns.findIndex((c) => c.column_type !== 'DATASET');

  return (
    <div className="pane" aria-label={`Pipeline ${pipeline.name}`}>
      <div className="row">
        <h1>{pipeline.name}</h1>
        <span className="spacer grow" />
        <button type="button" className="primary" onClick={() => setRunning(true)} disabled={firstEval < 0}>
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
        <table className="grid">
          <thead>
            <tr>
              <th>#</th>
              <th>Name</th>
              <th>Type</th>
              <th>Configuration</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {columns.map((c, i) => (
              <tr key={c.id}>
                <td className="muted">{i + 1}</td>
                <td>
                  <b>{c.name}</b> {c.is_part_of_score ? <span className="badge accent">score</span> : null}
                </td>
                <td>
                  <span className="badge">{c.column_type}</span>
                </td>
                <td className="mono" style={{ maxWidth: 360, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
                  {c.column_type === 'DATASET' ? <span className="muted">from the dataset</span> : JSON.stringify(c.configuration)}
                </td>
                <td className="num" style={{ whiteSpace: 'nowrap' }}>
                  {c.column_type === 'DATASET' ? null : (
                    <>
                      <button type="button" className="ghost small" aria-label={`Move ${c.name} left`} disabled={i <= firstEval} onClick={() => void move(c, -1)}>
                        ↑
                      </button>
                      <button type="button" className="ghost small" aria-label={`Move ${c.name} right`} disabled={i === columns.length - 1} onClick={() => void move(c, 1)}>
                        ↓
                      </button>
                      <button type="button" className="small" onClick={() => setEditing(c)}>
                        Edit
                      </button>
                      <button type="button" className="small danger" onClick={() => remove(c)}>
                        Delete
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {firstEval < 0 ? <p className="muted">Add a column to evaluate each row: e.g. “Contains” to check an expected word, or “Prompt template” to call a model.</p> : null}
      </section>
      {editing ? (
        <ColumnEditor
          reportId={pipeline.id}
          column={editing === 'new' ? undefined : editing}
          leftColumns={(editing === 'new' ? columns : columns.slice(0, columns.indexOf(editing))).map((c) => c.name)}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            refresh();
          }}
        />
      ) : null}
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
                <td className="num">{r.score == null ? '—' : r.score.toFixed(1)}</td>
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
