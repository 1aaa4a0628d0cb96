import type { z } from 'zod';
import type { absoluteNumericDistance } from '../../../../src-server/eval/columns/absolute-numeric-distance';
import type { assertValid } from '../../../../src-server/eval/columns/assert-valid';
import type { compare } from '../../../../src-server/eval/columns/compare';
import type { contains } from '../../../../src-server/eval/columns/contains';
import type { mathOperator } from '../../../../src-server/eval/columns/math-operator';
import type { regex } from '../../../../src-server/eval/columns/regex';
import { Choice, ColumnSelect, FieldError, Hint, TextField, type FormProps } from './fields';

/** Keyed by the server schema's enum, so a new value there is a compile error here. */
const options = <T extends string>(labels: Record<T, string>) => Object.entries(labels) as Array<[T, string]>;

/** A value typed in, or read from a column: CONTAINS' value / value_source, COMPARE's target / second source. */
function ValueOrColumn({ label, fromColumn, text, column, columns, onText, onColumn, onMode, placeholder }: {
  label: string; fromColumn: boolean; text: string | undefined; column: string | undefined; columns: string[];
  onText: (v: string | undefined) => void; onColumn: (v: string | undefined) => void; onMode: (fromColumn: boolean) => void; placeholder?: string;
}) {
  return (
    <div className="stack builder-tight">
      <div className="row">
        <span className="muted">{label}:</span>
        <label className="builder-check">
          <input type="radio" aria-label={`${label}: typed value`} checked={!fromColumn} onChange={() => onMode(false)} /> a value
        </label>
        <label className="builder-check">
          <input type="radio" aria-label={`${label}: from a column`} checked={fromColumn} onChange={() => onMode(true)} /> a column
        </label>
      </div>
      {fromColumn
        ? <ColumnSelect label={`${label} column`} value={column} columns={columns} onChange={onColumn} />
        : <TextField label={`${label} text`} value={text} placeholder={placeholder} onChange={onText} />}
    </div>
  );
}

export function ContainsForm({ config, onChange, columns, errors }: FormProps<z.output<typeof contains.config>>) {
  const fromColumn = config.value_source !== undefined;
  return (
    <div className="stack">
      <ColumnSelect label="Look in" value={config.source} columns={columns} onChange={(source) => onChange({ ...config, source })} />
      <FieldError errors={errors} at="source" />
      <ValueOrColumn label="Look for" fromColumn={fromColumn} text={config.value} column={config.value_source || undefined} columns={columns} placeholder="refund"
        onText={(value) => onChange({ ...config, value: value ?? '' })} onColumn={(value_source) => onChange({ ...config, value_source: value_source ?? '' })}
        onMode={(col) => onChange({ ...config, value: col ? undefined : '', value_source: col ? '' : undefined })} />
      <Hint>Case-insensitive. Passes when the text contains it.</Hint>
      <FieldError errors={errors} at="value" />
    </div>
  );
}

export function RegexForm({ config, onChange, columns, errors, extraction }: FormProps<z.output<typeof regex.config>> & { extraction?: boolean }) {
  return (
    <div className="stack">
      <ColumnSelect label={extraction ? 'Extract from' : 'Text to test'} value={config.source} columns={columns} onChange={(source) => onChange({ ...config, source })} />
      <FieldError errors={errors} at="source" />
      <TextField label="Pattern" mono value={config.regex_pattern} placeholder={extraction ? '#\\d+' : '^Dear .+,'} onChange={(regex_pattern) => onChange({ ...config, regex_pattern })}
        hint={extraction ? 'Every match, as a list.' : 'Passes when the pattern matches anywhere. Linear-time engine: no backreferences or lookarounds.'} />
      <FieldError errors={errors} at="regex_pattern" />
    </div>
  );
}

