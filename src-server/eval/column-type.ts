import type { z } from 'zod';
import type { OutboundFetch } from '../outbound/gate';
import type { LlmGateway } from './llm-gateway';
import type { Sandbox } from './sandbox/sandbox';

/** Every evaluation column type; `columns/index.ts` must hold one handler per id. */
export type ColumnTypeId =
  | 'PROMPT_TEMPLATE'
  | 'LLM_ASSERTION'
  | 'AI_DATA_EXTRACTION'
  | 'CODE_EXECUTION'
  | 'ENDPOINT'
  | 'HUMAN'
  | 'COMPARE'
  | 'CONTAINS'
  | 'REGEX'
  | 'REGEX_EXTRACTION'
  | 'JSON_PATH'
  | 'XML_PATH'
  | 'PARSE_VALUE'
  | 'ASSERT_VALID'
  | 'VARIABLE'
  | 'COALESCE'
  | 'COMBINE_COLUMNS'
  | 'COUNT'
  | 'MATH_OPERATOR'
  | 'ABSOLUTE_NUMERIC_DISTANCE'
  | 'COSINE_SIMILARITY'
  | 'MIN_MAX';

/** What a cell's computation can use. Values to the left are read by column name. */
export interface CellContext {
  /** Every column to the left of this one, dataset columns included, by name. */
  row: Record<string, unknown>;
  workspaceId: number;
  reportId: number;
  columnName: string;
  llm: LlmGateway;
  prompts: PromptSource;
  sandbox: Sandbox;
  /** Every outbound HTTP call goes through here: the egress setting applies and the run logs its hosts. */
  fetch: OutboundFetch;
  signal: AbortSignal;
  /** Set when a pipeline preview computes the cell (`reportId` is then the pipeline's): its LLM calls are tagged `preview`. */
  purpose?: 'preview';
}

/** The prompt registry as PROMPT_TEMPLATE columns see it. */
export interface PromptSource {
  /** A registry version (`label` or `version_number`, else production, else latest), or null. */
  resolve(workspaceId: number, ref: { name: string; version_number?: number | null; label?: string | null }): {
    prompt_template: Record<string, unknown>;
    metadata: Record<string, unknown>;
  } | null;
  render(template: Record<string, unknown>, variables: Record<string, unknown>): Record<string, unknown>;
}

export interface CellResult {
  value: unknown;
  cost?: number;
  inputTokens?: number;
  outputTokens?: number;
}

/**
 * A column type: one file each, registered by one line in `columns/index.ts`. `run` may throw; the
 * runner turns the error into an ERROR cell (a failed cell is data, not an exception).
 */
export interface ColumnType<S extends z.ZodType = z.ZodType> {
  id: ColumnTypeId;
  /** One sentence, shown in the UI's column picker and in docs/evaluations.md. */
  description: string;
  config: S;
  /** Names of the columns the configuration reads: they must exist to the left; a failed one skips this cell. */
  reads(config: z.output<S>): string[];
  /** `false` when one usable input is enough (COALESCE): failed inputs then do not skip the cell. */
  skipsOnFailedInput?: boolean;
  run(config: z.output<S>, ctx: CellContext): Promise<CellResult> | CellResult;
}

/** Declares a column type with its config schema's types flowing into `reads` and `run`; `config`
 * keeps its own type, so the UI's forms type their configuration from it (type-only imports). */
export const columnType = <S extends z.ZodType>(spec: ColumnType<S>) => spec as unknown as ColumnType & { config: S };

/** A problem with the cell's input (not with the engine): recorded as the cell's error text. */
export class CellError extends Error {
  /** `SKIPPED` for a cell that is not wrong but has no value yet (a HUMAN cell before a person fills it). */
  constructor(message: string, readonly status: 'ERROR' | 'SKIPPED' = 'ERROR') {
    super(message);
  }
}
