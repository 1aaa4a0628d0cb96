import { useState } from 'react';

export interface Series {
  name: string;
  color: string;
  values: number[];
}

interface Props {
  title: string;
  labels: string[];
  series: Series[];
  kind: 'bars' | 'lines';
  format: (n: number) => string;
  height?: number;
}

const W = 560;
const PAD = { top: 10, right: 10, bottom: 22, left: 48 };

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
  const n = labels.length;
  const innerW = W - PAD.left - PAD.right;
  const innerH = height - PAD.top - PAD.bottom;
  const totals = labels.map((_, i) => (kind === 'bars' ? series.reduce((s, x) => s + (x.values[i] ?? 0), 0) : Math.max(...series.map((x) => x.values[i] ?? 0))));
  const { top, step } = niceMax(Math.max(0, ...totals));
  const y = (v: number) => PAD.top + innerH - (v / top) * innerH;
  const slot = innerW / Math.max(1, n);
  const x = (i: number) => PAD.left + slot * i + slot / 2;
  const ticks: number[] = [];
  for (let v = 0; v <= top + step / 2; v += step) ticks.push(v);
  const labelEvery = Math.max(1, Math.ceil(n / 8));

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
      <svg
        className="chart"
        viewBox={`0 0 ${W} ${height}`}
        role="img"
        aria-label={`${title} per day`}
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
          i % labelEvery === 0 ? (
            <text key={label} x={x(i)} y={height - 6} textAnchor="middle">
              {label.slice(5)}
            </text>
          ) : null,
        )}
        {hover !== null ? <rect x={PAD.left + slot * hover} y={PAD.top} width={slot} height={innerH} fill="var(--bg-hover)" /> : null}
        {kind === 'bars'
          ? labels.map((_, i) => {
              let base = 0;
              return series.map((s) => {
                const v = s.values[i] ?? 0;
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
              <g key={s.name}>
                <polyline fill="none" stroke={s.color} strokeWidth={2} points={s.values.map((v, i) => `${x(i)},${y(v)}`).join(' ')} />
                {n <= 40 ? s.values.map((v, i) => <circle key={i} cx={x(i)} cy={y(v)} r={2.5} fill={s.color} />) : null}
              </g>
            ))}
        <line className="axis" x1={PAD.left} x2={W - PAD.right} y1={PAD.top + innerH} y2={PAD.top + innerH} />
      </svg>
      {hover !== null ? (
        <div className="tooltip" style={{ left: `${(x(hover) / W) * 100}%`, top: 30 }}>
          <b>{labels[hover]}</b>
          {series.map((s) => (
            <div key={s.name}>
              <i style={{ display: 'inline-block', width: 8, height: 8, background: s.color, marginRight: 4 }} />
              {s.name}: {format(s.values[hover] ?? 0)}
            </div>
          ))}
        </div>
      ) : null}
    </figure>
  );
}
