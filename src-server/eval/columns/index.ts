import type { ColumnType, ColumnTypeId } from '../column-type';
import { absoluteNumericDistance } from './absolute-numeric-distance';
import { aiDataExtraction } from './ai-data-extraction';
import { assertValid } from './assert-valid';
import { codeExecution } from './code-execution';
import { coalesce } from './coalesce';
import { combineColumns } from './combine-columns';
import { compare } from './compare';
import { contains } from './contains';
import { cosineSimilarity } from './cosine-similarity';
import { count } from './count';
import { endpoint } from './endpoint';
import { human } from './human';
import { jsonPath } from './json-path';
import { llmAssertion } from './llm-assertion';
import { mathOperator } from './math-operator';
import { minMax } from './min-max';
import { parseValue } from './parse-value';
import { promptTemplate } from './prompt-template';
import { regex } from './regex';
import { regexExtraction } from './regex-extraction';
import { variable } from './variable';
import { xmlPath } from './xml-path';

/** One line per column type; a missing id is a compile error. */
export const columnTypes: Record<ColumnTypeId, ColumnType> = {
  PROMPT_TEMPLATE: promptTemplate,
  LLM_ASSERTION: llmAssertion,
  AI_DATA_EXTRACTION: aiDataExtraction,
  CODE_EXECUTION: codeExecution,
  ENDPOINT: endpoint,
  HUMAN: human,
  COMPARE: compare,
  CONTAINS: contains,
  REGEX: regex,
  REGEX_EXTRACTION: regexExtraction,
  JSON_PATH: jsonPath,
  XML_PATH: xmlPath,
  PARSE_VALUE: parseValue,
  ASSERT_VALID: assertValid,
  VARIABLE: variable,
  COALESCE: coalesce,
  COMBINE_COLUMNS: combineColumns,
  COUNT: count,
  MATH_OPERATOR: mathOperator,
  ABSOLUTE_NUMERIC_DISTANCE: absoluteNumericDistance,
  COSINE_SIMILARITY: cosineSimilarity,
  MIN_MAX: minMax,
};

export const columnTypeIds = Object.keys(columnTypes) as ColumnTypeId[];
