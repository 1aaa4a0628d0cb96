import { attributesUnder, indexed, int, message, num, parseJson, str, textOf, type ChatMessage, type GenAiMapper } from './llm-call';

/** `llm.input_messages.N.message.role`, `.message.content` or `.message.contents.M.message_content.text`. */
function messagesOf(attributes: Record<string, unknown>, prefix: string): ChatMessage[] {
  return indexed(attributes, prefix).map((row) => {
    const contents = indexed(row, 'message.contents.')
      .map((part) => str(part['message_content.text']) ?? '')
      .filter(Boolean);
    const text = contents.length > 0 ? contents.join('\n') : textOf(row['message.content']);
    const calls = indexed(row, 'message.tool_calls.').map((call) => ({
      id: str(call['tool_call.id']) ?? '',
      type: 'function' as const,
      function: { name: str(call['tool_call.function.name']) ?? '', arguments: str(call['tool_call.function.arguments']) ?? '' },
    }));
    return message(row['message.role'], text, {
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
      ...(row['message.tool_call_id'] !== undefined ? { tool_call_id: str(row['message.tool_call_id']) } : {}),
    });
  });
}

export const openinference: GenAiMapper = {
  id: 'openinference',
  description: "OpenInference (Arize Phoenix): openinference.span.kind LLM with llm.model_name, llm.provider, llm.input_messages/llm.output_messages, llm.token_count.* and llm.cost.*.",
  map(span) {
    const a = span.attributes;
    const parameters = parseJson(a['llm.invocation_parameters']);
    const usage = { ...attributesUnder(a, 'llm.token_count.'), ...attributesUnder(a, 'llm.cost.') };
    let messagesIn = messagesOf(a, 'llm.input_messages.');
    let messagesOut = messagesOf(a, 'llm.output_messages.');
    // Without message attributes, the raw input and output values are the best record there is.
    if (messagesIn.length === 0 && a['input.value'] !== undefined) messagesIn = [message('user', textOf(a['input.value']))];
    if (messagesOut.length === 0 && a['output.value'] !== undefined) messagesOut = [message('assistant', textOf(a['output.value']))];
    return {
      provider: str(a['llm.provider']) ?? str(a['llm.system']) ?? 'unknown',
      model: str(a['llm.model_name']) ?? 'unknown',
      messagesIn,
      messagesOut,
      inputTokens: int(a['llm.token_count.prompt']),
      outputTokens: int(a['llm.token_count.completion']),
      cachedInputTokens: int(a['llm.token_count.prompt_details.cache_read']),
      cacheWriteTokens: int(a['llm.token_count.prompt_details.cache_write']),
      reasoningTokens: int(a['llm.token_count.completion_details.reasoning']),
      usage,
      parameters: typeof parameters === 'object' && parameters !== null && !Array.isArray(parameters) ? (parameters as Record<string, unknown>) : {},
      price: num(a['llm.cost.total']),
    };
  },
};
