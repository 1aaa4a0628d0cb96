import type { ReactNode } from 'react';
import type { ReportColumn } from '../../../api/types';
import { columnTitle } from './column-kinds';

const Ref = ({ name }: { name: unknown }) => <code className="builder-ref">{typeof name === 'string' && name ? name : '?'}</code>;
const Lit = ({ value }: { value: unknown }) => <span className="builder-lit">“{typeof value === 'string' ? value : JSON.stringify(value)}”</span>;
const refs = (names: unknown) => (Array.isArray(names) ? names : []).map((n, i) => (
  <span key={i}>{i ? ', ' : ''}<Ref name={n} /></span>
));

type Config = Record<string, any>;

function engineText(engine: Config | undefined, fallback: string): ReactNode {
  if (!engine?.model) return <span className="muted">{fallback}</span>;
  return <>→ <b>{engine.model}</b> via {engine.provider}</>;
}

const OPERATORS: Record<string, string> = { lt: '<', le: '≤', gt: '>', ge: '≥' };

/** A column's configuration as a sentence: what it reads, what it does, with which model. */
export function columnSentence(column: Pick<ReportColumn, 'column_type' | 'configuration'>): ReactNode {
  const c = column.configuration as Config;
  switch (column.column_type) {
    case 'DATASET':
      return <span className="muted">from the dataset</span>;
    case 'PROMPT_TEMPLATE': {
      const mapped = Object.entries((c.prompt_template_variable_mappings ?? {}) as Record<string, string>);
      const source = c.template
        ? <>Prompt <b>{c.template.name}</b> @ {c.template.label ?? (c.template.version_number ? `v${c.template.version_number}` : 'production')}</>
        : <>Inline prompt ({(c.inline_template?.prompt_template?.messages ?? []).length} messages)</>;
      return (
        <>
          {source} {engineText(c.engine, c.template ? "→ the prompt's model" : '→ no model')}
          {mapped.length ? <span className="muted"> · {mapped.map(([v, col], i) => <span key={v}>{i ? ', ' : ''}{`{${v}}`} ← <Ref name={col} /></span>)}</span> : null}
        </>
      );
    }
    case 'LLM_ASSERTION':
      return <>Ask {engineText(c.engine, 'the default model')} whether <Ref name={c.source} /> {c.prompt_source ? <>satisfies <Ref name={c.prompt_source} /></> : <>: <Lit value={c.prompt} /></>}</>;
    case 'AI_DATA_EXTRACTION':
      return <>Extract <Lit value={c.query} /> from <Ref name={c.source} /> {engineText(c.engine, '')}</>;
    case 'COSINE_SIMILARITY':
      return <>Similarity of {refs(c.sources)} {engineText(c.engine, '(openai embeddings)')}</>;
    case 'CODE_EXECUTION':
      return <>Run {c.language === 'PYTHON' ? 'Python' : 'JavaScript'} on the row <span className="muted mono">{String(c.code ?? '').split('\n').find((l: string) => l.trim() && !/^\s*(\/\/|#)/.test(l))?.trim().slice(0, 60)}</span></>;
    case 'ENDPOINT':
      return <>POST the row to <span className="mono">{c.url}</span></>;
    case 'HUMAN':
      return <>A person enters {c.data_type === 'boolean' ? 'good / bad' : c.data_type === 'number' ? 'a number' : 'text'}</>;
    case 'CONTAINS':
      return <>Contains {c.value_source ? <Ref name={c.value_source} /> : <Lit value={c.value} />} in <Ref name={c.source} /></>;
    case 'REGEX':
      return <><Ref name={c.source} /> matches <span className="mono">/{c.regex_pattern}/</span></>;
    case 'REGEX_EXTRACTION':
      return <>Every <span className="mono">/{c.regex_pattern}/</span> in <Ref name={c.source} /></>;
    case 'COMPARE':
      return <><Ref name={c.sources?.[0]} /> equals {c.sources?.length === 2 ? <Ref name={c.sources[1]} /> : <Lit value={c.target} />}{c.comparison_type?.type === 'JSON' ? ' as JSON' : ''}{c.comparison_type?.json_path ? ` at ${c.comparison_type.json_path}` : ''}</>;
    case 'MATH_OPERATOR':
      return <><Ref name={c.sources?.[0]} /> {OPERATORS[c.operator] ?? c.operator} {c.sources?.length === 2 ? <Ref name={c.sources[1]} /> : <b>{String(c.value)}</b>}</>;
    case 'ABSOLUTE_NUMERIC_DISTANCE':
      return <>|<Ref name={c.sources?.[0]} /> − <Ref name={c.sources?.[1]} />|</>;
    case 'MIN_MAX':
      return <>{c.type === 'min' ? 'Smallest' : 'Largest'} number in <Ref name={c.source} />{c.json_path ? ` at ${c.json_path}` : ''}</>;
    case 'COUNT':
      return <>Count {c.type ?? 'chars'} in <Ref name={c.source} /></>;
    case 'JSON_PATH':
      return <><span className="mono">{c.json_path}</span> of <Ref name={c.source} />{c.return_first_match === false ? ' (all matches)' : ''}</>;
    case 'XML_PATH':
      return <><span className="mono">{c.xml_path}</span> of <Ref name={c.source} />{c.type === 'findall' ? ' (all matches)' : ''}</>;
    case 'PARSE_VALUE':
      return <>Read <Ref name={c.source} /> as {c.type === 'object' ? 'JSON' : c.type}</>;
    case 'ASSERT_VALID':
      return <><Ref name={c.source} /> is valid {c.type === 'object' ? 'JSON' : c.type === 'sql' ? 'SQL' : 'number'}</>;
    case 'VARIABLE':
      return <>The constant <Lit value={c.value?.value} /></>;
    case 'COALESCE':
      return <>First value of {refs(c.sources)}</>;
    case 'COMBINE_COLUMNS':
      return <>Combine {refs(c.sources)}</>;
    default:
      return <>{columnTitle(column.column_type)}</>;
  }
}

/** The names a column reads that the columns before it (in the dataset version a run would use) do not have. */
export function missingReferences(column: Pick<ReportColumn, 'reads'>, available: Set<string>): string[] {
  return column.reads.filter((name) => !available.has(name));
}
