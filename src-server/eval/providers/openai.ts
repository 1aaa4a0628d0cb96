import { postJson } from './http-call';
import type { ProviderClient } from './provider';
import { ProviderError } from './provider';

/** OpenAI chat completions and embeddings; any OpenAI-compatible server (Ollama, vLLM…) via its base URL. */
export const openai: ProviderClient = {
  async chat(connection, call, signal) {
    const request = { ...call.parameters, model: call.model, messages: call.messages, stream: false };
    const response = (await postJson(`${trimSlash(connection.baseUrl)}/chat/completions`, auth(connection.apiKey), request, signal)) as {
      choices?: Array<{ message?: { content?: string | null } }>;
      usage?: { prompt_tokens?: number; completion_tokens?: number };
    };
    const text = response.choices?.[0]?.message?.content;
    if (typeof text !== 'string') throw new ProviderError('The provider answered without a message.', false);
    return {
      text,
      inputTokens: response.usage?.prompt_tokens ?? 0,
      outputTokens: response.usage?.completion_tokens ?? 0,
      request,
      response,
    };
  },

  async embed(connection, model, input, signal) {
    const response = (await postJson(`${trimSlash(connection.baseUrl)}/embeddings`, auth(connection.apiKey), { model, input }, signal)) as {
      data?: Array<{ index: number; embedding: number[] }>;
      usage?: { prompt_tokens?: number };
    };
    const data = [...(response.data ?? [])].sort((a, b) => a.index - b.index);
    if (data.length !== input.length) throw new ProviderError('The provider answered with the wrong number of embeddings.', false);
    return { vectors: data.map((d) => d.embedding), inputTokens: response.usage?.prompt_tokens ?? 0 };
  },
};

const auth = (apiKey: string | null): Record<string, string> => (apiKey ? { authorization: `Bearer ${apiKey}` } : {});

export const trimSlash = (url: string) => url.replace(/\/+$/, '');
