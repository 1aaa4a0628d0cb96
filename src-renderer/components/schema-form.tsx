import { useState } from 'react';

/** The subset of JSON Schema that zod emits for column configurations. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  default?: unknown;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  description?: string;
}

/** Field names that hold references to other columns, offered as pickers of the columns to the left. */
const COLUMN_REF = /^(source|sources|value_source|prompt_source)$/;
const LONG_TEXT = /^(code|prompt|query)$/;

/** `X | null` and optional wrappers reduce to X. */
function unwrap(schema: JsonSchema): JsonSchema {
  const variants = schema.anyOf?.filter((s) => s.type !== 'null');
  return variants && variants.length === 1 ? { ...variants[0], default: schema.default ?? variants[0].default } : schema;
}

const isRecord = (s: JsonSchema) => s.type === 'object' && !s.properties;

interface FieldProps {
  name: string;
  path: string;
  schema: JsonSchema;
  value: unknown;
  required: boolean;
  columns: string[];
  onChange: (value: unknown) => void;
}

/** Text typed into an "any JSON" field: JSON when it parses, else the text itself. */
function looseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function JsonField({ label, value, onChange }: { label: string; value: unknown; onChange: (v: unknown) => void }) {
  const [text, setText] = useState(value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  const [bad, setBad] = useState(false);
  return (
    <>
      <textarea
        aria-label={label}
        rows={3}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          if (e.target.value.trim() === '') return onChange(undefined);
          try {
            onChange(JSON.parse(e.target.value));
            setBad(false);
          } catch {
            setBad(true);
          }
        }}
      />
      {bad ? <span className="error">Not valid JSON yet</span> : null}
    </>
  );
}

