import { callJson, callStream, modelIds, PROBE } from './http-call';
import { isObject, type Json, type KwargsInput, textOf } from './kwargs-shape';
import { type ChatAnswer, type ChatCall, defineProvider, type ProviderConnection, ProviderError, trimSlash } from './provider';

// Anthropic rejects a messages call without max_tokens; PromptLayer fills the same default.
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 1024;

/** Anthropic's Messages API. System messages move to `system`; `max_tokens` is required there. */
export const anthropic = defineProvider({
  id: 'anthropic',
  displayName: 'Anthropic',
  defaultBaseUrl: 'https://api.anthropic.com',
  env: { apiKey: 'ANTHROPIC_API_KEY', baseUrl: 'ANTHROPIC_BASE_URL' },
  apiTypes: { messages: messagesKwargs },
  // The SDK has one Anthropic call; a version needs no api_type to pick it.
  sdkReadsApiType: false,

  async chat(http, connection, call, signal) {
    const url = `${root(connection)}/v1/messages`;
    const response = (await callJson(http, { method: 'POST', url, headers: headers(connection), body: messagesRequest(call, false) }, signal)) as {
      content?: Array<{ type: string; text?: string }>;
      usage?: Usage;
    };
    if (!Array.isArray(response.content)) throw new ProviderError('The provider answered without content.', false);
    return { text: response.content.filter((b) => b.type === 'text').map((b) => b.text ?? '').join(''), ...tokensOf(response.usage ?? {}) };
  },

  async streamChat(http, connection, call, signal, onText) {
    const url = `${root(connection)}/v1/messages`;
    let text = '';
    // message_start carries the prompt's counts; message_delta the output's, and (since 2025) the
    // prompt's again, cumulative: the later value of each field wins.
    let usage: Usage = {};
    for await (const { data } of callStream(http, { method: 'POST', url, headers: headers(connection), body: messagesRequest(call, true) }, signal)) {
      const event = data as StreamEvent;
      if (event.type === 'message_start') usage = { ...usage, ...event.message?.usage };
      else if (event.type === 'message_delta') usage = { ...usage, ...event.usage };
      else if (event.type === 'content_block_delta' && event.delta?.type === 'text_delta' && event.delta.text) {
        text += event.delta.text;
        onText(event.delta.text);
      } else if (event.type === 'error') throw new ProviderError(`Anthropic: ${event.error?.message ?? 'stream error'}`, false);
    }
    return { text, ...tokensOf(usage) };
  },

  async listModels(http, connection, signal) {
    return modelIds(await callJson(http, { method: 'GET', url: `${root(connection)}/v1/models`, headers: headers(connection) }, signal, PROBE));
  },
});

/** Anthropic's `usage`: `input_tokens` counts only the prompt after the last cache breakpoint; the
 * cache's reads and writes are counted apart from it. */
interface Usage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  /** The writes by cache lifetime (5-minute and 1-hour writes are billed at different rates). */
  cache_creation?: { ephemeral_5m_input_tokens?: number | null; ephemeral_1h_input_tokens?: number | null } | null;
}

function tokensOf(usage: Usage): Omit<ChatAnswer, 'text'> {
  return {
    ...anthropicPromptTokens(usage, usage.input_tokens ?? 0),
    outputTokens: usage.output_tokens ?? 0,
    // Extended thinking is counted in output_tokens with no part of its own (and billed as output).
    reasoningTokens: 0,
  };
}

/**
 * Our counts of a prompt from Anthropic's cache fields in `usage`: the whole prompt as input (what
 * OpenAI and the GenAI conventions count), with the cache's reads and writes as parts of it, each
 * priced at its own rate (services/pricing.ts). `uncachedTokens` is the provider's count of the
 * rest of the prompt. The one reader of these fields, for our calls and for the answers SDKs log
 * (tracked-call.ts): a new cache field is added here once.
 */
