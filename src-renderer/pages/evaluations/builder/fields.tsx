import { useId, type ReactNode } from 'react';
import { useLoad } from '../../../api/context';
import type { Provider, ProviderClientInfo } from '../../../api/types';
import { suggestionHint, useModelSuggestions } from '../../../components/model-suggestions';

/** What every type's form receives: its configuration, the columns to its left, the server's field errors. */
export interface FormProps<C> {
  config: Partial<C>;
  /** A new configuration, or an update of the current one (for effects, whose render may be stale). */
  onChange: (config: Partial<C> | ((current: Partial<C>) => Partial<C>)) => void;
  /** Names of the columns to its left (dataset columns first), the only ones it may read. */
  columns: string[];
  /** The 422's messages by configuration key path (`engine.model`). */
  errors: Record<string, string>;
}

export function FieldError({ errors, at }: { errors: Record<string, string>; at: string }) {
  const text = Object.entries(errors).find(([key]) => key === at || key.startsWith(`${at}.`))?.[1];
  return text ? <span className="error" role="alert">{text}</span> : null;
}

export function Hint({ children }: { children: ReactNode }) {
  return <span className="muted builder-hint">{children}</span>;
}

/** One column of those to the left. */
export function ColumnSelect({ label, value, columns, onChange, optional, hint }: {
  label: string; value: string | undefined; columns: string[]; onChange: (name: string | undefined) => void; optional?: boolean; hint?: ReactNode;
}) {
  const missing = value !== undefined && value !== '' && !columns.includes(value);
  return (
    <label>
      {label}
      <select aria-label={label} value={value ?? ''} onChange={(e) => onChange(e.target.value || undefined)}>
        <option value="">{optional ? '— none —' : 'Choose a column…'}</option>
        {columns.map((c) => (
          <option key={c} value={c}>{c}</option>
        ))}
        {missing ? <option value={value}>{value} (missing)</option> : null}
      </select>
      {hint ? <Hint>{hint}</Hint> : null}
    </label>
  );
}

/** Several columns, in the order ticked (COALESCE's order matters). */
export function ColumnMultiSelect({ label, value, columns, onChange }: { label: string; value: string[] | undefined; columns: string[]; onChange: (names: string[]) => void }) {
  const picked = value ?? [];
  return (
    <fieldset className="builder-fieldset" aria-label={label}>
      <legend>{label}</legend>
      <div className="row">
        {columns.map((c) => (
          <label key={c} className="builder-check">
            <input type="checkbox" aria-label={`${label}: ${c}`} checked={picked.includes(c)} onChange={(e) => onChange(e.target.checked ? [...picked, c] : picked.filter((p) => p !== c))} />
            {c}
          </label>
        ))}
      </div>
      {picked.length ? <Hint>Order: {picked.join(' → ')}</Hint> : null}
    </fieldset>
  );
}

export function TextField({ label, value, onChange, placeholder, multiline, mono, hint }: {
  label: string; value: string | undefined; onChange: (v: string | undefined) => void; placeholder?: string; multiline?: boolean; mono?: boolean; hint?: ReactNode;
}) {
  const props = { 'aria-label': label, value: value ?? '', placeholder, className: mono ? 'mono' : undefined };
  return (
    <label>
      {label}
      {multiline ? (
        <textarea {...props} rows={4} onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)} />
      ) : (
        <input {...props} onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)} />
      )}
      {hint ? <Hint>{hint}</Hint> : null}
    </label>
  );
}

/** A choice among a few named values, shown as a select. */
export function Choice<T extends string>({ label, value, options, onChange }: { label: string; value: T | undefined; options: Array<[T, string]>; onChange: (v: T) => void }) {
  return (
    <label>
      {label}
      <select aria-label={label} value={value ?? ''} onChange={(e) => onChange(e.target.value as T)}>
        {value === undefined ? <option value="">Choose…</option> : null}
        {options.map(([v, text]) => (
          <option key={v} value={v}>{text}</option>
        ))}
      </select>
    </label>
  );
}

