import { fmtInt } from '../../components/format';

/** Actions on the checked requests (datasets are made from them on the Datasets page's API). */
export function SelectionBar({ checked, onClear }: { checked: Set<number>; onClear: () => void }) {
  if (checked.size === 0) return null;
  return (
    <span className="row">
      <span className="badge accent">{fmtInt(checked.size)} selected</span>
      <button type="button" className="ghost small" onClick={onClear}>
        Clear
      </button>
    </span>
  );
}
