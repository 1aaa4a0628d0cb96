import { useEffect, useRef, useState } from 'react';

export interface Series {
  name: string;
  color: string;
  /** One value per label; null where there is nothing to measure (a day without traffic). */
  values: Array<number | null>;
}

interface Props {
  title: string;
  labels: string[];
  series: Series[];
  kind: 'bars' | 'lines';
  format: (n: number) => string;
  height?: number;
}

/** The width drawn before the card's real width is known. */
const DEFAULT_WIDTH = 560;
const PAD = { top: 10, right: 12, bottom: 24, left: 56 };
/** Room one day label ("Nov 30") needs, so labels never overlap. */
const DAY_LABEL_PX = 58;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "2026-11-03" → "Nov 3": the year is in the page's range, the month is what the eye needs. */
export const dayLabel = (day: string) => `${MONTHS[Number(day.slice(5, 7)) - 1]} ${Number(day.slice(8, 10))}`;

/** Consecutive indices that have a value: a line is drawn through each run, never across a gap. */
function runs(values: Array<number | null>): number[][] {
  const out: number[][] = [];
  let current: number[] = [];
  values.forEach((v, i) => {
    if (v === null) {
      if (current.length) out.push(current);
      current = [];
    } else current.push(i);
  });
  if (current.length) out.push(current);
  return out;
}

/** The smallest "nice" step (1, 2, 5 × 10^k) that splits max into at most four ticks. */
function niceMax(max: number): { top: number; step: number } {
  if (max <= 0) return { top: 1, step: 0.25 };
  const raw = max / 4;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw)!;
  return { top: Math.ceil(max / step) * step, step };
}

/**
 * A small SVG chart over days: stacked bars or lines, with a hover readout. Hand-written because
 * the dashboard needs four of these and no chart library is worth its weight for that.
 */
export function TimeChart({ title, labels, series, kind, format, height = 180 }: Props) {
  const [hover, setHover] = useState<number | null>(null);
  // Drawn at the card's real width (one SVG unit = one pixel), so the axis text stays 11px
  // instead of shrinking with a scaled viewBox in a narrow card.
  const frame = useRef<HTMLDivElement>(null);
  const [W, setW] = useState(DEFAULT_WIDTH);
  useEffect(() => {
    const el = frame.current;
    if (!el) return;
    const observer = new ResizeObserver(([entry]) => setW(Math.max(240, Math.round(entry.contentRect.width))));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  const n = labels.length;
  const innerW = W - PAD.left - PAD.right;
  const innerH = height - PAD.top - PAD.bottom;
  const totals = labels.map((_, i) => (kind === 'bars' ? series.reduce((s, x) => s + (x.values[i] ?? 0), 0) : Math.max(0, ...series.map((x) => x.values[i] ?? 0))));
  const { top, step } = niceMax(Math.max(0, ...totals));
  const y = (v: number) => PAD.top + innerH - (v / top) * innerH;
  const slot = innerW / Math.max(1, n);
  const x = (i: number) => PAD.left + slot * i + slot / 2;
  const ticks: number[] = [];
  for (let v = 0; v <= top + step / 2; v += step) ticks.push(v);
  const labelEvery = Math.max(1, Math.ceil(n / Math.max(2, Math.floor(innerW / DAY_LABEL_PX))));

  return (
    <figure className="card" style={{ margin: 0, position: 'relative' }} aria-label={title}>
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <h3 style={{ margin: 0 }}>{title}</h3>
        <div className="legend">
          {series.map((s) => (
            <span key={s.name}>
              <i style={{ background: s.color }} />
              {s.name}
            </span>
          ))}
        </div>
      </div>
      <div ref={frame}>
        <svg
          className="chart"
          viewBox={`0 0 ${W} ${height}`}
          role="img"
          aria-label={`${title} per day`}
          data-labels={JSON.stringify(labels)}
          onMouseLeave={() => setHover(null)}
          onMouseMove={(e) => {
            const box = e.currentTarget.getBoundingClientRect();
            const px = ((e.clientX - box.left) / box.width) * W;
            const i = Math.floor((px - PAD.left) / slot);
            setHover(i >= 0 && i < n ? i : null);
          }}
        >
          {ticks.map((v) => (
            <g key={v}>
              <line className="grid-line" x1={PAD.left} x2={W - PAD.right} y1={y(v)} y2={y(v)} />
              <text x={PAD.left - 6} y={y(v) + 3} textAnchor="end">
                {format(v)}
              </text>
            </g>
          ))}
          {labels.map((label, i) =>
            (n - 1 - i) % labelEvery === 0 ? (
              <text key={label} x={x(i)} y={height - 6} textAnchor="middle">
                {dayLabel(label)}
              </text>
            ) : null,
          )}
          {hover !== null ? <rect x={PAD.left + slot * hover} y={PAD.top} width={slot} height={innerH} fill="var(--bg-hover)" /> : null}
          {kind === 'bars'
            ? labels.map((_, i) => {
                let base = 0;
                return series.map((s) => {
                  const v = s.values[i];
                  if (v === null || v === undefined) return null;
                  const rect = (
                    <rect
                      key={`${s.name}-${i}`}
                      x={x(i) - Math.min(18, slot * 0.35)}
                      width={Math.min(36, slot * 0.7)}
                      y={y(base + v)}
                      height={Math.max(0, y(base) - y(base + v))}
                      fill={s.color}
                      rx={1.5}
                    />
                  );
                  base += v;
                  return rect;
                });
              })
            : series.map((s) => (
                <g key={s.name} data-series={s.name} data-values={JSON.stringify(s.values)}>
                  {runs(s.values).map((run) => (
                    <polyline key={run[0]} fill="none" stroke={s.color} strokeWidth={2} points={run.map((i) => `${x(i)},${y(s.values[i]!)}`).join(' ')} />
                  ))}
                  {/* A lone day between gaps has no line, so its point is always drawn. */}
                  {s.values.map((v, i) =>
                    v !== null && (n <= 40 || ((s.values[i - 1] ?? null) === null && (s.values[i + 1] ?? null) === null)) ? (
                      <circle key={i} cx={x(i)} cy={y(v)} r={2.5} fill={s.color} />
                    ) : null,
                  )}
                </g>
              ))}
          <line className="axis" x1={PAD.left} x2={W - PAD.right} y1={PAD.top + innerH} y2={PAD.top + innerH} />
        </svg>
      </div>
      {hover !== null ? (
        <div className="tooltip" style={{ left: `${(x(hover) / W) * 100}%`, top: 30 }}>
          <b>{labels[hover]}</b>
          {series.every((s) => s.values[hover] === null) ? (
            <div className="muted">no requests</div>
          ) : (
            series.map((s) => (
              <div key={s.name}>
                <i style={{ display: 'inline-block', width: 8, height: 8, background: s.color, marginRight: 4 }} />
                {s.name}: {s.values[hover] === null ? '—' : format(s.values[hover] ?? 0)}
              </div>
            ))
          )}
        </div>
      ) : null}
    </figure>
  );
}