export function CompareForm({ config, onChange, columns, errors }: FormProps<z.output<typeof compare.config>>) {
  const [a, b] = config.sources ?? [];
  const withTarget = (config.sources?.length ?? 2) === 1 && config.target !== undefined;
  const kind = config.comparison_type?.type ?? 'STRING';
  const target = config.target === undefined ? undefined : typeof config.target === 'string' ? config.target : JSON.stringify(config.target);
  return (
    <div className="stack">
      <ColumnSelect label="Compare" value={a || undefined} columns={columns} onChange={(v) => onChange({ ...config, sources: withTarget ? [v ?? ''] : [v ?? '', b ?? ''] })} />
      <ValueOrColumn label="With" fromColumn={!withTarget} text={target} column={b || undefined} columns={columns} placeholder="expected text"
        onText={(t) => onChange({ ...config, sources: [a ?? ''], target: t ?? '' })} onColumn={(v) => onChange({ ...config, sources: [a ?? '', v ?? ''], target: undefined })}
        onMode={(col) => onChange({ ...config, sources: col ? [a ?? '', ''] : [a ?? ''], target: col ? undefined : '' })} />
      <FieldError errors={errors} at="sources" />
      <div className="builder-grid">
        <Choice label="Compare as" value={kind} options={options({ STRING: 'Text (exact)', JSON: 'JSON (key order ignored)' })}
          onChange={(type) => onChange({ ...config, comparison_type: { ...config.comparison_type, type } })} />
        {kind === 'JSON' ? (
          <TextField label="Only at JSON path" mono value={config.comparison_type?.json_path ?? undefined} placeholder="$.label (optional)"
            onChange={(json_path) => onChange({ ...config, comparison_type: { type: kind, json_path } })} />
        ) : null}
      </div>
      <FieldError errors={errors} at="comparison_type" />
    </div>
  );
}

export function MathOperatorForm({ config, onChange, columns, errors }: FormProps<z.output<typeof mathOperator.config>>) {
  const [a, b] = config.sources ?? [];
  const withValue = (config.sources?.length ?? 1) === 1;
  return (
    <div className="stack">
      <div className="builder-grid">
        <ColumnSelect label="Number" value={a || undefined} columns={columns} onChange={(v) => onChange({ ...config, sources: withValue ? [v ?? ''] : [v ?? '', b ?? ''] })} />
        <Choice label="Is" value={config.operator} options={options({ lt: '< less than', le: '≤ at most', gt: '> more than', ge: '≥ at least' })} onChange={(operator) => onChange({ ...config, operator })} />
      </div>
      <ValueOrColumn label="Than" fromColumn={!withValue} text={config.value === undefined ? undefined : String(config.value)} column={b || undefined} columns={columns} placeholder="0.8"
        onText={(t) => onChange({ ...config, sources: [a ?? ''], value: t === undefined ? undefined : Number.isFinite(Number(t)) && t.trim() !== '' ? Number(t) : t })}
        onColumn={(v) => onChange({ ...config, sources: [a ?? '', v ?? ''], value: undefined })}
        onMode={(col) => onChange({ ...config, sources: col ? [a ?? '', ''] : [a ?? ''], value: undefined })} />
      <FieldError errors={errors} at="sources" />
      <FieldError errors={errors} at="value" />
      <FieldError errors={errors} at="operator" />
    </div>
  );
}

export function AbsoluteNumericDistanceForm({ config, onChange, columns, errors }: FormProps<z.output<typeof absoluteNumericDistance.config>>) {
  const [a, b] = config.sources ?? [];
  return (
    <div className="stack">
      <div className="builder-grid">
        <ColumnSelect label="First number" value={a || undefined} columns={columns} onChange={(v) => onChange({ ...config, sources: [v ?? '', b ?? ''] })} />
        <ColumnSelect label="Second number" value={b || undefined} columns={columns} onChange={(v) => onChange({ ...config, sources: [a ?? '', v ?? ''] })} />
      </div>
      <FieldError errors={errors} at="sources" />
    </div>
  );
}

export function AssertValidForm({ config, onChange, columns, errors }: FormProps<z.output<typeof assertValid.config>>) {
  return (
    <div className="builder-grid">
      <ColumnSelect label="Check" value={config.source} columns={columns} onChange={(source) => onChange({ ...config, source })} />
      <Choice label="Is valid" value={config.type} options={options({ object: 'JSON', number: 'Number', sql: 'SQL' })} onChange={(type) => onChange({ ...config, type })} />
      <FieldError errors={errors} at="source" />
    </div>
  );
}

export function RegexExtractionForm(props: FormProps<z.output<typeof regex.config>>) {
  return <RegexForm {...props} extraction />;
}
