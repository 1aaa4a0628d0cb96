import type { z } from 'zod';
import type { aiDataExtraction } from '../../../../src-server/eval/columns/ai-data-extraction';
import type { cosineSimilarity } from '../../../../src-server/eval/columns/cosine-similarity';
import type { llmAssertion } from '../../../../src-server/eval/columns/llm-assertion';
import { ColumnSelect, EngineFields, FieldError, TextField, type EngineValue, type FormProps } from './fields';

const DEFAULT_MODEL = 'the built-in default (openai)';

/** LLM_ASSERTION: a model judges one column against a statement (typed, or read from a column). */
export function LlmAssertionForm({ config, onChange, columns, errors }: FormProps<z.output<typeof llmAssertion.config>>) {
  const fromColumn = config.prompt_source !== undefined;
  return (
    <div className="stack">
      <ColumnSelect label="Text to judge" value={config.source} columns={columns} onChange={(source) => onChange({ ...config, source })} />
      <FieldError errors={errors} at="source" />
      <label className="builder-check">
        <input type="checkbox" aria-label="Read the statement from a column" checked={fromColumn}
          onChange={(e) => onChange({ ...config, prompt: undefined, prompt_source: e.target.checked ? '' : undefined })} />
        Read the statement from a column
      </label>
      {fromColumn ? (
        <ColumnSelect label="Statement column" value={config.prompt_source || undefined} columns={columns} onChange={(prompt_source) => onChange({ ...config, prompt_source: prompt_source ?? '' })} />
      ) : (
        <TextField label="Statement" multiline value={config.prompt} placeholder="The answer apologises and offers a refund."
          hint="The model answers true or false. A JSON list of statements gives one verdict each."
          onChange={(prompt) => onChange({ ...config, prompt })} />
      )}
      <FieldError errors={errors} at="prompt" />
      <EngineFields value={config.engine} errors={errors} inherit={DEFAULT_MODEL} onChange={(engine) => onChange({ ...config, engine: engine as typeof config.engine })} />
    </div>
  );
}

/** AI_DATA_EXTRACTION: a model pulls one thing out of a column. */
export function AiDataExtractionForm({ config, onChange, columns, errors }: FormProps<z.output<typeof aiDataExtraction.config>>) {
  return (
    <div className="stack">
      <ColumnSelect label="Extract from" value={config.source} columns={columns} onChange={(source) => onChange({ ...config, source })} />
      <FieldError errors={errors} at="source" />
      <TextField label="What to extract" multiline value={config.query} placeholder="The order number, digits only" onChange={(query) => onChange({ ...config, query })} />
      <FieldError errors={errors} at="query" />
      <EngineFields value={config.engine} errors={errors} inherit={DEFAULT_MODEL} onChange={(engine) => onChange({ ...config, engine: engine as typeof config.engine })} />
    </div>
  );
}

/** COSINE_SIMILARITY: two columns' embeddings, compared. */
export function CosineSimilarityForm({ config, onChange, columns, errors }: FormProps<z.output<typeof cosineSimilarity.config>>) {
  const [a, b] = config.sources ?? [];
  const set = (i: number, v: string | undefined) => {
    const next = [a ?? '', b ?? ''];
    next[i] = v ?? '';
    onChange({ ...config, sources: next });
  };
  return (
    <div className="stack">
      <div className="builder-grid">
        <ColumnSelect label="First text" value={a || undefined} columns={columns} onChange={(v) => set(0, v)} />
        <ColumnSelect label="Second text" value={b || undefined} columns={columns} onChange={(v) => set(1, v)} />
      </div>
      <FieldError errors={errors} at="sources" />
      <EngineFields value={config.engine as EngineValue | undefined} errors={errors} embeddings inherit="openai / text-embedding-3-small"
        onChange={(engine) => onChange({ ...config, engine: engine ? { provider: engine.provider, model: engine.model } : undefined })} />
    </div>
  );
}
