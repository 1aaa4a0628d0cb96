import { useState } from 'react';
import { errorText } from '../../api/client';
import { useApi, useLoad } from '../../api/context';
import type { CreatedDatasetGroup, DatasetGroup, PublishedFromRequests } from '../../api/types';
import { fmtInt } from '../../components/format';
import { Modal } from '../../components/modal';
import { navigate } from '../../router';
import { DeleteSelected } from './delete-requests';

/** Actions on the checked requests: turn them into the next version of a dataset, or delete them. */
export function SelectionBar({ checked, onClear, onDeleted }: { checked: Set<number>; onClear: () => void; onDeleted: () => void }) {
  const [open, setOpen] = useState(false);
  if (checked.size === 0) return null;
  return (
    <span className="row">
      <span className="badge accent">{fmtInt(checked.size)} selected</span>
      <button type="button" onClick={() => setOpen(true)}>
        Add to dataset…
      </button>
      <DeleteSelected ids={[...checked]} onDeleted={onDeleted} />
      <button type="button" className="ghost small" onClick={onClear}>
        Clear
      </button>
      {open ? <AddToDataset ids={[...checked]} onClose={() => setOpen(false)} /> : null}
    </span>
  );
}

function AddToDataset({ ids, onClose }: { ids: number[]; onClose: () => void }) {
  const api = useApi();
  const groups = useLoad((a, signal) => a<{ items: DatasetGroup[] }>('/api/public/v2/dataset-groups', { signal, query: { per_page: 100 } }), []);
  const [target, setTarget] = useState<string>('new');
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      let groupId = Number(target);
      if (target === 'new') {
        const created = await api<CreatedDatasetGroup>('/api/public/v2/dataset-groups', { body: { name: name.trim() } });
        groupId = created.dataset_group.id;
      }
      const res = await api<PublishedFromRequests>('/api/public/v2/dataset-versions/from-filter-params', {
        body: { dataset_group_id: groupId, request_log_ids: ids, limit: Math.max(ids.length, 1) },
      });
      navigate(`/datasets?group=${groupId}&version=${res.dataset_id}`);
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };

  return (
    <Modal title={`Add ${ids.length} request${ids.length === 1 ? '' : 's'} to a dataset`} onClose={onClose}>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <p className="muted" style={{ margin: 0 }}>
          Publishes the next version of the dataset with one row per request (input variables, input, output, model, tags…).
        </p>
        <label>
          Dataset
          <select aria-label="Target dataset" value={target} onChange={(e) => setTarget(e.target.value)}>
            <option value="new">New dataset…</option>
            {(groups.data?.items ?? []).map((g) => (
              <option key={g.id} value={g.id}>
                {g.name}
              </option>
            ))}
          </select>
        </label>
        {target === 'new' ? (
          <label>
            Name
            <input aria-label="New dataset name" autoFocus value={name} onChange={(e) => setName(e.target.value)} maxLength={255} />
          </label>
        ) : null}
        {error ? <p className="error" role="alert">{error}</p> : null}
        <div className="row" style={{ justifyContent: 'flex-end' }}>
          <button type="submit" className="primary" disabled={busy || (target === 'new' && !name.trim())}>
            {busy ? 'Adding…' : 'Add to dataset'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
