import { useState } from 'react';
import { errorText } from '../../api/client';
import { useApi, useLoad } from '../../api/context';
import type { CreatedReport, DatasetGroupPage, Page, PipelineSummary } from '../../api/types';
import { Modal } from '../../components/modal';
import { navigate, setParams, useLocation } from '../../router';
import { PipelineView } from './pipeline-view';
import { RunCompare } from './run-compare';
import { RunView } from './run-view';
import { moveFocusInList } from '../../components/shortcuts';
import { countOf, fmtScore } from '../../components/format';

export function EvaluationsPage() {
  const { params } = useLocation();
  const list = useLoad((a, signal) => a<Page<PipelineSummary>>('/api/public/v2/evaluations', { signal, query: { per_page: 100 } }), []);
  const [creating, setCreating] = useState(false);
  const items = list.data?.items ?? [];
  const pipeline = items.find((p) => p.id === Number(params.get('pipeline'))) ?? items[0];
  const runId = Number(params.get('run')) || null;
  const compare = params.get('compare');

  return (
    <div className="page">
      <div className="page-head">
        <h1>Evaluations</h1>
        <span className="spacer" />
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          + New pipeline
        </button>
      </div>
      {creating ? (
        <NewPipeline
          onClose={() => setCreating(false)}
          onCreated={(id) => {
            setCreating(false);
            list.reload();
            setParams({ pipeline: String(id), run: null, compare: null }, { replace: false });
          }}
        />
      ) : null}
      {list.error ? <p className="error" role="alert">{list.error}</p> : null}
      {!list.loading && items.length === 0 ? (
        <div className="empty">
          <h2>No evaluation pipelines yet</h2>
          <p>
            A pipeline runs columns over every row of a dataset: call a prompt, then check the output with assertions, code, regexes or an
            LLM judge. Each run is kept, scored and comparable with the last.
          </p>
          <div className="row">
            <button type="button" className="primary" onClick={() => setCreating(true)}>
              Create a pipeline
            </button>
            <button type="button" onClick={() => navigate('/datasets')}>
              Make a dataset first
            </button>
          </div>
        </div>
      ) : (
        // A comparison takes the page's whole width (beside the pipeline list, three runs' columns
        // scrolled sideways at 1440 px); its "← Pipeline" leads back to the list.
        <div className={compare && pipeline ? 'split split-full' : 'split'}>
          {compare && pipeline ? null : (
            <div className="list" role="listbox" aria-label="Pipelines" onKeyDown={moveFocusInList}>
              {items.map((p) => (
                <div
                  key={p.id}
                  role="option"
                  tabIndex={0}
                  aria-selected={p === pipeline}
                  className={`list-item ${p === pipeline ? 'active' : ''}`}
                  onClick={() => setParams({ pipeline: String(p.id), run: null, compare: null }, { replace: false })}
                  onKeyDown={(e) => e.key === 'Enter' && setParams({ pipeline: String(p.id), run: null, compare: null }, { replace: false })}
                >
                  <span className="title">{p.name}</span>
                  <span className="muted" style={{ fontSize: 12 }}>
                    {countOf(p.column_count, 'column')} · {countOf(p.runs.length, 'run')}
                    {p.runs[0]?.score != null ? ` · last score ${fmtScore(p.runs[0].score, p.runs[0].score_unit)}` : ''}
                  </span>
                </div>
              ))}
            </div>
          )}
          {pipeline ? (
            compare ? (
              <RunCompare key={`${pipeline.id}-${compare}`} pipeline={pipeline} ids={compare.split(',').map(Number)} />
            ) : runId ? (
              <RunView key={runId} runId={runId} onChanged={list.reload} />
            ) : (
              <PipelineView key={pipeline.id} pipeline={pipeline} onChanged={list.reload} />
            )
          ) : (
            <div />
          )}
        </div>
      )}
    </div>
  );
}

function NewPipeline({ onClose, onCreated }: { onClose: () => void; onCreated: (id: number) => void }) {
  const api = useApi();
  const groups = useLoad((a, signal) => a<DatasetGroupPage>('/api/public/v2/dataset-groups', { signal, query: { per_page: 100 } }), []);
  const [name, setName] = useState('');
  const [group, setGroup] = useState('');
  const [error, setError] = useState<string | null>(null);
  const usable = (groups.data?.items ?? []).filter((g) => g.latest_version);
  return (
    <Modal title="New pipeline" onClose={onClose}>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          setError(null);
          api<CreatedReport>('/reports', { body: { name: name.trim() || null, dataset_group_id: Number(group) } }).then(
            (res) => onCreated(res.report_id),
            (err: unknown) => setError(errorText(err)),
          );
        }}
      >
        <label>
          Name
          <input aria-label="Pipeline name" autoFocus value={name} onChange={(e) => setName(e.target.value)} maxLength={255} />
        </label>
        <label>
          Dataset (its latest published version)
          <select aria-label="Dataset" value={group} onChange={(e) => setGroup(e.target.value)}>
            <option value="">Choose a dataset…</option>
            {usable.map((g) => (
              <option key={g.id} value={g.id}>
                {g.name} · v{g.latest_version!.version_number} · {countOf(g.latest_version!.row_count, 'row')}
              </option>
            ))}
          </select>
        </label>
        {groups.data && usable.length === 0 ? <p className="muted">No dataset has a published version yet; import one on the Datasets page.</p> : null}
        {error ? <p className="error" role="alert">{error}</p> : null}
        <div className="row" style={{ justifyContent: 'flex-end' }}>
          <button type="submit" className="primary" disabled={!group}>
            Create pipeline
          </button>
        </div>
      </form>
    </Modal>
  );
}
