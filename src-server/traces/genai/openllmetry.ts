import { indexed, message, str, textOf, type ChatMessage, type GenAiMapper } from './llm-call';
import { otelGenai } from './otel-genai';

/** `gen_ai.completion.0.tool_calls.0.name` … as read by `indexed`: `tool_calls.0.name` keys. */
function toolCallsOf(row: Record<string, unknown>): ChatMessage['tool_calls'] {
  const calls = indexed(row, 'tool_calls.').map((call) => ({
    id: str(call.id) ?? '',
    type: 'function' as const,
    function: { name: str(call.name) ?? '', arguments: str(call.arguments) ?? '' },
  }));
  return calls.length > 0 ? calls : undefined;
}

function messagesOf(rows: Array<Record<string, unknown>>): ChatMessage[] {
  return rows.map((row) => {
    const calls = toolCallsOf(row);
    return message(row.role ?? 'assistant', textOf(row.content), {
      ...(calls ? { tool_calls: calls } : {}),
      ...(row.tool_call_id !== undefined ? { tool_call_id: str(row.tool_call_id) } : {}),
    });
  });
}

export const openllmetry: GenAiMapper = {
  id: 'openllmetry',
  description: "OpenLLMetry (Traceloop): the GenAI attributes before messages became JSON, gen_ai.system and one attribute per field, gen_ai.prompt.N.role/content and gen_ai.completion.N.*.",
  map(span) {
    // Model, provider, usage and parameters are named as in the current conventions.
    const call = otelGenai.map(span);
    const a = span.attributes;
    return {
      ...call,
      messagesIn: messagesOf(indexed(a, 'gen_ai.prompt.')),
      messagesOut: messagesOf(indexed(a, 'gen_ai.completion.')),
    };
  },
};
