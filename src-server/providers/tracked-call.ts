import { anthropicPromptTokens } from './anthropic';
import { defaultApiType, isProviderId, providerModules } from './index';
import { isObject, type Json } from './kwargs-shape';

/**
 * Turns what an SDK sends to /track-request (the provider call's kwargs and its response) into
 * the log's shapes: prompt templates for input and output, model, tokens, parameters.
 * Covers OpenAI chat completions, OpenAI completions, the OpenAI Responses API and Anthropic
 * messages; anything else is kept verbatim as text so nothing is dropped.
 */
const text = (value: string) => ({ type: 'text', text: value });

function blocks(content: unknown): unknown[] {
  if (content == null) return [];
  if (typeof content === 'string') return [text(content)];
  if (Array.isArray(content)) {
    return content.map((part) => {
      if (typeof part === 'string') return text(part);
      // Responses API parts name text `input_text` / `output_text`.
      if (isObject(part) && (part.type === 'input_text' || part.type === 'output_text') && typeof part.text === 'string') {
        return text(part.text);
      }
      return part;
    });
  }
  return [text(JSON.stringify(content))];
}

function chatMessage(m: unknown) {
  if (!isObject(m)) return { role: 'user', content: blocks(m) };
  const { role, content, ...rest } = m;
  const known = ['system', 'user', 'assistant', 'tool', 'function', 'developer', 'placeholder'];
  return { ...rest, role: known.includes(String(role)) ? role : 'user', content: blocks(content) };
}

/** Keys of the provider call that are the prompt itself, not parameters. */
const PROMPT_KEYS = new Set(['messages', 'prompt', 'input', 'system', 'model', 'tools', 'functions', 'tool_choice', 'instructions', 'stream']);

export interface TrackedCall {
  model: string;
  input: Json;
  output: Json;
  parameters: Json;
  inputTokens: number;
  outputTokens: number;
  /** Parts of input and output tokens priced at their own rate (cache reads and writes, reasoning); 0 when not reported. */
  cachedInputTokens: number;
  cacheWriteTokens: number;
  /** The part of the writes that went to Anthropic's 1-hour cache (`usage.cache_creation.ephemeral_1h_input_tokens`). */
  cacheWrite1hTokens: number;
  reasoningTokens: number;
  /** The cost the provider's answer reported (OpenRouter's `usage.cost`), else null. */
  reportedCost: number | null;
  apiType: string | null;
}

export function readTrackedCall(provider: string, kwargs: Json, response: unknown): TrackedCall {
  const parameters = Object.fromEntries(Object.entries(kwargs).filter(([k]) => !PROMPT_KEYS.has(k)));
  const r = isObject(response) ? response : {};
  const usage = isObject(r.usage) ? r.usage : {};
  const model = String(r.model ?? kwargs.model ?? 'unknown');
  const count = (value: unknown) => Number(value ?? 0) || 0;
  const details = (key: string) => (isObject(usage[key]) ? usage[key] : {});
  // Anthropic counts cache reads and writes apart from input_tokens; OpenAI's prompt_tokens include
  // cached tokens. Input tokens here are the whole prompt, cached ones a part of it, in both.
  const { inputTokens, cacheWriteTokens, cacheWrite1hTokens, ...cache } = anthropicPromptTokens(usage, count(usage.prompt_tokens ?? usage.input_tokens));
  const cachedInputTokens = cache.cachedInputTokens || count(details('prompt_tokens_details').cached_tokens ?? details('input_tokens_details').cached_tokens);
  const outputTokens = count(usage.completion_tokens ?? usage.output_tokens);
  const reasoningTokens = count(details('completion_tokens_details').reasoning_tokens ?? details('output_tokens_details').reasoning_tokens);
  const reportedCost = typeof usage.cost === 'number' && Number.isFinite(usage.cost) && usage.cost >= 0 ? usage.cost : null;
  const priced = { cachedInputTokens, cacheWriteTokens, cacheWrite1hTokens, reasoningTokens, reportedCost };
  const tools = { ...(kwargs.tools ? { tools: kwargs.tools } : {}), ...(kwargs.tool_choice ? { tool_choice: kwargs.tool_choice } : {}) };

  if (typeof kwargs.prompt === 'string' || Array.isArray(kwargs.prompt)) {
    const choice = Array.isArray(r.choices) && isObject(r.choices[0]) ? r.choices[0] : {};
    return {
      model, parameters, inputTokens, outputTokens, ...priced, apiType: 'completions',
      input: { type: 'completion', content: blocks(kwargs.prompt), template_format: 'f-string', input_variables: [] },
      output: { type: 'completion', content: blocks(choice.text ?? ''), template_format: 'f-string', input_variables: [] },
    };
  }

  const messages: unknown[] = [];
  if (kwargs.system !== undefined) messages.push({ role: 'system', content: blocks(kwargs.system) });
  if (typeof kwargs.instructions === 'string') messages.push({ role: 'system', content: blocks(kwargs.instructions) });
  const given = Array.isArray(kwargs.messages) ? kwargs.messages : Array.isArray(kwargs.input) ? kwargs.input : typeof kwargs.input === 'string' ? [{ role: 'user', content: kwargs.input }] : [];
  messages.push(...given.map(chatMessage));

  let reply: Json;
  let apiType: string | null = 'chat-completions';
  if (Array.isArray(r.choices)) {
    const message = isObject(r.choices[0]) && isObject(r.choices[0].message) ? r.choices[0].message : {};
    reply = { ...chatMessage({ ...message, role: 'assistant' }) };
  } else if (Array.isArray(r.output)) {
    apiType = 'responses';
    const content = r.output.flatMap((item) => (isObject(item) && item.type === 'message' ? blocks(item.content) : []));
    const toolCalls = r.output
      .filter((item): item is Json => isObject(item) && item.type === 'function_call')
      .map((item) => ({ id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } }));
    reply = { role: 'assistant', content, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) };
  } else if (Array.isArray(r.content)) {
    apiType = 'messages';
    const content = r.content.filter((b) => !(isObject(b) && b.type === 'tool_use'));
    const toolCalls = r.content
      .filter((b): b is Json => isObject(b) && b.type === 'tool_use')
      .map((b) => ({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } }));
    reply = { role: 'assistant', content: blocks(content), ...(toolCalls.length ? { tool_calls: toolCalls } : {}) };
  } else {
    reply = { role: 'assistant', content: response == null ? [] : blocks(typeof response === 'string' ? response : JSON.stringify(response)) };
  }
  // A wrapper may hand over another provider's answer in OpenAI's shape; the API is still the provider's own.
  const module = isProviderId(provider) ? providerModules[provider] : undefined;
  if (module && apiType === 'chat-completions' && !(apiType in module.apiTypes)) apiType = defaultApiType(module);
  return {
    model, parameters, inputTokens, outputTokens, ...priced, apiType,
    input: { type: 'chat', messages, input_variables: [], ...tools },
    output: { type: 'chat', messages: [reply], input_variables: [] },
  };
}
