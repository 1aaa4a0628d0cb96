import type { z } from 'zod';
import type { coalesce } from '../../../../src-server/eval/columns/coalesce';
import type { count } from '../../../../src-server/eval/columns/count';
import type { human } from '../../../../src-server/eval/columns/human';
import type { jsonPath } from '../../../../src-server/eval/columns/json-path';
import type { minMax } from '../../../../src-server/eval/columns/min-max';
import type { parseValue } from '../../../../src-server/eval/columns/parse-value';
import type { variable } from '../../../../src-server/eval/columns/variable';
import type { xmlPath } from '../../../../src-server/eval/columns/xml-path';
import { Choice, ColumnMultiSelect, ColumnSelect, FieldError, Hint, TextField, type FormProps } from './fields';

/** Keyed by the server schema's enum, so a new value there is a compile error here. */
const options = <T extends string>(labels: Record<T, string>) => Object.entries(labels) as Array<[T, string]>;

export function JsonPathForm({ config, onChange, columns, errors }: FormProps<z.output<typeof jsonPath.config>>) {
  return (
    <div className="stack">
      <div className="builder-grid">
        <ColumnSelect label="From" value={config.source} columns={columns} onChange={(source) => onChange({ ...config, source })} />
        <TextField label="JSON path" mono value={config.json_path} placeholder="$.choices[0].label" onChange={(json_path) => onChange({ ...config, json_path })} />
      </div>
      <label className="builder-check">
        <input type="checkbox" aria-label="Only the first match" checked={config.return_first_match ?? true} onChange={(e) => onChange({ ...config, return_first_match: e.target.checked })} />
        Only the first match (else a list of all)
      </label>
      <FieldError errors={errors} at="source" />
      <FieldError errors={errors} at="json_path" />
    </div>
  );
}

export function XmlPathForm({ config, onChange, columns, errors }: FormProps<z.output<typeof xmlPath.config>>) {
  return (
    <div className="stack">
      <div className="builder-grid">
        <ColumnSelect label="From" value={config.source} columns={columns} onChange={(source) => onChange({ ...config, source })} />
        <TextField label="XML path" mono value={config.xml_path} placeholder=".//title" onChange={(xml_path) => onChange({ ...config, xml_path })} />
        <Choice label="Matches" value={config.type ?? 'find'} options={options({ find: 'The first', findall: 'All' })} onChange={(type) => onChange({ ...config, type })} />
      </div>
      <label className="builder-check">
        <input type="checkbox" aria-label="Text only" checked={config.return_text ?? true} onChange={(e) => onChange({ ...config, return_text: e.target.checked })} />
        Text only (else the element as XML)
      </label>
      <FieldError errors={errors} at="source" />
      <FieldError errors={errors} at="xml_path" />
    </div>
  );
}

export function ParseValueForm({ config, onChange, columns, errors }: FormProps<z.output<typeof parseValue.config>>) {
  return (
    <div className="builder-grid">
      <ColumnSelect label="Parse" value={config.source} columns={columns} onChange={(source) => onChange({ ...config, source })} />
      <Choice label="As" value={config.type} options={options({ string: 'Text', number: 'Number', boolean: 'True / false', object: 'JSON' })} onChange={(type) => onChange({ ...config, type })} />
      <FieldError errors={errors} at="source" />
    </div>
  );
}

export function CountForm({ config, onChange, columns, errors }: FormProps<z.output<typeof count.config>>) {
  return (
    <div className="builder-grid">
      <Choice label="Count" value={config.type ?? 'chars'} options={options({ chars: 'Characters', words: 'Words', sentences: 'Sentences', paragraphs: 'Paragraphs' })} onChange={(type) => onChange({ ...config, type })} />
      <ColumnSelect label="In" value={config.source} columns={columns} onChange={(source) => onChange({ ...config, source })} />
      <FieldError errors={errors} at="source" />
    </div>
  );
}

export function MinMaxForm({ config, onChange, columns, errors }: FormProps<z.output<typeof minMax.config>>) {
  return (
    <div className="stack">
      <div className="builder-grid">
        <Choice label="Take the" value={config.type} options={options({ min: 'Smallest', max: 'Largest' })} onChange={(type) => onChange({ ...config, type })} />
        <ColumnSelect label="Of the numbers in" value={config.source} columns={columns} onChange={(source) => onChange({ ...config, source })} />
        <TextField label="At JSON path" mono value={config.json_path ?? undefined} placeholder="$.scores[*] (optional)" onChange={(json_path) => onChange({ ...config, json_path })} />
      </div>
      <FieldError errors={errors} at="source" />
      <FieldError errors={errors} at="json_path" />
    </div>
  );
}

export function SourcesForm({ config, onChange, columns, errors, label }: FormProps<z.output<typeof coalesce.config>> & { label: string }) {
  return (
    <div className="stack">
      <ColumnMultiSelect label={label} value={config.sources} columns={columns} onChange={(sources) => onChange({ ...config, sources })} />
      <FieldError errors={errors} at="sources" />
    </div>
  );
}

export function VariableForm({ config, onChange, errors }: FormProps<z.output<typeof variable.config>>) {
  const kind = config.value?.type ?? 'string';
  const text = config.value === undefined ? undefined : typeof config.value.value === 'string' ? config.value.value : JSON.stringify(config.value.value);
  return (
    <div className="stack">
      <Choice label="Kind" value={kind} options={options({ string: 'Text', json: 'JSON' })} onChange={(type) => onChange({ ...config, value: { type, value: text ?? '' } as typeof config.value })} />
      <TextField label="Value" multiline mono={kind === 'json'} value={text} placeholder={kind === 'json' ? '{"threshold": 0.8}' : 'v2'}
        onChange={(v) => onChange({ ...config, value: { type: kind, value: v ?? '' } as typeof config.value })} />
      <Hint>The same value on every row.</Hint>
      <FieldError errors={errors} at="value" />
    </div>
  );
}

export function HumanForm({ config, onChange, errors }: FormProps<z.output<typeof human.config>>) {
  return (
    <div className="stack">
      <Choice label="A person enters" value={config.data_type} options={options({ boolean: 'Good / bad (true / false)', number: 'A number', string: 'Text' })} onChange={(data_type) => onChange({ ...config, data_type })} />
      <Hint>Cells wait for a value on the run page; the run's score counts them once entered.</Hint>
      <FieldError errors={errors} at="data_type" />
    </div>
  );
}

export function CoalesceForm(props: FormProps<z.output<typeof coalesce.config>>) {
  return <SourcesForm {...props} label="First of these with a value" />;
}

export function CombineColumnsForm(props: FormProps<z.output<typeof coalesce.config>>) {
  return <SourcesForm {...props} label="Combine" />;
}
