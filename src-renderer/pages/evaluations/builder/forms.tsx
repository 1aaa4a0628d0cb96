import type { ComponentType } from 'react';
import { AbsoluteNumericDistanceForm, AssertValidForm, CompareForm, ContainsForm, MathOperatorForm, RegexExtractionForm, RegexForm } from './check-forms';
import { CodeExecutionForm } from './code-execution';
import type { ColumnTypeId } from './column-kinds';
import { EndpointForm } from './endpoint';
import type { FormProps } from './fields';
import { AiDataExtractionForm, CosineSimilarityForm, LlmAssertionForm } from './model-forms';
import { PromptTemplateForm } from './prompt-template';
import { CoalesceForm, CombineColumnsForm, CountForm, HumanForm, JsonPathForm, MinMaxForm, ParseValueForm, VariableForm, XmlPathForm } from './transform-forms';

// Each form is typed by its own column's schema; the registry holds them side by side.
type AnyForm = ComponentType<FormProps<Record<string, unknown>>>;
const form = <C,>(f: ComponentType<FormProps<C>>) => f as unknown as AnyForm;

/** One guided form per column type; a type without one is a compile error. */
export const COLUMN_FORMS: Record<ColumnTypeId, AnyForm> = {
  PROMPT_TEMPLATE: form(PromptTemplateForm),
  LLM_ASSERTION: form(LlmAssertionForm),
  AI_DATA_EXTRACTION: form(AiDataExtractionForm),
  COSINE_SIMILARITY: form(CosineSimilarityForm),
  CODE_EXECUTION: form(CodeExecutionForm),
  ENDPOINT: form(EndpointForm),
  CONTAINS: form(ContainsForm),
  REGEX: form(RegexForm),
  REGEX_EXTRACTION: form(RegexExtractionForm),
  COMPARE: form(CompareForm),
  MATH_OPERATOR: form(MathOperatorForm),
  ABSOLUTE_NUMERIC_DISTANCE: form(AbsoluteNumericDistanceForm),
  ASSERT_VALID: form(AssertValidForm),
  JSON_PATH: form(JsonPathForm),
  XML_PATH: form(XmlPathForm),
  PARSE_VALUE: form(ParseValueForm),
  COUNT: form(CountForm),
  MIN_MAX: form(MinMaxForm),
  COALESCE: form(CoalesceForm),
  COMBINE_COLUMNS: form(CombineColumnsForm),
  VARIABLE: form(VariableForm),
  HUMAN: form(HumanForm),
};

/** A fresh column's configuration: the choices a form shows as made are made. */
export function initialConfig(type: ColumnTypeId, columns: string[]): Record<string, unknown> {
  const last = columns[columns.length - 1];
  switch (type) {
    case 'PROMPT_TEMPLATE':
      return { prompt_template_variable_mappings: {} };
    case 'CODE_EXECUTION':
      return { language: 'JAVASCRIPT' };
    case 'CONTAINS':
      return { source: last, value: '' };
    case 'COMPARE':
      return { sources: [last ?? '', ''], comparison_type: { type: 'STRING' } };
    case 'MATH_OPERATOR':
      return { sources: [last ?? ''], operator: 'ge' };
    case 'COUNT':
      return { source: last, type: 'chars' };
    case 'JSON_PATH':
      return { source: last, return_first_match: true };
    case 'XML_PATH':
      return { source: last, type: 'find', return_text: true };
    case 'VARIABLE':
      return { value: { type: 'string', value: '' } };
    case 'HUMAN':
      return { data_type: 'boolean' };
    case 'ENDPOINT':
      return { headers: {} };
    case 'COALESCE':
    case 'COMBINE_COLUMNS':
    case 'ABSOLUTE_NUMERIC_DISTANCE':
    case 'COSINE_SIMILARITY':
      return { sources: [] };
    case 'LLM_ASSERTION':
    case 'AI_DATA_EXTRACTION':
    case 'REGEX':
    case 'REGEX_EXTRACTION':
    case 'PARSE_VALUE':
    case 'ASSERT_VALID':
    case 'MIN_MAX':
      return { source: last };
  }
}
