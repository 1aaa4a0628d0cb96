import type { OutboundInit, OutboundResponse } from '../outbound/http-client';
import type { Json, KwargsInput } from './kwargs-shape';

/**
 * Everything the server knows about one LLM provider family. One file per provider
 * (`openai.ts`, `anthropic.ts`) and one line in `index.ts`; the zod enum of `client`, the built-in
 * provider names and their environment keys are all derived from that registry.
 */
export interface ProviderModule {
  /** The `client` value of a stored provider, and the built-in provider's name in `engine.provider`. */
  id: string;
  displayName: string;
  /** Where the built-in provider lives when the environment names no other base URL. */
  defaultBaseUrl: string;
  /** The environment variables of the built-in provider. Its key is sent only to it (issue 10, item 6). */
  env: { apiKey: string; baseUrl: string };
  /** Kwargs builders by `metadata.model.api_type`; the first is the default. */
  apiTypes: Record<string, (input: KwargsInput) => Json>;
  /** True when the SDK picks the endpoint from `metadata.model.api_type`, so a fetched version must carry one. */
  sdkReadsApiType: boolean;
  chat(http: ProviderHttp, connection: ProviderConnection, call: ChatCall, signal: AbortSignal): Promise<ChatAnswer>;
  /** The same call streamed: `onText` receives each piece of the answer as it arrives. */
  streamChat(http: ProviderHttp, connection: ProviderConnection, call: ChatCall, signal: AbortSignal, onText: (text: string) => void): Promise<ChatAnswer>;
  /** Absent when the provider has no embeddings API (COSINE_SIMILARITY then says so). */
  embed?(http: ProviderHttp, connection: ProviderConnection, model: string, input: string[], signal: AbortSignal): Promise<EmbeddingAnswer>;
  /** The models the provider offers: what "Test connection" shows. */
  listModels(http: ProviderHttp, connection: ProviderConnection, signal: AbortSignal): Promise<string[]>;
}

/** Declares a provider with its literal id kept, so the registry's keys type the `client` enum. */
export const defineProvider = <const M extends ProviderModule>(module: M): M => module;

/**
 * The only way a provider reaches the network: the server's outbound gate, which applies the
 * egress setting and counts hosts per run (`services/outbound.ts`).
 */
export type ProviderHttp = (url: string, init: OutboundInit) => Promise<OutboundResponse>;

/** Where and as whom to call: a stored provider, or a built-in one with the environment's key. */
export interface ProviderConnection {
  /** The name columns use in `engine.provider` (a built-in id, or a stored provider's name). */
  name: string;
  client: string;
  baseUrl: string;
  apiKey: string | null;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatCall {
  model: string;
  messages: ChatMessage[];
  parameters: Record<string, unknown>;
}

export interface ChatAnswer {
  text: string;
  /** The whole prompt, cache reads and writes included (Anthropic's own `input_tokens` leaves them out). */
  inputTokens: number;
  outputTokens: number;
  /** Parts of the prompt read from and written to the provider's prompt cache, priced at their own rates. */
  cachedInputTokens?: number;
  cacheWriteTokens?: number;
  /** The part of the writes that went to Anthropic's 1-hour cache (billed 2× input, not 1.25×). */
  cacheWrite1hTokens?: number;
  /** The part of the output spent reasoning. */
  reasoningTokens?: number;
}

export interface EmbeddingAnswer {
  vectors: number[][];
  inputTokens: number;
}

/** A failure the provider reported; `retryable` ones (429, 5xx, timeouts) are retried with backoff. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    readonly retryAfterMs?: number,
    /** What made the call fail before it left (an EgressBlockedError), for callers that answer it differently. */
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export const trimSlash = (url: string) => url.replace(/\/+$/, '');
