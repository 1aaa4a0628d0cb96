import { callJson, callStream, modelIds, PROBE } from './http-call';
import { isObject, type Json, type KwargsInput, textOf } from './kwargs-shape';
import { type ChatAnswer, defineProvider, ProviderError, trimSlash } from './provider';

/**
 * OpenAI and every OpenAI-compatible server (Ollama, LM Studio, vLLM, llama.cpp) through its base
 * URL: chat completions or the Responses API for fetched templates, chat completions and
 * embeddings for evaluation calls, `GET /models` for a connection test.
 */
export const openai = defineProvider({
  id: 'openai',
  displayName: 'OpenAI-compatible',
  defaultBaseUrl: 'https://api.openai.com/v1',
  env: { apiKey: 'OPENAI_API_KEY', baseUrl: 'OPENAI_BASE_URL' },
  apiTypes: { 'chat-completions': chatCompletionsKwargs, responses: responsesKwargs },
  sdkReadsApiType: true,

  async chat(http, connection, call, signal) {
    const request = { ...call.parameters, model: call.model, messages: call.messages, stream: false };
    const url = `${trimSlash(connection.baseUrl)}/chat/completions`;
    const response = (await callJson(http, { method: 'POST', url, headers: auth(connection.apiKey), body: request }, signal)) as {
      choices?: Array<{ message?: { content?: string | null } }>;
      usage?: Usage;
    };
    const text = response.choices?.[0]?.message?.content;
    if (typeof text !== 'string') throw new ProviderError('The provider answered without a message.', false);
    return { text, ...tokensOf(response.usage ?? {}) };
  },

  async streamChat(http, connection, call, signal, onText) {
    const request = { ...call.parameters, model: call.model, messages: call.messages, stream: true, stream_options: { include_usage: true } };
    const url = `${trimSlash(connection.baseUrl)}/chat/completions`;
    let text = '';
    let usage: Usage = {};
    for await (const { data } of callStream(http, { method: 'POST', url, headers: auth(connection.apiKey), body: request }, signal)) {
      const chunk = data as { choices?: Array<{ delta?: { content?: string | null } }>; usage?: Usage | null };
      const piece = chunk.choices?.[0]?.delta?.content;
      if (typeof piece === 'string' && piece) {
        text += piece;
        onText(piece);
      }
      // Servers without stream_options send no usage; the counts then stay 0, as in `chat`.
      if (chunk.usage) usage = chunk.usage;
    }
    return { text, ...tokensOf(usage) };
  },

  async embed(http, connection, model, input, signal) {
    const url = `${trimSlash(connection.baseUrl)}/embeddings`;
    const response = (await callJson(http, { method: 'POST', url, headers: auth(connection.apiKey), body: { model, input } }, signal)) as {
      data?: Array<{ index: number; embedding: number[] }>;
      usage?: { prompt_tokens?: number };
    };
    const data = [...(response.data ?? [])].sort((a, b) => a.index - b.index);
    if (data.length !== input.length) throw new ProviderError('The provider answered with the wrong number of embeddings.', false);
    return { vectors: data.map((d) => d.embedding), inputTokens: response.usage?.prompt_tokens ?? 0 };
  },

  async listModels(http, connection, signal) {
    const url = `${trimSlash(connection.baseUrl)}/models`;
    return modelIds(await callJson(http, { method: 'GET', url, headers: auth(connection.apiKey) }, signal, PROBE));
  },
});

/** Chat completions' `usage`: cached and reasoning tokens are parts of the prompt and completion counts. */
interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
}

const tokensOf = (usage: Usage): Omit<ChatAnswer, 'text'> => ({
  inputTokens: usage.prompt_tokens ?? 0,
  outputTokens: usage.completion_tokens ?? 0,
  cachedInputTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
  // Chat completions report no cache writes: OpenAI's cache is written at the input rate.
  cacheWriteTokens: 0,
  cacheWrite1hTokens: 0,
  reasoningTokens: usage.completion_tokens_details?.reasoning_tokens ?? 0,
});

const auth = (apiKey: string | null): Record<string, string> => (apiKey ? { authorization: `Bearer ${apiKey}` } : {});

/** One chat message's content as OpenAI takes it: a lone text block as a plain string (what every
 * OpenAI-compatible server accepts), several blocks or non-text parts as a list of parts. */
function content(blocks: unknown): unknown {
  if (typeof blocks === 'string') return blocks;
  if (!Array.isArray(blocks)) return '';
  if (blocks.length === 1 && isObject(blocks[0]) && blocks[0].type === 'text') return String(blocks[0].text ?? '');
  return blocks;
}

function chatMessage(m: Json): Json {
  const out: Json = { role: m.role, content: content(m.content) };
  if (typeof m.name === 'string' && m.name) out.name = m.name;
  if (m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
    out.tool_calls = m.tool_calls;
    if (out.content === '' || (Array.isArray(out.content) && out.content.length === 0)) out.content = null;
  }
  if (m.role === 'tool' && typeof m.tool_call_id === 'string') out.tool_call_id = m.tool_call_id;
  return out;
}

const tooling = (t: Json): Json => {
  const out: Json = {};
  for (const key of ['tools', 'tool_choice', 'functions', 'function_call']) {
    const value = t[key];
    if (value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0)) out[key] = value;
  }
  return out;
};

function chatCompletionsKwargs({ template, model, parameters }: KwargsInput): Json {
  if (template.type === 'completion') return { ...parameters, model, prompt: textOf(template.content) };
  const messages = (Array.isArray(template.messages) ? template.messages : []).filter(isObject).map(chatMessage);
  return { ...parameters, ...tooling(template), model, messages };
}

/** The Responses API: `input` items with typed text parts; tools are flat (no `function` wrapper). */
function responsesKwargs({ template, model, parameters }: KwargsInput): Json {
  const { max_tokens, ...rest } = parameters;
  const kwargs: Json = { ...rest, model };
  if (max_tokens !== undefined && rest.max_output_tokens === undefined) kwargs.max_output_tokens = max_tokens;
  if (template.type === 'completion') return { ...kwargs, input: textOf(template.content) };
  const input = (Array.isArray(template.messages) ? template.messages : []).filter(isObject).map((m) => {
    const partType = m.role === 'assistant' ? 'output_text' : 'input_text';
    const parts = Array.isArray(m.content) ? m.content : [{ type: 'text', text: String(m.content ?? '') }];
    return {
      role: m.role === 'tool' || m.role === 'function' ? 'user' : m.role,
      content: parts.map((b) => (isObject(b) && b.type === 'text' ? { type: partType, text: String(b.text ?? '') } : b)),
    };
  });
  if (Array.isArray(template.tools) && template.tools.length > 0) {
    kwargs.tools = template.tools.map((tool) =>
      isObject(tool) && tool.type === 'function' && isObject(tool.function) ? { type: 'function', ...tool.function } : tool,
    );
  }
  if (template.tool_choice !== undefined && template.tool_choice !== null) kwargs.tool_choice = template.tool_choice;
  return { ...kwargs, input };
}