export function anthropicPromptTokens(
  usage: unknown,
  uncachedTokens: number,
): { inputTokens: number; cachedInputTokens: number; cacheWriteTokens: number; cacheWrite1hTokens: number } {
  const u = isObject(usage) ? usage : {};
  // SDK-logged answers are the caller's JSON: a field that is not a number counts as 0.
  const count = (value: unknown) => Number(value ?? 0) || 0;
  const read = count(u.cache_read_input_tokens);
  const written = count(u.cache_creation_input_tokens);
  const byLifetime = isObject(u.cache_creation) ? u.cache_creation : {};
  return {
    inputTokens: uncachedTokens + read + written,
    cachedInputTokens: read,
    cacheWriteTokens: written,
    cacheWrite1hTokens: Math.min(count(byLifetime.ephemeral_1h_input_tokens), written),
  };
}

interface StreamEvent {
  type: string;
  message?: { usage?: Usage };
  usage?: Usage;
  delta?: { type?: string; text?: string };
  error?: { message?: string };
}

function messagesRequest(call: ChatCall, stream: boolean) {
  const system = call.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n');
  return {
    max_tokens: ANTHROPIC_DEFAULT_MAX_TOKENS,
    ...call.parameters,
    model: call.model,
    ...(system ? { system } : {}),
    messages: call.messages.filter((m) => m.role !== 'system'),
    stream,
  };
}

// Users paste either the root or the `/v1` URL; the API paths below add `/v1` themselves.
const root = (connection: ProviderConnection) => trimSlash(connection.baseUrl).replace(/\/v1$/, '');

const headers = (connection: ProviderConnection): Record<string, string> => ({
  'anthropic-version': '2023-06-01',
  ...(connection.apiKey ? { 'x-api-key': connection.apiKey } : {}),
});
function blocks(content: unknown): Json[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.filter(isObject).map((b) =>
    b.type === 'image_url' && isObject(b.image_url) ? { type: 'image', source: { type: 'url', url: b.image_url.url } } : b,
  );
}

function parseArguments(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? {};
  try {
    return JSON.parse(raw);
  } catch {
    return {};
  }
}

function message(m: Json): Json {
  if (m.role === 'tool' || m.role === 'function') {
    return { role: 'user', content: [{ type: 'tool_result', tool_use_id: m.tool_call_id ?? m.name, content: textOf(m.content) }] };
  }
  const content = blocks(m.content);
  if (m.role === 'assistant' && Array.isArray(m.tool_calls)) {
    for (const call of m.tool_calls.filter(isObject)) {
      const fn = isObject(call.function) ? call.function : {};
      content.push({ type: 'tool_use', id: call.id, name: fn.name, input: parseArguments(fn.arguments) });
    }
  }
  return { role: m.role === 'assistant' ? 'assistant' : 'user', content };
}

function toolChoice(choice: unknown): unknown {
  if (choice === 'auto' || choice === 'none') return { type: choice };
  if (choice === 'required') return { type: 'any' };
  if (isObject(choice) && isObject(choice.function)) return { type: 'tool', name: choice.function.name };
  return choice;
}

/** Anthropic Messages (chat) or the legacy Text Completions API (completion templates). */
function messagesKwargs({ template, model, parameters }: KwargsInput): Json {
  const maxTokens = parameters.max_tokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS;
  if (template.type === 'completion') {
    const { max_tokens: _ignored, ...rest } = parameters;
    return { ...rest, model, prompt: `\n\nHuman: ${textOf(template.content)}\n\nAssistant:`, max_tokens_to_sample: maxTokens };
  }
  const all = (Array.isArray(template.messages) ? template.messages : []).filter(isObject);
  const system = all.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => textOf(m.content)).join('\n\n');
  const kwargs: Json = {
    ...parameters,
    model,
    max_tokens: maxTokens,
    messages: all.filter((m) => m.role !== 'system' && m.role !== 'developer').map(message),
  };
  if (system) kwargs.system = system;
  if (Array.isArray(template.tools) && template.tools.length > 0) {
    kwargs.tools = template.tools.filter(isObject).map((tool) => {
      const fn = isObject(tool.function) ? tool.function : tool;
      return { name: fn.name, description: fn.description, input_schema: fn.parameters ?? fn.input_schema ?? { type: 'object' } };
    });
  }
  if (template.tool_choice !== undefined && template.tool_choice !== null) kwargs.tool_choice = toolChoice(template.tool_choice);
  return kwargs;
}
