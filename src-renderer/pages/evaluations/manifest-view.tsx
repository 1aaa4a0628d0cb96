import { useLoad } from '../../api/context';
import type { ReportDetail, RunManifest } from '../../api/types';
import { countOf, fmtTime } from '../../components/format';
import { CopyButton } from '../../components/copy-button';

type Resolved = {
  prompt_template_id?: number;
  prompt_name?: string;
  version_number?: number;
  label?: string;
  provider?: string;
  model?: string;
  parameters?: Record<string, unknown>;
  base_url?: string | null;
  code_sha256?: string;
};

const short = (hash: string) => `${hash.slice(0, 12)}…`;

/** `temperature 0 · max_tokens 256`: a model's parameters on one line. */
function fmtParameters(parameters: Record<string, unknown> | undefined): string {
  const entries = Object.entries(parameters ?? {});
  if (entries.length === 0) return 'defaults';
  return entries.map(([k, v]) => `${k} ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' · ');
}

/**
 * What a run used, as fixed when it started (API.md §6): the dataset version and its hash, and per
 * evaluated column the prompt version a label pointed to then, the model and where it was called.
 * The server keeps secrets out of the manifest; this view only shows it.
 */
export function ManifestView({ manifest }: { manifest: RunManifest }) {
  const columns = manifest.columns.filter((c) => c.column_type !== 'DATASET');
  const d = manifest.dataset;
  const repeats = manifest.reproduces_report_id;
  const source = useLoad((a, signal) => (repeats ? a<ReportDetail>(`/reports/${repeats}`, { signal }) : Promise.resolve(null)), [repeats]);
  return (
    <section className="card stack" aria-label="Manifest" style={{ gap: 10, flexShrink: 0, overflowX: 'auto' }}>
      <div className="row">
        <h2 className="grow" style={{ margin: 0 }}>What this run used</h2>
        <span className="muted">fixed when it started, {fmtTime(manifest.started_at)}</span>
      </div>
      <dl className="kv">
        <dt>Dataset</dt>
        <dd data-testid="manifest-dataset">
          version {d.version_number === -1 ? 'draft (unpublished)' : `v${d.version_number}`} · {countOf(d.row_count, 'row')} · sha256{' '}
          <span className="mono" title={d.sha256}>{short(d.sha256)}</span> <CopyButton text={d.sha256} className="small ghost" />
        </dd>
        {repeats ? (
          <>
            <dt>Repeats</dt>
            <dd data-testid="manifest-repeats" aria-busy={source.loading}>
              {source.loading ? (
                <span className="muted">loading…</span>
              ) : (
                // A run archived since is gone from GET /reports/{id}: only its id is left to show.
                <>“{source.data?.report.name ?? `run #${repeats}`}” exactly: its dataset version, prompt versions, models, parameters and code</>
              )}
            </dd>
          </>
        ) : null}
        <dt>Concurrency</dt>
        <dd>{manifest.concurrency === null ? 'server default' : `${countOf(manifest.concurrency, 'row')} at a time`}</dd>
        <dt>App version</dt>
        <dd>promptledger {manifest.app_version}</dd>
      </dl>
      {columns.length ? (
        <table className="grid manifest-table" aria-label="Manifest columns">
          <thead>
            <tr>
              <th>Column</th>
              <th>Prompt</th>
              <th>Model</th>
              <th>Parameters</th>
              <th>Base URL</th>
              <th>Code</th>
            </tr>
          </thead>
          <tbody>
            {columns.map((c) => {
              const r = c.resolved as Resolved;
              return (
                <tr key={c.name} data-column={c.name}>
                  <td>
                    <b>{c.name}</b>
                    <div className="muted" style={{ fontSize: 11 }}>{c.column_type}</div>
                  </td>
                  <td data-testid="manifest-prompt">
                    {r.prompt_name ? (
                      <>
                        {r.prompt_name} <b>v{r.version_number}</b>
                        {r.label ? <span className="muted"> (label “{r.label}” at start)</span> : null}
                      </>
                    ) : c.column_type === 'PROMPT_TEMPLATE' ? (
                      <span className="muted">inline</span>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                  <td className="nowrap">{r.model ? `${r.provider} / ${r.model}` : <span className="muted">—</span>}</td>
                  <td className="mono nowrap">{r.model ? fmtParameters(r.parameters) : ''}</td>
                  <td className="mono nowrap">{r.base_url ?? (r.model ? <span className="muted">provider default</span> : '')}</td>
                  <td className="mono nowrap">{r.code_sha256 ? <span title={`sha256 ${r.code_sha256}`}>sha256 {short(r.code_sha256)}</span> : ''}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
