import { useState } from 'react';
import type { ReportColumn } from '../../../api/types';
import { columnTitle } from './column-kinds';
import { columnSentence, missingReferences } from './sentence';

interface Props {
  /** Every column in position order, dataset columns first. */
  columns: ReportColumn[];
  /** The dataset version a run would use, when its columns differ from the pipeline's. */
  runVersion: { version_number: number; column_names: string[] } | null;
  onEdit: (column: ReportColumn) => void;
  onDelete: (column: ReportColumn) => void;
  /** Moves a column to `position` (counting dataset columns, as the API does). */
  onMove: (column: ReportColumn, position: number) => void;
}

/** Which columns read one the run's dataset version will not have, and which. */
export function columnProblems(columns: ReportColumn[], runVersion: Props['runVersion']): Map<number, string[]> {
  const evaluated = columns.filter((c) => c.column_type !== 'DATASET');
  const available = new Set(runVersion?.column_names ?? columns.filter((c) => c.column_type === 'DATASET').map((c) => c.name));
  const problems = new Map<number, string[]>();
  for (const c of evaluated) {
    const missing = missingReferences(c, available);
    if (missing.length) problems.set(c.id, missing);
    available.add(c.name);
  }
  return problems;
}

/** The pipeline's columns as sentences, with edit, delete, drag to reorder and keyboard moves. */
export function ColumnList({ columns, runVersion, onEdit, onDelete, onMove }: Props) {
  const [dragged, setDragged] = useState<number | null>(null);
  const [over, setOver] = useState<number | null>(null);
  const dataset = columns.filter((c) => c.column_type === 'DATASET');
  const evaluated = columns.filter((c) => c.column_type !== 'DATASET');
  const problems = columnProblems(columns, runVersion);
  const drop = (target: ReportColumn) => {
    const moving = columns.find((c) => c.id === dragged);
    setDragged(null);
    setOver(null);
    if (moving && moving.id !== target.id) onMove(moving, columns.indexOf(target));
  };

  return (
    <div className="stack builder-tight">
      <div className="builder-dataset" aria-label="Dataset columns">
        <span className="muted">Each row has</span>
        {dataset.map((c) => (
          <code key={c.id} className="builder-ref">{c.name}</code>
        ))}
        {runVersion ? <span className="badge warn">a run uses v{runVersion.version_number}: {runVersion.column_names.join(', ') || 'no columns'}</span> : null}
      </div>
      <ol className="builder-columns" aria-label="Pipeline columns">
        {evaluated.map((c, i) => {
          const missing = problems.get(c.id);
          return (
            <li
              key={c.id}
              aria-label={`Column ${c.name}`}
              className={`builder-column${over === c.id ? ' drop-target' : ''}${dragged === c.id ? ' dragging' : ''}${missing ? ' has-problem' : ''}`}
              draggable
              onDragStart={(e) => {
                setDragged(c.id);
                e.dataTransfer.effectAllowed = 'move';
                e.dataTransfer.setData('text/plain', String(c.id));
              }}
              onDragOver={(e) => {
                if (dragged === null) return;
                e.preventDefault();
                setOver(c.id);
              }}
              onDragLeave={() => setOver((o) => (o === c.id ? null : o))}
              onDrop={(e) => {
                e.preventDefault();
                drop(c);
              }}
              onDragEnd={() => {
                setDragged(null);
                setOver(null);
              }}
            >
              <span className="builder-handle" aria-hidden title="Drag to reorder">⋮⋮</span>
              <span className="builder-index muted">{i + 1}</span>
              <div className="grow builder-column-text">
                <div className="row builder-tight-row">
                  <b>{c.name}</b>
                  <span className="badge">{columnTitle(c.column_type)}</span>
                  {c.is_part_of_score ? <span className="badge accent">score</span> : null}
                </div>
                <div className="builder-sentence">{columnSentence(c)}</div>
                {missing ? (
                  <div className="error" role="status" aria-label={`Problem in ${c.name}`}>
                    ⚠ Reads {missing.map((m) => `“${m}”`).join(', ')}, which {runVersion ? `dataset v${runVersion.version_number} lacks` : 'no column to its left has'}. A run would be refused.
                  </div>
                ) : null}
              </div>
              <span className="row builder-actions">
                <button type="button" className="ghost small" aria-label={`Move ${c.name} left`} disabled={i === 0} onClick={() => onMove(c, columns.indexOf(c) - 1)}>↑</button>
                <button type="button" className="ghost small" aria-label={`Move ${c.name} right`} disabled={i === evaluated.length - 1} onClick={() => onMove(c, columns.indexOf(c) + 1)}>↓</button>
                <button type="button" className="small" aria-label={`Edit ${c.name}`} onClick={() => onEdit(c)}>Edit</button>
                <button type="button" className="small danger" aria-label={`Delete ${c.name}`} onClick={() => onDelete(c)}>Delete</button>
              </span>
            </li>
          );
        })}
      </ol>
    </div>
  );
}
