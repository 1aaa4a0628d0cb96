import { useState } from 'react';
import type { Api } from '../../api/client';
import { useLoad } from '../../api/context';
import type { CompareAnswer, PipelineSummary, ReportRows } from '../../api/types';
import { fmtScore, fmtTime } from '../../components/format';
import { setParams } from '../../router';
import { cellText } from '../datasets/cell-text';
import { fmtP, fmtSigned, plainWords } from './compare-order';
import { ScoreChart } from './score-chart';

type Verdict = CompareAnswer['rows'][number]['cells'][string]['verdict'];
type ComparedColumn = CompareAnswer['columns'][number];

/** Comparisons are for review-sized datasets: at most this many pages of 100 rows are read. */
const MAX_PAGES = 50;

async function allComparePages(api: Api, baseline: number, candidate: number, verdict: 'regressed' | undefined, signal: AbortSignal): Promise<CompareAnswer> {
  const path = `/reports/${baseline}/compare/${candidate}`;
  const first = await api<CompareAnswer>(path, { signal, query: { page: 1, per_page: 100, verdict } });
  for (let p = 2; p <= Math.min(first.pages, MAX_PAGES); p++) {
    first.rows.push(...(await api<CompareAnswer>(path, { signal, query: { page: p, per_page: 100, verdict } })).rows);
  }
  return first;
}

async function allReportRows(api: Api, id: number, signal: AbortSignal): Promise<ReportRows> {
  const first = await api<ReportRows>(`/api/public/v2/reports/${id}/rows`, { signal, query: { page: 1, per_page: 100 } });
  for (let p = 2; p <= Math.min(first.pages, MAX_PAGES); p++) {
    first.rows.push(...(await api<ReportRows>(`/api/public/v2/reports/${id}/rows`, { signal, query: { page: p, per_page: 100 } })).rows);
  }
  return first;
}

/** A row's verdict over all its columns: any regression makes it regressed, else any improvement improved. */
function rowVerdict(cells: Record<string, { verdict: Verdict }> | undefined): Verdict {
  const verdicts = Object.values(cells ?? {}).map((c) => c.verdict);
  for (const v of ['regressed', 'improved', 'changed'] as const) if (verdicts.includes(v)) return v;
  return 'same';
}

const VERDICT_CLASS: Record<Verdict, string> = { improved: 'ok', regressed: 'bad', changed: 'warn', same: '' };

/**
 * Runs of one pipeline side by side: the first is the baseline, every other run a candidate
 * compared with it by the server (`GET /reports/{baseline}/compare/{candidate}`), so which run is
 * the baseline is always named on screen and never depends on the order boxes were ticked.
 */
