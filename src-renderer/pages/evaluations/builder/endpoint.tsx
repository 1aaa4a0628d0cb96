import type { z } from 'zod';
import type { endpoint } from '../../../../src-server/eval/columns/endpoint';
import { FieldError, Hint, NumberField, TextField, type FormProps } from './fields';

type Config = z.output<typeof endpoint.config>;

/** ENDPOINT: POSTs the row to a URL; headers as name/value pairs. */
export function EndpointForm({ config, onChange, columns, errors }: FormProps<Config>) {
  const headers = Object.entries(config.headers ?? {});
  const setHeaders = (pairs: Array<[string, string]>) => onChange({ ...config, headers: Object.fromEntries(pairs) });
  return (
    <div className="stack">
      <TextField label="URL" value={config.url} placeholder="https://example.com/grade" mono onChange={(url) => onChange({ ...config, url })}
        hint={`Receives a POST with the row as JSON: ${columns.length ? columns.join(', ') : 'the columns to the left'}. The workspace's egress setting applies.`} />
      <FieldError errors={errors} at="url" />
      <fieldset className="builder-fieldset" aria-label="Headers">
        <legend>Headers</legend>
        {headers.map(([name, value], i) => (
          <div key={i} className="builder-message">
            <input aria-label={`Header ${i + 1} name`} value={name} placeholder="Authorization" onChange={(e) => setHeaders(headers.map((h, j) => (j === i ? [e.target.value, h[1]] : h)))} />
            <input aria-label={`Header ${i + 1} value`} value={value} onChange={(e) => setHeaders(headers.map((h, j) => (j === i ? [h[0], e.target.value] : h)))} />
            <button type="button" className="ghost small" aria-label={`Remove header ${i + 1}`} onClick={() => setHeaders(headers.filter((_, j) => j !== i))}>✕</button>
          </div>
        ))}
        <div className="row">
          <button type="button" className="small" onClick={() => setHeaders([...headers, [`X-Header-${headers.length + 1}`, '']])}>+ Add header</button>
          <Hint>Header values are stored with the pipeline and left out of run manifests.</Hint>
        </div>
        <FieldError errors={errors} at="headers" />
      </fieldset>
      <NumberField label="Timeout (ms)" value={config.timeout_ms} min={1} max={300_000} placeholder="30000" onChange={(timeout_ms) => onChange({ ...config, timeout_ms })} />
    </div>
  );
}
