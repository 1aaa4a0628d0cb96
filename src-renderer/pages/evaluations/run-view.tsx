import { useEffect, useRef, useState } from 'react';
import { errorText } from '../../api/client';
import { useApi, useLoad } from '../../api/context';
import { loadSession } from '../../api/session';
import { readEvents } from '../../api/sse';
import type { ReportCell, ReportDetail, RunProgress, RunStarted, RunStatus, Score } from '../../api/types';
import { countOf, fmtCost, fmtInt, fmtMs, fmtScore, scoreUnitTitle } from '../../components/format';
import { JsonView } from '../../components/json-view';
import { Modal } from '../../components/modal';
import { setParams } from '../../router';
import { ItemActions } from '../../components/item-actions';
import { cellText } from '../datasets/cell-text';
import { Pager } from '../../components/pager';
import { ManifestView } from './manifest-view';
import { useElapsed } from './use-elapsed';
import { useRunRows } from './use-run-rows';

export const runStatusClass = (s: RunStatus | null) => (s === 'COMPLETED' ? 'ok' : s === 'FAILED' ? 'bad' : s === 'CANCELED' ? 'warn' : 'accent');

export function RunView({ runId, onChanged }: { runId: number; onChanged: () => void }) {
  const api = useApi();
  const detail = useLoad((a, signal) => a<ReportDetail>(`/reports/${runId}`, { signal }), [runId]);
  const [page, setPage] = useState(1);
  const rows = useRunRows(runId, page);
  const [progress, setProgress] = useState<RunProgress | null>(null);
  const [cell, setCell] = useState<{ row: number; column: string; cell: ReportCell } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const finished = detail.data?.status && detail.data.status !== 'RUNNING';
  const score = useLoad((a, signal) => (finished ? a<{ score: Score }>(`/reports/${runId}/score`, { signal }) : Promise.resolve(null)), [runId, finished]);
  const refreshRows = useRef(rows.refresh);
  refreshRows.current = rows.refresh;
  const reloadDetail = useRef(detail.reload);
  reloadDetail.current = detail.reload;

  useEffect(() => {
    const controller = new AbortController();
    // Only a run seen running reloads at its end; opening a finished run loads it once, not twice.
    let sawRunning = false;
    const token = loadSession()?.token ?? '';
    readEvents(`/api/public/v2/reports/${runId}/events`, token, controller.signal, (event, data) => {
      if (event !== 'progress' && event !== 'done') return;
      setProgress(data as RunProgress);
      if (event === 'progress') {
        sawRunning = true;
        // Paced and coalesced by useRunRows: up to ten events a second ask, at most two fetches go.
        refreshRows.current('progress');
        return;
      }
      if (sawRunning) {
        refreshRows.current('final');
        reloadDetail.current();
        onChanged();
      }
    }).catch((e: unknown) => {
      if (!controller.signal.aborted) setError(errorText(e));
    });
    return () => controller.abort();
    // onChanged is the parent's reload; re-subscribing for a new function identity would replay the stream.
  }, [runId]);

  const rerun = async (exactly: boolean) => {
    const run = detail.data?.report;
    if (!run?.parent_report_id) return;
    setError(null);
    try {
      const res = await api<RunStarted>(`/reports/${run.parent_report_id}/run`, {
        body: { name: `${run.name.slice(0, 240)} (again)`, ...(exactly ? { reproduce_report_id: run.id } : {}) },
      });
      onChanged();
      setParams({ run: String(res.report_id) }, { replace: false });
    } catch (e) {
      setError(errorText(e));
    }
  };

  const humanType = (column: string) => {
    const c = detail.data?.report_columns.find((x) => x.name === column && x.column_type === 'HUMAN');
    return c ? (c.configuration.data_type as 'number' | 'string' | 'boolean') : null;
  };
  const d = detail.data;
  const elapsed = useElapsed(d?.report.manifest?.started_at ?? d?.report.created_at, (progress?.status ?? d?.status) === 'RUNNING');
  if (detail.error) return <div className="pane error">{detail.error}</div>;
  if (!d) return <div className="pane muted">Loading…</div>;
  const status = progress?.status ?? d.status;
  const total = progress?.total_cells ?? 0;
  const done = progress?.done_cells ?? 0;
  const pct = total ? Math.round((done / total) * 100) : status === 'RUNNING' ? 0 : 100;
  const columns = rows.data?.columns ?? [];
  // Cards follow the stream (its last event holds the final totals, so they never jump back while
  // the finished run reloads); duration ticks while it runs, then the stored figure.
  const cost = progress ? progress.cost : d.stats.cost;
  const tokens = progress ? progress.input_tokens + progress.output_tokens : d.stats.input_tokens + d.stats.output_tokens;
  const duration = status === 'RUNNING' ? elapsed : (d.stats.duration_ms ?? elapsed);

  return (
    <div className="pane" aria-label={`Run ${d.report.name}`}>
      <div className="row">
        <button type="button" className="ghost" onClick={() => setParams({ run: null })}>
          ← Pipeline
        </button>
        <h1>{d.report.name}</h1>
        <span className={`badge ${runStatusClass(status)}`} data-testid="run-status">{status?.toLowerCase()}</span>
        <ItemActions
          kind="run"
          name={d.report.name}
          onArchive={async () => {
            await api(`/api/public/v2/reports/${runId}`, { method: 'DELETE' });
            setParams({ run: null });
            onChanged();
          }}
          archiveNote="A running run is canceled first; the pipeline and its other runs stay."
        />
        <span className="spacer grow" />
        {status !== 'RUNNING' && d.report.parent_report_id ? (
          <>
            <button type="button" onClick={() => void rerun(true)} disabled={!d.report.manifest} title="Same dataset version, prompt versions, models, parameters and code as this run, even if labels moved since">
              ↻ Run again exactly
            </button>
            <button type="button" onClick={() => void rerun(false)} title="The pipeline as it is now: latest published dataset version, labels as they point now">
              Run again (latest)
            </button>
          </>
        ) : null}
        {status === 'RUNNING' ? (
          <button type="button" className="danger" onClick={() => void api(`/api/public/v2/reports/${runId}/cancel`, { method: 'POST' }).catch((e: unknown) => setError(errorText(e)))}>
            Cancel run
          </button>
        ) : null}
      </div>
      <div className="row" aria-label="Progress">
        <div className="progress" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct} aria-label="Run progress">
          <div style={{ width: `${pct}%` }} />
        </div>
        <span className="muted" style={{ minWidth: 150 }}>
          {fmtInt(done)} / {countOf(total, 'cell')}{progress?.errors ? ` · ${countOf(progress.errors, 'error')}` : ''}
        </span>
      </div>
      {error ? <p className="error" role="alert">{error}</p> : null}
      {d.error ? <p className="error">{d.error}</p> : null}
      <div className="cards">
        <div className="card stat">
          <div className="label">Score</div>
          <div className="value" data-testid="run-score" title={scoreUnitTitle(score.data?.score.unit)}>
            {fmtScore(score.data?.score.overall_score, score.data?.score.unit)}
          </div>
        </div>
        <div className="card stat">
          <div className="label">Cost</div>
          <div className="value" data-testid="run-cost">{fmtCost(cost)}</div>
        </div>
        <div className="card stat">
          <div className="label">Tokens</div>
          <div className="value" data-testid="run-tokens">{fmtInt(tokens)}</div>
        </div>
        <div className="card stat">
          <div className="label">Duration</div>
          <div className="value" data-testid="run-duration">{fmtMs(duration)}</div>
        </div>
      </div>
      {score.data?.score.details.columns?.length ? (
        <p className="muted" style={{ margin: 0 }}>
          Score from {score.data.score.details.columns.map((c) => `${c.column_name} (${c.type === 'boolean' ? `${fmtScore(c.score, 'percent')} passing` : fmtScore(c.score, 'mean')})`).join(', ')}
        </p>
      ) : null}
      {d.report.manifest ? <ManifestView manifest={d.report.manifest} /> : null}
      <div style={{ overflow: 'auto', border: '1px solid var(--border)', borderRadius: 8 }}>
        <table className="grid" aria-label="Report">
          <thead>
            <tr>
              <th className="num">#</th>
              {columns.map((c) => (
                <th key={c.id} title={c.column_type}>
                  {c.name}
                  {c.column_type !== 'DATASET' ? <div className="muted" style={{ fontWeight: 400, fontSize: 10 }}>{c.column_type}</div> : null}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {(rows.data?.rows ?? []).map((r) => (
              <tr key={r.row_index}>
                <td className="num muted">{r.row_index + 1}</td>
                {columns.map((c) => {
                  const value = r.cells[c.name];
                  const evaluated = c.column_type !== 'DATASET';
                  return (
                    <td
                      key={c.id}
                      className={evaluated && value ? `cell-${value.status} clickable` : undefined}
                      data-status={evaluated ? value?.status : undefined}
                      style={evaluated ? { cursor: 'pointer' } : undefined}
                      onClick={() => evaluated && value && setCell({ row: r.row_index, column: c.name, cell: value })}
                    >
                      <div className="cell-value">{value ? (value.status === 'ERROR' ? value.error : value.status === 'SKIPPED' && c.column_type === 'HUMAN' ? '✎ enter a value' : value.status === 'QUEUED' || value.status === 'RUNNING' || value.status === 'SKIPPED' ? value.status.toLowerCase() : cellText(value.value)) : ''}</div>
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager page={page} pages={rows.data?.pages} onPage={setPage} />
      {cell ? (
        <Modal title={`Row ${cell.row + 1} · ${cell.column}`} onClose={() => setCell(null)}>
          <dl className="kv">
            <dt>Status</dt>
            <dd>
              <span className={`badge ${cell.cell.status === 'PASSED' ? 'ok' : cell.cell.status === 'FAILED' ? 'bad' : 'warn'}`}>{cell.cell.status}</span>
            </dd>
            {cell.cell.latency_ms !== undefined ? (
              <>
                <dt>Latency</dt>
                <dd>{fmtMs(cell.cell.latency_ms)}</dd>
              </>
            ) : null}
            {cell.cell.cost !== undefined ? (
              <>
                <dt>Cost</dt>
                <dd>{fmtCost(cell.cell.cost)}</dd>
              </>
            ) : null}
          </dl>
          {cell.cell.error ? <p className="error mono">{cell.cell.error}</p> : null}
          <JsonView value={cell.cell.value} label="Cell value" />
          {humanType(cell.column) ? (
            <HumanEntry
              dataType={humanType(cell.column)!}
              initial={cell.cell.value}
              onSave={async (value) => {
                await api(`/api/public/v2/reports/${runId}/cells`, { method: 'PATCH', body: { row_index: cell.row, column_name: cell.column, value } });
                setCell(null);
                rows.refresh('final');
                detail.reload();
                score.reload();
                onChanged();
              }}
            />
          ) : null}
        </Modal>
      ) : null}
    </div>
  );
}

/** A person's value for a HUMAN cell, typed by the column's data type. */
function HumanEntry({ dataType, initial, onSave }: { dataType: 'number' | 'string' | 'boolean'; initial: unknown; onSave: (value: unknown) => Promise<void> }) {
  const [text, setText] = useState(initial === null || initial === undefined ? '' : String(initial));
  const [error, setError] = useState<string | null>(null);
  const value = dataType === 'number' ? (text.trim() === '' ? null : Number(text)) : dataType === 'boolean' ? (text === '' ? null : text === 'true') : text;
  return (
    <form
      className="row"
      onSubmit={(e) => {
        e.preventDefault();
        setError(null);
        onSave(value).catch((err: unknown) => setError(errorText(err)));
      }}
    >
      {dataType === 'boolean' ? (
        <select aria-label="Human value" value={text} onChange={(e) => setText(e.target.value)}>
          <option value="">—</option>
          <option value="true">Yes (pass)</option>
          <option value="false">No (fail)</option>
        </select>
      ) : (
        <input aria-label="Human value" type={dataType === 'number' ? 'number' : 'text'} value={text} onChange={(e) => setText(e.target.value)} autoFocus />
      )}
      <button type="submit" className="primary">
        Save value
      </button>
      {error ? <span className="error" role="alert">{error}</span> : null}
    </form>
  );
}
