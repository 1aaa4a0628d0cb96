import type { ColumnTypeId } from '../../../../src-server/eval/column-type';

export type { ColumnTypeId };

export type KindGroup = 'Call a model' | 'Code and APIs' | 'Check a value' | 'Extract and transform' | 'Combine' | 'Numbers' | 'People';

/**
 * What the picker shows next to the server's one-line description (GET /column-types): the name
 * PromptLayer gives the type, the group it is listed under and an example of a use. The record is
 * keyed by the server's ColumnTypeId, so a new type without an entry is a compile error.
 */
export const COLUMN_KINDS: Record<ColumnTypeId, { title: string; group: KindGroup; example: string; suggestedName: string }> = {
  PROMPT_TEMPLATE: { title: 'Prompt Template', group: 'Call a model', example: 'Run `support-reply` @ production on each ticket and keep the answer.', suggestedName: 'answer' },
  LLM_ASSERTION: { title: 'LLM Assertion', group: 'Call a model', example: 'Ask a model whether `answer` "apologises politely" → true / false.', suggestedName: 'judged' },
  AI_DATA_EXTRACTION: { title: 'AI Data Extraction', group: 'Call a model', example: 'From `answer`, extract "the order number".', suggestedName: 'extracted' },
  COSINE_SIMILARITY: { title: 'Cosine Similarity', group: 'Call a model', example: 'How close `answer` is to `expected` in meaning, 0..1 (embeddings).', suggestedName: 'similarity' },
  CODE_EXECUTION: { title: 'Code Execution', group: 'Code and APIs', example: 'return data.answer.length < 500', suggestedName: 'code' },
  ENDPOINT: { title: 'API Endpoint', group: 'Code and APIs', example: 'POST each row to https://example.com/grade and keep the reply.', suggestedName: 'endpoint' },
  CONTAINS: { title: 'Contains', group: 'Check a value', example: 'Does `answer` contain "refund" (or the row\'s `expected`)?', suggestedName: 'contains' },
  REGEX: { title: 'Regex Match', group: 'Check a value', example: 'Does `answer` match ^Dear .+,', suggestedName: 'matches' },
  COMPARE: { title: 'Compare', group: 'Check a value', example: 'Is `answer` equal to `expected`?', suggestedName: 'equal' },
  ASSERT_VALID: { title: 'Assert Valid', group: 'Check a value', example: 'Is `answer` valid JSON?', suggestedName: 'valid' },
  MATH_OPERATOR: { title: 'Math Operator', group: 'Numbers', example: 'Is `score` ≥ 0.8?', suggestedName: 'above threshold' },
  ABSOLUTE_NUMERIC_DISTANCE: { title: 'Absolute Numeric Distance', group: 'Numbers', example: '|`predicted` − `actual`|', suggestedName: 'distance' },
  MIN_MAX: { title: 'Min / Max', group: 'Numbers', example: 'The largest number in `scores`.', suggestedName: 'max' },
  COUNT: { title: 'Count', group: 'Numbers', example: 'How many words `answer` has.', suggestedName: 'length' },
  JSON_PATH: { title: 'JSON Path', group: 'Extract and transform', example: '$.choices[0].label from `answer`.', suggestedName: 'picked' },
  XML_PATH: { title: 'XML Path', group: 'Extract and transform', example: './/title from `answer`.', suggestedName: 'picked' },
  REGEX_EXTRACTION: { title: 'Regex Extraction', group: 'Extract and transform', example: 'Every #\\d+ order number in `answer`.', suggestedName: 'matches' },
  PARSE_VALUE: { title: 'Parse Value', group: 'Extract and transform', example: 'Read `answer` as a number.', suggestedName: 'parsed' },
  VARIABLE: { title: 'Static Value', group: 'Extract and transform', example: 'The constant "v2" (or any JSON).', suggestedName: 'constant' },
  COALESCE: { title: 'Coalesce', group: 'Combine', example: 'The first of `answer`, `fallback` that has a value.', suggestedName: 'first value' },
  COMBINE_COLUMNS: { title: 'Combine Columns', group: 'Combine', example: '{question, answer} as one object.', suggestedName: 'combined' },
  HUMAN: { title: 'Human Input', group: 'People', example: 'A reviewer marks each answer good / bad.', suggestedName: 'reviewed' },
};

export const columnTitle = (id: string) => (id in COLUMN_KINDS ? COLUMN_KINDS[id as ColumnTypeId].title : id);