function Field({ name, path, schema: raw, value, required, columns, onChange }: FieldProps) {
  const schema = unwrap(raw);
  const label = `${name}${required ? '' : ' (optional)'}`;
  const aria = path;

  if (schema.oneOf) {
    // A tagged union (VARIABLE's value): pick the variant by its `type` constant, then fill it in.
    const tags = schema.oneOf.map((v) => v.properties?.type?.const as string);
    const current = (value as { type?: string } | undefined)?.type ?? tags[0];
    const variant = schema.oneOf[Math.max(0, tags.indexOf(current))];
    return (
      <fieldset className="stack" style={{ border: '1px solid var(--border)', borderRadius: 8, padding: 10 }}>
        <legend className="muted">{label}</legend>
        <label>
          type
          <select aria-label={`${aria}.type`} value={current} onChange={(e) => onChange({ type: e.target.value })}>
            {tags.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
        <Field
          name="value"
          path={`${aria}.value`}
          schema={variant.properties?.value ?? {}}
          value={(value as { value?: unknown } | undefined)?.value}
          required
          columns={columns}
          onChange={(v) => onChange({ type: current, value: v })}
        />
      </fieldset>
    );
  }
  if (schema.enum) {
    return (
      <label>
        {label}
        <select aria-label={aria} value={String(value ?? '')} onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)}>
          {required && schema.default === undefined && value === undefined ? <option value="">Choose…</option> : null}
          {!required ? <option value="">—</option> : null}
          {schema.enum.map((v) => (
            <option key={String(v)}>{String(v)}</option>
          ))}
        </select>
      </label>
    );
  }
  if (schema.type === 'boolean') {
    return (
      <label style={{ flexDirection: 'row', alignItems: 'center', gap: 6 }}>
        <input type="checkbox" aria-label={aria} checked={Boolean(value ?? schema.default)} onChange={(e) => onChange(e.target.checked)} />
        {name}
      </label>
    );
  }
  if (schema.type === 'array' && COLUMN_REF.test(name)) {
    const picked = (value as string[] | undefined) ?? [];
    const max = schema.maxItems ?? 100;
    return (
      <label>
        {label} <span className="muted">— columns, in order{schema.minItems ? `, at least ${schema.minItems}` : ''}</span>
        <span className="row" style={{ gap: 4 }}>
          {picked.map((c, i) => (
            <span key={`${c}-${i}`} className="badge accent">
              {c}
              <button type="button" className="ghost small" aria-label={`Remove ${c}`} onClick={() => onChange(picked.filter((_, j) => j !== i))}>
                ✕
              </button>
            </span>
          ))}
          {picked.length < max ? (
            <select aria-label={aria} value="" onChange={(e) => e.target.value && onChange([...picked, e.target.value])}>
              <option value="">+ Add column…</option>
              {columns.map((c) => (
                <option key={c}>{c}</option>
              ))}
            </select>
          ) : null}
        </span>
      </label>
    );
  }
  if (schema.type === 'string' && COLUMN_REF.test(name)) {
    return (
      <label>
        {label}
        <select aria-label={aria} value={String(value ?? '')} onChange={(e) => onChange(e.target.value || undefined)}>
          <option value="">{required ? 'Choose a column…' : '—'}</option>
          {columns.map((c) => (
            <option key={c}>{c}</option>
          ))}
        </select>
      </label>
    );
  }
  if (schema.type === 'object' && schema.properties) {
    const obj = (value as Record<string, unknown> | undefined) ?? undefined;
    return (
      <fieldset className="stack" style={{ border: '1px solid var(--border)', borderRadius: 8, padding: 10 }}>
        <legend className="muted">
          {required ? (
            name
          ) : (
            <label style={{ flexDirection: 'row', gap: 6, alignItems: 'center' }}>
              <input type="checkbox" aria-label={`Use ${aria}`} checked={obj !== undefined} onChange={(e) => onChange(e.target.checked ? {} : undefined)} />
              {name} (optional)
            </label>
          )}
        </legend>
        {required || obj !== undefined ? (
          <ObjectFields schema={schema} path={aria} value={obj ?? {}} columns={columns} onChange={onChange} />
        ) : null}
      </fieldset>
    );
  }
  if (schema.type === 'string') {
    const long = LONG_TEXT.test(name) || (schema.maxLength ?? 0) > 1000;
    const common = { 'aria-label': aria, value: String(value ?? ''), onChange: (e: { target: { value: string } }) => onChange(e.target.value === '' ? undefined : e.target.value) };
    return (
      <label>
        {label}
        {long ? <textarea rows={name === 'code' ? 6 : 3} {...common} /> : <input {...common} placeholder={schema.default !== undefined ? String(schema.default) : undefined} />}
      </label>
    );
  }
  if (schema.type === 'integer' || schema.type === 'number' || (Array.isArray(schema.type) && schema.type.includes('number'))) {
    const numberOnly = !Array.isArray(schema.type);
    return (
      <label>
        {label}
        <input
          aria-label={aria}
          type={numberOnly ? 'number' : 'text'}
          value={value === undefined ? '' : String(value)}
          placeholder={schema.default !== undefined ? String(schema.default) : undefined}
          onChange={(e) => {
            const text = e.target.value;
            if (text === '') return onChange(undefined);
            onChange(text.trim() !== '' && !Number.isNaN(Number(text)) ? Number(text) : text);
          }}
        />
      </label>
    );
  }
  if (schema.type === 'array') {
    return (
      <label>
        {label} <span className="muted">(comma-separated)</span>
        <input
          aria-label={aria}
          value={((value as unknown[] | undefined) ?? []).join(', ')}
          onChange={(e) => onChange(e.target.value.split(',').map((s) => s.trim()).filter(Boolean))}
        />
      </label>
    );
  }
  // Records and "any" values: JSON, with plain text accepted where JSON does not parse.
  return (
    <label>
      {label} <span className="muted">{isRecord(schema) ? '(JSON object)' : '(JSON or text)'}</span>
      {isRecord(schema) ? <JsonField label={aria} value={value} onChange={onChange} /> : <textarea aria-label={aria} rows={2} defaultValue={value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value)} onChange={(e) => onChange(e.target.value === '' ? undefined : looseJson(e.target.value))} />}
    </label>
  );
}

function ObjectFields({ schema, path, value, columns, onChange }: { schema: JsonSchema; path: string; value: Record<string, unknown>; columns: string[]; onChange: (v: Record<string, unknown>) => void }) {
  const required = new Set(schema.required ?? []);
  return (
    <>
      {Object.entries(schema.properties ?? {}).map(([name, child]) => (
        <Field
          key={name}
          name={name}
          path={path ? `${path}.${name}` : name}
          schema={child}
          // A field with a default is required only on the output side; the user may leave it out.
          required={required.has(name) && unwrap(child).default === undefined}
          value={value[name]}
          columns={columns}
          onChange={(v) => {
            const next = { ...value };
            if (v === undefined) delete next[name];
            else next[name] = v;
            onChange(next);
          }}
        />
      ))}
    </>
  );
}

/**
 * A form generated from a column type's configuration schema: each type gets fields, pickers for
 * the columns it reads, selects for enums and JSON for free-form values, with no per-type code.
 */
export function SchemaForm({ schema, value, columns, onChange }: { schema: JsonSchema; value: Record<string, unknown>; columns: string[]; onChange: (v: Record<string, unknown>) => void }) {
  return (
    <div className="stack" style={{ gap: 10 }}>
      <ObjectFields schema={schema} path="" value={value} columns={columns} onChange={onChange} />
    </div>
  );
}
