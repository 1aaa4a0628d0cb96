import { postJson } from './http-call';
import { trimSlash } from './openai';
import type { ProviderClient } from './provider';
import { ProviderError } from './provider';

/** Anthropic's Messages API. System messages move to `system`; `max_tokens` is required there. */
export const anthropic: ProviderClient = {
  async chat(connection, call, signal) {
    const system = call.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n');
    const request = {
      max_tokens: 1024,
      ...call.parameters,
      model: call.model,
      ...(system ? { system } : {}),
      messages: call.messages.filter((m) => m.role !== 'system'),
      stream: false,
    };
    const base = trimSlash(connection.baseUrl).replace(/\/v1$/, '');
    const headers: Record<string, string> = { 'anthropic-version': '2023-06-01', ...(connection.apiKey ? { 'x-api-key': connection.apiKey } : {}) };
    const response = (await postJson(`${base}/v1/messages`, headers, request, signal)) as {
      content?: Array<{ type: string; text?: string }>;
      usage?: { input_tokens?: number; output_tokens?: number };
    };
    if (!Array.isArray(response.content)) throw new ProviderError('The provider answered without content.', false);
    return {
      text: response.content.filter((b) => b.type === 'text').map((b) => b.text ?? '').join(''),
      inputTokens: response.usage?.input_tokens ?? 0,
      outputTokens: response.usage?.output_tokens ?? 0,
      request,
      response,
    };
  },
};