export function RunCompare({ pipeline, ids }: { pipeline: PipelineSummary; ids: number[] }) {
  const [baselineId, ...candidateIds] = ids;
  const [regressionsOnly, setRegressionsOnly] = useState(false);
  const key = ids.join(',');
  const loaded = useLoad(
    async (api, signal) => {
      const [base, ...compares] = await Promise.all([
        allReportRows(api, baselineId, signal),
        ...candidateIds.map((c) => allComparePages(api, baselineId, c, undefined, signal)),
      ]);
      return { base: base as ReportRows, compares: compares as CompareAnswer[] };
    },
    [key],
  );
  const regressed = useLoad(
    async (api, signal) => (regressionsOnly ? Promise.all(candidateIds.map((c) => allComparePages(api, baselineId, c, 'regressed', signal))) : null),
    [key, regressionsOnly],
  );
  const runOf = (id: number) => pipeline.runs.find((r) => r.id === id);
  const reorder = (next: number[]) => setParams({ compare: next.join(',') });

  if (ids.length < 2) return <div className="pane muted">Pick two to four runs to compare.</div>;
  if (loaded.error) return <div className="pane error" role="alert">{loaded.error}</div>;
  if (!loaded.data) return <div className="pane muted">Loading…</div>;
  const { base, compares } = loaded.data;
  const baseline = compares[0].baseline;
  const datasetColumns = base.columns.filter((c) => c.column_type === 'DATASET').map((c) => c.name);
  const evaluated = compares[0].columns.map((c) => c.name).filter((n) => compares.every((cmp) => cmp.columns.some((c) => c.name === n)));
  const byRow = compares.map((cmp) => new Map(cmp.rows.map((r) => [r.row_index, r.cells])));
  // Ticked, the rows and their count wait for the regressed rows: all rows meanwhile would read as
  // "every row regressed" for as long as the answer takes. A failed answer shows no rows and says
  // so in their place, with a retry.
  const failed = regressionsOnly && regressed.error !== null;
  const filtering = regressionsOnly && !failed && (regressed.loading || !regressed.data);
  const shownRows = !regressionsOnly ? base.rows
    : regressed.data && !filtering && !failed ? base.rows.filter((r) => regressed.data!.some((cmp) => cmp.rows.some((x) => x.row_index === r.row_index)))
    : [];
  const names = [baseline.name, ...compares.map((c) => c.candidate.name)];

  return (
    <div className="pane" aria-label="Run comparison">
      <div className="row">
        <button type="button" className="ghost" onClick={() => setParams({ compare: null })}>
          ← Pipeline
        </button>
        <h1>Compare runs</h1>
        <span className="spacer grow" />
        {ids.length === 2 ? (
          <button type="button" onClick={() => reorder([ids[1], ids[0]])} title="Make the candidate the baseline">
            ⇄ Swap baseline and candidate
          </button>
        ) : null}
      </div>

      <div className="compare-runs">
        <section className="card stack" aria-label={`Baseline ${baseline.name}`} style={{ gap: 6 }}>
          <div className="row">
            <span className="badge accent">Baseline</span>
            <b data-testid="baseline-name">{baseline.name}</b>
          </div>
          <div className="muted">{runOf(baseline.id) ? `started ${fmtTime(runOf(baseline.id)!.created_at)}` : null}</div>
          <div className="stat">
            <div className="label">Score</div>
            <div className="value" data-testid="baseline-score">{fmtScore(baseline.score, baseline.score_unit)}</div>
          </div>
        </section>
        {compares.map((cmp, k) => (
          <CandidateCard
            key={cmp.candidate.id}
            compare={cmp}
            rows={byRow[k]}
            startedAt={runOf(cmp.candidate.id)?.created_at}
            onMakeBaseline={ids.length > 2 ? () => reorder([cmp.candidate.id, ...ids.filter((id) => id !== cmp.candidate.id)]) : undefined}
          />
        ))}
      </div>

      <ColumnChanges compares={compares} />

      <div className="row">
        <h2 className="grow" style={{ margin: 0 }}>Rows</h2>
        <label style={{ display: 'flex', flexDirection: 'row', alignItems: 'center', gap: 6 }}>
          <input type="checkbox" checked={regressionsOnly} onChange={(e) => setRegressionsOnly(e.target.checked)} />
          Regressions only
        </label>
        <span className="muted" data-testid="rows-shown">
          {failed ? 'not loaded' : filtering ? 'loading…' : `${shownRows.length} of ${base.rows.length} rows`}
        </span>
      </div>
      {regressed.error ? <p className="error" role="alert">{regressed.error}</p> : null}
      <div style={{ overflow: 'auto', border: '1px solid var(--border)', borderRadius: 8, flexShrink: 0 }}>
        <table className="grid compare-grid" aria-label="Comparison">
          <thead>
            <tr>
              <th className="num" rowSpan={2}>#</th>
              {datasetColumns.map((n) => (
                <th key={n} rowSpan={2}>{n}</th>
              ))}
              {evaluated.map((n) => (
                <th key={n} colSpan={names.length} className="group">{n}</th>
              ))}
              <th colSpan={compares.length} className="group">Verdict</th>
            </tr>
            <tr>
              {evaluated.map((n) =>
                names.map((run, i) => (
                  <th key={`${n}-${i}`} className="sub">
                    {i === 0 ? `${run} (baseline)` : run}
                  </th>
                )),
              )}
              {compares.map((cmp) => (
                <th key={cmp.candidate.id} className="sub">
                  {cmp.candidate.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shownRows.map((row) => {
              const verdicts = byRow.map((m) => rowVerdict(m.get(row.row_index)));
              return (
                <tr key={row.row_index} data-delta={verdicts[0]}>
                  <td className="num muted">{row.row_index + 1}</td>
                  {datasetColumns.map((n) => (
                    <td key={n}>
                      <div className="cell-value">{cellText(row.cells[n]?.value)}</div>
                    </td>
                  ))}
                  {evaluated.map((n) => [
                    <td key={`${n}-base`}>
                      <Value value={byRow[0].get(row.row_index)?.[n]?.baseline} />
                    </td>,
                    ...byRow.map((m, k) => {
                      const cell = m.get(row.row_index)?.[n];
                      return (
                        <td key={`${n}-${k}`} className={cell ? `verdict-${cell.verdict}` : undefined} data-verdict={cell?.verdict}>
                          <Value value={cell?.candidate} />
                        </td>
                      );
                    }),
                  ])}
                  {verdicts.map((v, k) => (
                    <td key={k}>{v === 'same' ? <span className="muted">same</span> : <span className={`badge ${VERDICT_CLASS[v]}`}>{v}</span>}</td>
                  ))}
                </tr>
              );
            })}
            {shownRows.length === 0 ? (
              <tr>
                <td colSpan={1 + datasetColumns.length + evaluated.length * names.length + compares.length} className="muted">
                  {failed ? (
                    <>
                      Could not load the regressed rows.{' '}
                      <button type="button" className="small" onClick={regressed.reload}>
                        Try again
                      </button>
                    </>
                  ) : filtering ? 'Loading the regressed rows…' : regressionsOnly ? 'No row got worse.' : 'No rows.'}
                </td>
              </tr>
            ) : null}
          </tbody>
        </table>
      </div>
      <ScoreChart runs={pipeline.runs} highlight={ids} />
    </div>
  );
}

/** A compared value: short values (booleans, numbers) never wrap mid-word. */
function Value({ value }: { value: unknown }) {
  const text = cellText(value);
  return <div className={`cell-value${text.length <= 12 ? ' short' : ''}`}>{text}</div>;
}

function CandidateCard({ compare, rows, startedAt, onMakeBaseline }: {
  compare: CompareAnswer;
  rows: Map<number, Record<string, { verdict: Verdict }>>;
  startedAt?: string;
  onMakeBaseline?: () => void;
}) {
  const { candidate } = compare;
  const counts = { improved: 0, regressed: 0 };
  for (const cells of rows.values()) {
    const v = rowVerdict(cells);
    if (v === 'improved' || v === 'regressed') counts[v]++;
  }
  const words = plainWords({ kind: 'number', delta: compare.score_delta, ci95: compare.score_ci95 ?? null });
  return (
    <section className="card stack" aria-label={`Candidate ${candidate.name}`} style={{ gap: 6 }}>
      <div className="row">
        <span className="badge">Candidate</span>
        <b>{candidate.name}</b>
      </div>
      <div className="row muted">
        {startedAt ? `started ${fmtTime(startedAt)}` : null}
        {onMakeBaseline ? (
          <button type="button" className="small" onClick={onMakeBaseline} style={{ marginLeft: 'auto' }}>
            Make baseline
          </button>
        ) : null}
      </div>
      <div className="row" style={{ gap: 18, alignItems: 'flex-start' }}>
        <div className="stat">
          <div className="label">Score</div>
          <div className="value">
            <span data-testid="candidate-score">{fmtScore(candidate.score, candidate.score_unit)}</span>{' '}
            <span className="muted" style={{ fontSize: 13 }}>({fmtSigned(compare.score_delta, candidate.score_unit === 'percent' ? 1 : 2)}{candidate.score_unit === 'percent' ? ' pts' : ''})</span>
          </div>
          <div className={`words ${words.tone}`} data-testid="score-words" title={compare.summary}>
            {words.words}
            {compare.score_ci95 ? <span className="muted"> · 95% CI {fmtSigned(compare.score_ci95[0])} to {fmtSigned(compare.score_ci95[1])}</span> : null}
          </div>
        </div>
        <div className="stat">
          <div className="label">Rows improved</div>
          <div className="value" style={{ color: 'var(--ok)' }} data-testid="improved">{counts.improved}</div>
        </div>
        <div className="stat">
          <div className="label">Rows regressed</div>
          <div className="value" style={{ color: 'var(--bad)' }} data-testid="regressed">{counts.regressed}</div>
        </div>
      </div>
    </section>
  );
}

/** Booleans read as "% passing" and their change in percentage points; numbers as means on their own scale. */
function fmtMean(c: ComparedColumn, v: number | null) {
  if (v === null) return '—';
  return c.kind === 'boolean' ? `${(v * 100).toFixed(0)}% true` : fmtScore(v, 'mean');
}

/** One row per column and candidate: means, change, counts, the test's evidence and its plain words. */
function ColumnChanges({ compares }: { compares: CompareAnswer[] }) {
  const several = compares.length > 1;
  const names = compares[0].columns.map((c) => c.name);
  return (
    <section className="card stack" aria-label="Column changes" style={{ gap: 8, overflowX: 'auto', flexShrink: 0 }}>
      <h2 style={{ margin: 0 }}>Columns</h2>
      <table className="grid compare-stats">
        <thead>
          <tr>
            <th>Column</th>
            {several ? <th>Candidate</th> : null}
            <th className="num">Baseline</th>
            <th className="num">Candidate</th>
            <th className="num">Change</th>
            <th className="num">Better</th>
            <th className="num">Worse</th>
            <th className="num">Same</th>
            <th>Evidence</th>
            <th>In plain words</th>
          </tr>
        </thead>
        <tbody>
          {names.flatMap((name) =>
            compares.map((cmp, k) => {
              const c = cmp.columns.find((x) => x.name === name);
              if (!c) return null;
              const words = plainWords(c);
              return (
                <tr key={`${name}-${cmp.candidate.id}`} data-column={name} data-candidate={cmp.candidate.name}>
                  <td>{k === 0 ? <b>{name}</b> : null}</td>
                  {several ? <td>{cmp.candidate.name}</td> : null}
                  <td className="num">{fmtMean(c, c.baseline_mean)}</td>
                  <td className="num">{fmtMean(c, c.candidate_mean)}</td>
                  <td className="num">{c.delta === null ? '—' : c.kind === 'boolean' ? `${fmtSigned(c.delta * 100, 0)} pts` : fmtSigned(c.delta, 2)}</td>
                  <td className="num">{c.improved}</td>
                  <td className="num">{c.regressed}</td>
                  <td className="num">{c.unchanged}</td>
                  <td className="muted">
                    {c.p_value !== undefined ? `McNemar p = ${fmtP(c.p_value)}` : c.ci95 ? `95% CI ${fmtSigned(c.ci95[0], 2)} to ${fmtSigned(c.ci95[1], 2)}` : c.kind === 'text' ? c.summary : '—'}
                  </td>
                  <td>
                    <span className={`words ${words.tone}`} title={c.summary}>{words.words}</span>
                  </td>
                </tr>
              );
            }),
          )}
        </tbody>
      </table>
    </section>
  );
}
