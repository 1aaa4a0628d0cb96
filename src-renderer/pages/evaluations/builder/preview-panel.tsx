import { useState } from 'react';
import { errorText } from '../../../api/client';
import { useApi } from '../../../api/context';
import type { PreviewAnswer as Preview } from '../../../api/types';
import { fmtCost, fmtMs } from '../../../components/format';
import { cellText } from '../../datasets/cell-text';
import { columnTitle } from './column-kinds';

/** "Preview": the pipeline on its first rows, computed now and stored nowhere (POST …/preview). */
export function PreviewPanel({ pipelineId, disabled }: { pipelineId: number; disabled: boolean }) {
  const api = useApi();
  const [rows, setRows] = useState(3);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Preview | null>(null);
  const [error, setError] = useState<string | null>(null);

  const preview = async () => {
    setBusy(true);
    setError(null);
    try {
      setResult(await api<Preview>(`/api/public/v2/reports/${pipelineId}/preview`, { body: { rows } }));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card stack" aria-label="Preview">
      <div className="row">
        <h2 className="grow" style={{ margin: 0 }}>Preview</h2>
        <label className="builder-inline-label">
          First
          <input type="number" aria-label="Preview rows" min={1} max={20} value={rows} style={{ width: 56 }} onChange={(e) => setRows(Math.min(20, Math.max(1, Number(e.target.value) || 1)))} />
          rows
        </label>
        <button type="button" onClick={() => void preview()} disabled={busy || disabled}>
          {busy ? 'Previewing…' : '◎ Preview'}
        </button>
      </div>
      {!result && !error ? <p className="muted" style={{ margin: 0 }}>Runs the columns on the first rows without creating a run, to check them before spending on the whole dataset. Model calls are made (and logged, tagged “preview”).</p> : null}
      {error ? <p className="error" role="alert">{error}</p> : null}
      {result ? (
        <>
          <p className="muted" style={{ margin: 0 }}>
            Dataset v{result.dataset.version_number}, {result.rows.length} of {result.dataset.row_count} rows · {fmtMs(result.duration_ms)} · {result.input_tokens + result.output_tokens} tokens · {fmtCost(result.cost)}
            {result.timed_out ? <span className="badge warn"> stopped at the time limit</span> : null}
          </p>
          <div className="builder-preview-table">
            <table className="grid" aria-label="Preview rows">
              <thead>
                <tr>
                  <th className="num">#</th>
                  {result.columns.map((c) => (
                    <th key={c.name}>
                      {c.name}
                      {c.column_type !== 'DATASET' ? <div className="muted" style={{ fontWeight: 400, fontSize: 10 }}>{columnTitle(c.column_type)}</div> : null}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {result.rows.map((r) => (
                  <tr key={r.row_index}>
                    <td className="num muted">{r.row_index + 1}</td>
                    {result.columns.map((c) => {
                      const cell = r.cells[c.name];
                      const evaluated = c.column_type !== 'DATASET';
                      return (
                        <td key={c.name} className={evaluated && cell ? `cell-${cell.status}` : undefined} data-status={evaluated ? cell?.status : undefined} title={cell?.error}>
                          <div className="cell-value">{!cell ? '' : cell.status === 'ERROR' || cell.status === 'SKIPPED' ? cell.error ?? cell.status.toLowerCase() : cellText(cell.value)}</div>
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </section>
  );
}
