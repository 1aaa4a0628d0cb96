import { useState } from 'react';
import type { PipelineSummary } from '../../api/types';
import { countOf, fmtScore, fmtTime } from '../../components/format';

type Run = PipelineSummary['runs'][number];

const W = 900;
const H = 140;
const PAD = { top: 12, right: 14, bottom: 24, left: 40 };

/**
 * The score of every scored run of a pipeline, oldest to newest, as a small SVG line. Runs being
 * compared are drawn larger and named; hovering a point names any run.
 */
export function ScoreChart({ runs, highlight = [] }: { runs: Run[]; highlight?: number[] }) {
  const [hover, setHover] = useState<number | null>(null);
  const scored = runs.filter((r) => r.score !== null).sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id - b.id);
  if (scored.length < 2) return null;
  const values = scored.map((r) => r.score!);
  // Percent scores share the 0–100 axis; means are on their columns' own scale, so the axis fits them.
  const percent = scored.every((r) => r.score_unit === 'percent');
  const top = percent ? Math.max(100, ...values) : Math.max(...values);
  const bottom = Math.min(0, ...values);
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (scored.length === 1 ? innerW / 2 : (innerW * i) / (scored.length - 1));
  const y = (v: number) => PAD.top + innerH - ((v - bottom) / (top - bottom || 1)) * innerH;
  const ticks = [bottom, (bottom + top) / 2, top];
  const shown = hover ?? null;

  return (
    <figure className="card" style={{ margin: 0, position: 'relative', maxWidth: 940, flexShrink: 0 }} aria-label="Score across runs">
      <h3 style={{ margin: 0 }}>Score across runs</h3>
      <svg className="chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`Score of ${countOf(scored.length, 'run')}, oldest to newest`} onMouseLeave={() => setHover(null)}>
        {ticks.map((v) => (
          <g key={v}>
            <line className="grid-line" x1={PAD.left} x2={W - PAD.right} y1={y(v)} y2={y(v)} />
            <text x={PAD.left - 6} y={y(v) + 3} textAnchor="end">
              {percent ? `${v.toFixed(0)}%` : v.toFixed(top - bottom < 10 ? 2 : 0)}
            </text>
          </g>
        ))}
        <polyline fill="none" stroke="var(--accent)" strokeWidth={2} points={scored.map((r, i) => `${x(i)},${y(r.score!)}`).join(' ')} />
        {scored.map((r, i) => {
          const marked = highlight.includes(r.id);
          return (
            <g key={r.id} onMouseEnter={() => setHover(i)}>
              <circle cx={x(i)} cy={y(r.score!)} r={marked ? 5 : 3} fill={marked ? 'var(--accent)' : 'var(--bg)'} stroke="var(--accent)" strokeWidth={2} />
              <circle cx={x(i)} cy={y(r.score!)} r={10} fill="transparent" />
              {marked || scored.length <= 8 ? (
                <text x={x(i)} y={H - 6} textAnchor={i === 0 ? 'start' : i === scored.length - 1 ? 'end' : 'middle'} fontWeight={marked ? 600 : 400}>
                  {r.name.length > 24 ? `${r.name.slice(0, 23)}…` : r.name}
                </text>
              ) : null}
            </g>
          );
        })}
        <line className="axis" x1={PAD.left} x2={W - PAD.right} y1={PAD.top + innerH} y2={PAD.top + innerH} />
      </svg>
      {shown !== null ? (
        <div className="tooltip" style={{ left: `${(x(shown) / W) * 100}%`, top: 30 }}>
          <b>{scored[shown].name}</b>
          <div>score {fmtScore(scored[shown].score, scored[shown].score_unit)}</div>
          <div className="muted">{fmtTime(scored[shown].created_at)}</div>
        </div>
      ) : null}
    </figure>
  );
}
