/** A provider's connection as configured in `/api/public/v2/providers` or from the environment. */
export interface ProviderConnection {
  /** The name columns use in `engine.provider` (`openai`, `anthropic`, or a configured provider's name). */
  name: string;
  client: 'openai' | 'anthropic';
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
  inputTokens: number;
  outputTokens: number;
  /** The provider's own request and response, logged as the request's input/output. */
  request: Record<string, unknown>;
  response: unknown;
}

export interface EmbeddingAnswer {
  vectors: number[][];
  inputTokens: number;
}

export interface ProviderClient {
  chat(connection: ProviderConnection, call: ChatCall, signal: AbortSignal): Promise<ChatAnswer>;
  embed?(connection: ProviderConnection, model: string, input: string[], signal: AbortSignal): Promise<EmbeddingAnswer>;
}

/** A failure the provider reported; `retryable` ones (429, 5xx, timeouts) are retried with backoff. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}
