import type { DecodedSpan } from '../otlp/otlp-spans';
import type { GenAiMapper } from './llm-call';
import { openinference } from './openinference';
import { openllmetry } from './openllmetry';
import { otelGenai } from './otel-genai';

export type GenAiConventionId = 'otel-genai' | 'openllmetry' | 'openinference';

/** One line per convention; a missing id is a compile error. */
export const genAiMappers: Record<GenAiConventionId, GenAiMapper> = {
  'otel-genai': otelGenai,
  openllmetry,
  openinference,
};

/** GenAI operations that are steps around LLM calls, not calls: an agent run, a tool call. */
const NOT_A_CALL = new Set(['execute_tool', 'invoke_agent', 'create_agent']);

/**
 * Which convention a span is an LLM call in, or null when it is not one. Each test is a marker
 * only that convention writes; OpenLLMetry spans also carry the current model and usage
 * attributes, so its per-message attributes are looked for before those.
 */
export function conventionOf(span: DecodedSpan): GenAiConventionId | null {
  const a = span.attributes;
  const keys = Object.keys(a);
  if (a['openinference.span.kind'] !== undefined) return a['openinference.span.kind'] === 'LLM' ? 'openinference' : null;
  if (NOT_A_CALL.has(String(a['gen_ai.operation.name']))) return null;
  if (keys.some((k) => k.startsWith('gen_ai.prompt.') || k.startsWith('gen_ai.completion.'))) return 'openllmetry';
  const named = ['gen_ai.provider.name', 'gen_ai.system', 'gen_ai.request.model', 'gen_ai.response.model'];
  if (named.some((k) => a[k] !== undefined)) return 'otel-genai';
  return null;
}
