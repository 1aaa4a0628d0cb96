import { useLoad } from '../../api/context';
import type { PipelineSummary, ReportCell, ReportRows } from '../../api/types';
import { setParams } from '../../router';
import { cellText } from '../datasets/cell-text';

const RANK: Record<string, number> = { PASSED: 2, FAILED: 1, ERROR: 0, SKIPPED: 0, QUEUED: 0, RUNNING: 0 };

/** All rows of a run (pages of 100); comparisons are for review-sized datasets. */
async function allRows(api: Parameters<Parameters<typeof useLoad>[0]>[0], id: number, signal: AbortSignal): Promise<ReportRows> {
  const first = await api<ReportRows>(`/api/public/v2/reports/${id}/rows`, { signal, query: { page: 1, per_page: 100 } });
  for (let p = 2; p <= Math.min(first.pages, 50); p++) {
    const next = await api<ReportRows>(`/api/public/v2/reports/${id}/rows`, { signal, query: { page: p, per_page: 100 } });
    first.rows.push(...next.rows);
  }
  return first;
}

/** Two runs of one pipeline, row by row: which rows got better, which got worse. */
export function RunCompare({ pipeline, ids }: { pipeline: PipelineSummary; ids: number[] }) {
  const [aId, bId] = ids;
  const runs = useLoad(async (api, signal) => Promise.all([allRows(api, aId, signal), allRows(api, bId, signal)]), [aId, bId]);
  const a = pipeline.runs.find((r) => r.id === aId);
  const b = pipeline.runs.find((r) => r.id === bId);
  if (runs.error) return <div className="pane error">{runs.error}</div>;
  if (!runs.data || !a || !b) return <div className="pane muted">Loading…</div>;
  const [ra, rb] = runs.data;
  const dataset = ra.columns.filter((c) => c.column_type === 'DATASET').map((c) => c.name);
  const evaluated = ra.columns.filter((c) => c.column_type !== 'DATASET').map((c) => c.name).filter((n) => rb.columns.some((c) => c.name === n));
  const byIndex = new Map(rb.rows.map((r) => [r.row_index, r]));
  let better = 0;
  let worse = 0;
  const rows = ra.rows.map((row) => {
    const other = byIndex.get(row.row_index);
    let delta = 0;
    for (const name of evaluated) delta += (RANK[other?.cells[name]?.status ?? ''] ?? 0) - (RANK[row.cells[name]?.status ?? ''] ?? 0);
    if (delta > 0) better++;
    if (delta < 0) worse++;
    return { row, other, delta };
  });
  const show = (cell: ReportCell | undefined) => (cell ? (cell.status === 'ERROR' ? cell.error : cellText(cell.value)) : '');

  return (
    <div className="pane" aria-label="Run comparison">
      <div className="row">
        <button type="button" className="ghost" onClick={() => setParams({ compare: null })}>
          ← Pipeline
        </button>
        <h1>
          {a.name} → {b.name}
        </h1>
      </div>
      <div className="cards">
        <div className="card stat">
          <div className="label">Score</div>
          <div className="value">
            {a.score?.toFixed(1) ?? '—'} → {b.score?.toFixed(1) ?? '—'}
          </div>
        </div>
        <div className="card stat">
          <div className="label">Rows improved</div>
          <div className="value" style={{ color: 'var(--ok)' }} data-testid="improved">{better}</div>
        </div>
        <div className="card stat">
          <div className="label">Rows regressed</div>
          <div className="value" style={{ color: 'var(--bad)' }} data-testid="regressed">{worse}</div>
        </div>
      </div>
      <div style={{ overflow: 'auto', border: '1px solid var(--border)', borderRadius: 8 }}>
        <table className="grid" aria-label="Comparison">
          <thead>
            <tr>
              <th className="num">#</th>
              {dataset.map((n) => (
                <th key={n}>{n}</th>
              ))}
              {evaluated.map((n) => (
                <th key={n} colSpan={2}>
                  {n}
                  <div className="muted" style={{ fontWeight: 400 }}>
                    {a.name} · {b.name}
                  </div>
                </th>
              ))}
              <th />
            </tr>
          </thead>
          <tbody>
            {rows.map(({ row, other, delta }) => (
              <tr key={row.row_index} data-delta={delta > 0 ? 'improved' : delta < 0 ? 'regressed' : 'same'}>
                <td className="num muted">{row.row_index + 1}</td>
                {dataset.map((n) => (
                  <td key={n}>
                    <div className="cell-value">{show(row.cells[n])}</div>
                  </td>
                ))}
                {evaluated.map((n) => [
                  <td key={`${n}-a`} className={`cell-${row.cells[n]?.status ?? ''}`}>
                    <div className="cell-value">{show(row.cells[n])}</div>
                  </td>,
                  <td key={`${n}-b`} className={`cell-${other?.cells[n]?.status ?? ''}`}>
                    <div className="cell-value">{show(other?.cells[n])}</div>
                  </td>,
                ])}
                <td>{delta > 0 ? <span className="badge ok">improved</span> : delta < 0 ? <span className="badge bad">regressed</span> : null}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