export function NumberField({ label, value, onChange, min, max, step, placeholder }: {
  label: string; value: number | undefined; onChange: (v: number | undefined) => void; min?: number; max?: number; step?: number; placeholder?: string;
}) {
  return (
    <label>
      {label}
      <input type="number" aria-label={label} value={value ?? ''} min={min} max={max} step={step} placeholder={placeholder}
        onChange={(e) => onChange(e.target.value === '' ? undefined : Number(e.target.value))} />
    </label>
  );
}

/** `{provider, model, parameters}` as engine fields take it (the server's Engine schema). */
export interface EngineValue {
  provider: string;
  model: string;
  parameters?: Record<string, unknown>;
}

function useProviders() {
  return useLoad(async (api, signal) => {
    const [clients, stored] = await Promise.all([
      api<{ items: ProviderClientInfo[] }>('/api/public/v2/provider-clients', { signal }),
      api<{ items: Provider[] }>('/api/public/v2/providers', { signal }),
    ]);
    return { builtIns: clients.items, stored: stored.items };
  }, []);
}

/**
 * The model a column calls: provider (built-ins and registered providers), model with the
 * provider's own list as suggestions, temperature and max tokens. `inherit` names what an empty
 * engine means (e.g. "the template's model"); without it the engine is required.
 */
export function EngineFields({ value, onChange, errors, inherit, at = 'engine', embeddings }: {
  value: EngineValue | undefined; onChange: (v: EngineValue | undefined) => void; errors: Record<string, string>; inherit?: string; at?: string; embeddings?: boolean;
}) {
  const providers = useProviders();
  const id = useId();
  const suggestions = useModelSuggestions(value?.provider || undefined, providers.data?.stored, Boolean(embeddings));
  const { models } = suggestions;
  const hint = suggestionHint(suggestions, value?.provider);
  const params = value?.parameters ?? {};
  const set = (patch: Partial<EngineValue>) => onChange({ provider: value?.provider ?? '', model: value?.model ?? '', ...value, ...patch });
  const setParam = (key: string, v: number | undefined) => {
    const next = { ...params };
    if (v === undefined) delete next[key];
    else next[key] = v;
    set({ parameters: next });
  };
  const using = value !== undefined;
  return (
    <fieldset className="builder-fieldset" aria-label="Model">
      <legend>Model</legend>
      {inherit ? (
        <label className="builder-check">
          <input type="checkbox" aria-label={`Use ${inherit}`} checked={!using} onChange={(e) => onChange(e.target.checked ? undefined : { provider: '', model: '', parameters: {} })} />
          Use {inherit}
        </label>
      ) : null}
      {!inherit || using ? (
        <div className="builder-grid">
          <label>
            Provider
            <select aria-label="Provider" value={value?.provider ?? ''} onChange={(e) => set({ provider: e.target.value })}>
              <option value="">Choose a provider…</option>
              {providers.data?.stored.length ? (
                <optgroup label="Your providers">
                  {providers.data.stored.map((p) => (
                    <option key={p.id} value={p.name}>{p.name} ({p.base_url ?? p.client})</option>
                  ))}
                </optgroup>
              ) : null}
              <optgroup label="Built-in (environment keys)">
                {(providers.data?.builtIns ?? []).map((c) => (
                  <option key={c.id} value={c.id}>{c.display_name}</option>
                ))}
              </optgroup>
            </select>
            <FieldError errors={errors} at={`${at}.provider`} />
          </label>
          <label>
            Model
            <input aria-label="Model name" list={`${id}-models`} value={value?.model ?? ''} placeholder={embeddings ? 'text-embedding-3-small' : 'gpt-4o-mini'} onChange={(e) => set({ model: e.target.value })} />
            <datalist id={`${id}-models`}>
              {models.map((m) => (
                <option key={m} value={m} />
              ))}
            </datalist>
            {hint ? <Hint>{hint}</Hint> : null}
            <FieldError errors={errors} at={`${at}.model`} />
          </label>
          {embeddings ? null : (
            <>
              <NumberField label="Temperature" value={params.temperature as number | undefined} min={0} max={2} step={0.1} placeholder="default" onChange={(v) => setParam('temperature', v)} />
              <NumberField label="Max tokens" value={params.max_tokens as number | undefined} min={1} step={1} placeholder="default" onChange={(v) => setParam('max_tokens', v)} />
            </>
          )}
        </div>
      ) : null}
      <FieldError errors={errors} at={at} />
    </fieldset>
  );
}
