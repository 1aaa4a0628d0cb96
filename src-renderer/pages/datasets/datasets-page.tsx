import { useState } from 'react';
import { errorText } from '../../api/client';
import { useApi, useLoad } from '../../api/context';
import type { CreatedDatasetGroup, DatasetGroupPage } from '../../api/types';
import { countOf, fmtInt } from '../../components/format';
import { Modal } from '../../components/modal';
import { navigate, setParams, useLocation } from '../../router';
import { DatasetView } from './dataset-view';
import { moveFocusInList } from '../../components/shortcuts';

export function DatasetsPage() {
  const api = useApi();
  const { params } = useLocation();
  const groups = useLoad((a, signal) => a<DatasetGroupPage>('/api/public/v2/dataset-groups', { signal, query: { per_page: 100 } }), []);
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const items = groups.data?.items ?? [];
  const selected = items.find((g) => g.id === Number(params.get('group'))) ?? items[0];

  const create = async () => {
    setError(null);
    try {
      const res = await api<CreatedDatasetGroup>('/api/public/v2/dataset-groups', { body: { name: name.trim() } });
      setCreating(false);
      setName('');
      groups.reload();
      setParams({ group: String(res.dataset_group.id), version: null }, { replace: false });
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <div className="page">
      <div className="page-head">
        <h1>Datasets</h1>
        <span className="muted">{groups.data ? countOf(groups.data.total, 'dataset') : ''}</span>
        <span className="spacer" />
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          + New dataset
        </button>
      </div>
      {creating ? (
        <Modal title="New dataset" onClose={() => setCreating(false)}>
          <form
            className="stack"
            onSubmit={(e) => {
              e.preventDefault();
              void create();
            }}
          >
            <label>
              Name
              <input aria-label="Dataset name" autoFocus value={name} onChange={(e) => setName(e.target.value)} maxLength={255} />
            </label>
            {error ? <p className="error" role="alert">{error}</p> : null}
            <div className="row" style={{ justifyContent: 'flex-end' }}>
              <button type="submit" className="primary" disabled={!name.trim()}>
                Create
              </button>
            </div>
          </form>
        </Modal>
      ) : null}
      {groups.error ? <p className="error" role="alert">{groups.error}</p> : null}
      {!groups.loading && items.length === 0 ? (
        <div className="empty">
          <h2>No datasets yet</h2>
          <p>
            A dataset is a versioned table of test cases for evaluations. Import a CSV, JSON or JSONL file, or select logged requests on the{' '}
            <a href="/requests" onClick={(e) => (e.preventDefault(), navigate('/requests'))}>Requests</a> page and add them to a dataset.
          </p>
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            Create a dataset
          </button>
        </div>
      ) : (
        <div className="split">
          <div className="list" role="listbox" aria-label="Datasets" onKeyDown={moveFocusInList}>
            {items.map((g) => (
              <div
                key={g.id}
                role="option"
                tabIndex={0}
                aria-selected={g === selected}
                className={`list-item ${g === selected ? 'active' : ''}`}
                onClick={() => setParams({ group: String(g.id), version: null }, { replace: false })}
                onKeyDown={(e) => e.key === 'Enter' && setParams({ group: String(g.id), version: null }, { replace: false })}
              >
                <span className="title">{g.name}</span>
                <span className="muted" style={{ fontSize: 12 }}>
                  {g.latest_version ? `v${g.latest_version.version_number} · ${countOf(g.latest_version.row_count, 'row')}` : 'no published version'}
                  {' · '}
                  {countOf(g.version_count, 'version')}
                </span>
              </div>
            ))}
          </div>
          {selected ? <DatasetView key={selected.id} group={selected} onChanged={groups.reload} /> : <div />}
        </div>
      )}
    </div>
  );
}
