import { anthropicMessages } from './anthropic';
import { openaiChatCompletions, openaiResponses } from './openai';
import type { Json, KwargsInput } from './shape';

export type { KwargsInput } from './shape';

/** The client families a provider can speak; every OpenAI-compatible server is `openai`. */
export type ProviderClient = 'openai' | 'anthropic';

/** `metadata.model.api_type` values the OpenAI client understands. */
export const DEFAULT_OPENAI_API_TYPE = 'chat-completions';

/** One builder per (client, api_type); adding an API is one function and one line here. */
const builders: Record<string, (input: KwargsInput) => Json> = {
  'openai:chat-completions': openaiChatCompletions,
  'openai:responses': openaiResponses,
  'anthropic:messages': anthropicMessages,
};

/** Ready-to-send kwargs for the client's SDK call (`chat.completions.create`, `messages.create`...). */
export function buildLlmKwargs(client: ProviderClient, apiType: string | undefined, input: KwargsInput): Json {
  const key = client === 'anthropic' ? 'anthropic:messages' : `openai:${apiType ?? DEFAULT_OPENAI_API_TYPE}`;
  return (builders[key] ?? openaiChatCompletions)(input);
}
