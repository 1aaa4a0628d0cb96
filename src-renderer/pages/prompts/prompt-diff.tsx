import type { PromptVersion } from '../../api/types';
import { lineDiff } from '../../components/line-diff';
import { setParams, useLocation } from '../../router';
import { versionText } from './template-text';
import { countOf } from '../../components/format';

/** Two versions side by side; the choice lives in the URL (`from`, `to`) so a review link can be shared. */
export function PromptDiff({ versions }: { versions: PromptVersion[] }) {
  const { params } = useLocation();
  const byNumber = (n: number) => versions.find((v) => v.version_number === n);
  const right = byNumber(Number(params.get('to'))) ?? versions[0];
  const left = byNumber(Number(params.get('from'))) ?? versions[1] ?? versions[0];
  if (!left || !right) return null;
  const rows = lineDiff(versionText(left), versionText(right));
  const changes = rows.filter((r) => r.kind !== 'same').length;
  const picker = (label: string, key: 'from' | 'to', value: number) => (
    <label>
      {label}
      <select aria-label={label} value={value} onChange={(e) => setParams({ [key]: e.target.value })}>
        {versions.map((v) => (
          <option key={v.id} value={v.version_number}>
            v{v.version_number}
            {v.release_labels.length ? ` (${v.release_labels.join(', ')})` : ''}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <div className="stack">
      <div className="row" style={{ alignItems: 'flex-end' }}>
        {picker('From version', 'from', left.version_number)}
        <span style={{ paddingBottom: 6 }}>→</span>
        {picker('To version', 'to', right.version_number)}
        <span className="muted" style={{ paddingBottom: 6 }} data-testid="diff-summary">
          {changes === 0 ? 'No differences' : countOf(changes, 'changed line')}
        </span>
      </div>
      <div className="diff" role="table" aria-label="Version diff">
        {rows.map((r, i) => (
          <div className="diff-line" role="row" key={i}>
            <div role="cell" className={`diff-cell ${r.left === null ? 'blank' : r.kind === 'same' ? '' : 'del'}`}>{r.left ?? ''}</div>
            <div role="cell" className={`diff-cell ${r.right === null ? 'blank' : r.kind === 'same' ? '' : 'add'}`}>{r.right ?? ''}</div>
          </div>
        ))}
      </div>
    </div>
  );
}
