import type { DecodedSpan } from '../otlp/otlp-spans';
import { attributesUnder, int, message, num, parseJson, str, textOf, type ChatMessage, type GenAiMapper } from './llm-call';

/** Tool calls in a message's parts (`{type: 'tool_call', id, name, arguments}`). */
function toolCallsOf(parts: Array<Record<string, unknown>>): ChatMessage['tool_calls'] {
  const calls = parts
    .filter((p) => p.type === 'tool_call')
    .map((p) => ({
      id: str(p.id) ?? '',
      type: 'function' as const,
      function: { name: str(p.name) ?? '', arguments: typeof p.arguments === 'string' ? p.arguments : JSON.stringify(p.arguments ?? {}) },
    }));
  return calls.length > 0 ? calls : undefined;
}

/** `gen_ai.input.messages` / `gen_ai.output.messages`: `[{role, parts: [{type, content}…]}]`. */
function messagesOf(value: unknown): ChatMessage[] {
  const list = parseJson(value);
  if (!Array.isArray(list)) return [];
  return list.flatMap((m): ChatMessage[] => {
    if (typeof m !== 'object' || m === null) return [];
    const entry = m as Record<string, unknown>;
    const parts = Array.isArray(entry.parts) ? entry.parts.filter((p): p is Record<string, unknown> => typeof p === 'object' && p !== null) : [];
    const text = parts.length > 0
      ? parts.filter((p) => p.type === 'text' || p.type === 'reasoning').map((p) => textOf(p.content)).join('\n')
      : textOf(entry.content);
    const response = parts.find((p) => p.type === 'tool_call_response');
    if (response) return [message('tool', textOf(response.response ?? response.result), { tool_call_id: str(response.id) ?? '' })];
    const calls = toolCallsOf(parts);
    return [message(entry.role, text, calls ? { tool_calls: calls } : {})];
  });
}

/** Older semantic conventions (1.28–1.36): one span event per message and one per choice. */
function messagesFromEvents(span: DecodedSpan): { messagesIn: ChatMessage[]; messagesOut: ChatMessage[] } {
  const messagesIn: ChatMessage[] = [];
  const messagesOut: ChatMessage[] = [];
  for (const event of span.events) {
    const a = event.attributes;
    if (a['gen_ai.input.messages'] !== undefined) messagesIn.push(...messagesOf(a['gen_ai.input.messages']));
    if (a['gen_ai.output.messages'] !== undefined) messagesOut.push(...messagesOf(a['gen_ai.output.messages']));
    const role = /^gen_ai\.(system|user|assistant|tool)\.message$/.exec(event.name)?.[1];
    if (role) messagesIn.push(message(a.role ?? role, textOf(parseJson(a.content))));
    if (event.name === 'gen_ai.choice') {
      const choice = parseJson(a.message);
      const body = typeof choice === 'object' && choice !== null ? (choice as Record<string, unknown>) : { content: choice };
      messagesOut.push(message(body.role ?? 'assistant', textOf(body.content)));
    }
  }
  return { messagesIn, messagesOut };
}

export const otelGenai: GenAiMapper = {
  id: 'otel-genai',
  description: 'OpenTelemetry GenAI semantic conventions: gen_ai.provider.name (or gen_ai.system), gen_ai.request/response.model, gen_ai.usage.*, messages in gen_ai.input/output.messages or in span events.',
  map(span) {
    const a = span.attributes;
    const events = messagesFromEvents(span);
    const system = messagesOf(
      Array.isArray(parseJson(a['gen_ai.system_instructions']))
        ? [{ role: 'system', parts: parseJson(a['gen_ai.system_instructions']) }]
        : undefined,
    );
    const parameters: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(a)) {
      if (key.startsWith('gen_ai.request.') && key !== 'gen_ai.request.model') parameters[key.slice('gen_ai.request.'.length)] = value;
    }
    const usage = attributesUnder(a, 'gen_ai.usage.');
    // The current names, then OpenLLMetry's.
    const cacheRead = int(a['gen_ai.usage.cache_read.input_tokens'] ?? a['gen_ai.usage.cache_read_input_tokens']);
    const cacheWrite = int(a['gen_ai.usage.cache_creation.input_tokens'] ?? a['gen_ai.usage.cache_creation_input_tokens']);
    const input = int(a['gen_ai.usage.input_tokens'] ?? a['gen_ai.usage.prompt_tokens']);
    if (a['gen_ai.response.model'] !== undefined) usage['gen_ai.response.model'] = String(a['gen_ai.response.model']);
    return {
      provider: str(a['gen_ai.provider.name']) ?? str(a['gen_ai.system']) ?? 'unknown',
      model: str(a['gen_ai.request.model']) ?? str(a['gen_ai.response.model']) ?? 'unknown',
      messagesIn: [...system, ...messagesOf(a['gen_ai.input.messages']), ...events.messagesIn],
      messagesOut: [...messagesOf(a['gen_ai.output.messages']), ...events.messagesOut],
      // The conventions count cache reads and writes in input_tokens (semantic-conventions 1.40,
      // "Anthropic": input_tokens + cache_read + cache_creation). An instrumentation that copies
      // Anthropic's own input_tokens shows it only when the parts outgrow the whole; then it is added up.
      inputTokens: input < cacheRead + cacheWrite ? input + cacheRead + cacheWrite : input,
      outputTokens: int(a['gen_ai.usage.output_tokens'] ?? a['gen_ai.usage.completion_tokens']),
      cachedInputTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
      reasoningTokens: int(a['gen_ai.usage.reasoning.output_tokens'] ?? a['gen_ai.usage.reasoning_tokens']),
      usage,
      parameters,
      price: num(a['gen_ai.usage.cost']),
    };
  },
};
