import { callSignal, type CallSignal, type OutboundResponse } from '../outbound/http-client';
import { EgressBlockedError } from '../outbound/policy';
import { isObject } from './kwargs-shape';
import { ProviderError, type ProviderHttp } from './provider';

export interface RetryPolicy {
  /** Attempts after the first. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** One attempt's time limit. */
  timeoutMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 4, baseDelayMs: 500, maxDelayMs: 20_000, timeoutMs: 120_000 };

/** "Test connection" wants an answer while the user waits: one attempt, ten seconds. */
export const PROBE: RetryPolicy = { retries: 0, baseDelayMs: 0, maxDelayMs: 0, timeoutMs: 10_000 };

export interface JsonCall {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

/**
 * Sends one JSON call (GET or POST) and returns the parsed answer. 429, 5xx, network errors and timeouts are retried with
 * exponential backoff and jitter, bounded by `maxDelayMs`; a `Retry-After` the provider sends wins
 * over the computed delay (still bounded). Other 4xx are fatal at once: retrying a bad key or a
 * bad model name only burns the user's time.
 */
export async function callJson(http: ProviderHttp, call: JsonCall, signal: AbortSignal, policy: RetryPolicy = DEFAULT_RETRY): Promise<unknown> {
  return withRetries(policy, signal, async () => {
    const limit = callSignal(signal, policy.timeoutMs);
    try {
      const response = await send(http, call, signal, limit);
      let text: string;
      try {
        text = await response.text();
      } catch (error) {
        throw readFailure(call.url, signal, limit, error);
      }
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new ProviderError(`${call.url} answered with text that is not JSON: ${text.slice(0, 200)}`, false, response.status);
      }
    } finally {
      limit.dispose();
    }
  });
}

/** A streamed answer may take minutes; only reaching the server is retried, never a half-read stream. */
export const STREAM: RetryPolicy = { ...DEFAULT_RETRY, retries: 2, timeoutMs: 600_000 };

/**
 * Opens a Server-Sent Events answer (retrying as `callJson` does until the provider answers 2xx)
 * and yields its events; `data: [DONE]` ends it.
 */
export async function* callStream(http: ProviderHttp, call: JsonCall, signal: AbortSignal, policy: RetryPolicy = STREAM): AsyncGenerator<{ event: string; data: unknown }> {
  // One time limit for the whole stream; each attempt to reach the server gets its own.
  let limit = callSignal(signal, policy.timeoutMs);
  const response = await withRetries(policy, signal, async () => {
    limit.dispose();
    limit = callSignal(signal, policy.timeoutMs);
    return send(http, call, signal, limit);
  }).catch((error: unknown) => {
    limit.dispose();
    throw error;
  });
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
        let event = 'message';
        const data: string[] = [];
        for (const line of frame.split(/\r?\n/)) {
          if (line.startsWith('event:')) event = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        }
        if (data.length === 0) continue;
        const text = data.join('\n');
        if (text === '[DONE]') return;
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          throw new ProviderError(`${call.url} streamed an event that is not JSON: ${text.slice(0, 200)}`, false);
        }
        yield { event, data: parsed };
      }
    }
  } finally {
    // A caller that stops early (cancel, [DONE]) must not leave the connection streaming.
    await reader.cancel().catch(() => {});
    limit.dispose();
  }
}

async function withRetries<T>(policy: RetryPolicy, signal: AbortSignal, attempt: () => Promise<T>): Promise<T> {
  for (let tries = 0; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      const failure = error instanceof ProviderError ? error : new ProviderError(String(error), true);
      if (!failure.retryable || tries >= policy.retries) throw failure;
      const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** tries) * (0.5 + Math.random() / 2);
      await sleep(Math.min(policy.maxDelayMs, failure.retryAfterMs ?? backoff), signal);
    }
  }
}

/** One attempt: the provider's 2xx response, or a ProviderError that says whether to retry. */
async function send(http: ProviderHttp, { method, url, headers, body }: JsonCall, signal: AbortSignal, limit: CallSignal): Promise<OutboundResponse> {
  let response: OutboundResponse;
  try {
    response = await http(url, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: limit.signal,
    });
  } catch (error) {
    // The user's egress setting said no: retrying cannot change that.
    if (error instanceof EgressBlockedError && !signal.aborted) throw new ProviderError(error.message, false, undefined, undefined, { cause: error });
    throw readFailure(url, signal, limit, error, 'Could not reach');
  }
  if (response.ok) return response;
  const text = await response.text();
  const retryable = response.status === 429 || response.status >= 500;
  throw new ProviderError(
    `${url} answered ${response.status}: ${providerMessage(text)}`,
    retryable,
    response.status,
    retryAfter(response.headers.get('retry-after')),
  );
}

/** Why a call broke off: the caller's abort (its reason), the time limit, or the network. */
function readFailure(url: string, signal: AbortSignal, limit: CallSignal, error: unknown, what = 'The answer broke off from'): unknown {
  if (signal.aborted) return signal.reason;
  if (limit.timedOut) return new ProviderError(`No answer from ${url} within ${limit.timeoutMs} ms`, true);
  return new ProviderError(`${what} ${url}: ${(error as Error).cause ?? (error as Error).message}`, true);
}

function providerMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: string } | string; message?: string };
    const message = typeof parsed.error === 'string' ? parsed.error : parsed.error?.message ?? parsed.message;
    if (message) return message;
  } catch {
    // not JSON: show the text
  }
  return text.slice(0, 300);
}

function retryAfter(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** `{data: [{id}]}`: the model list shape OpenAI, Anthropic and the compatible servers share. */
export function modelIds(answer: unknown): string[] {
  const data = isObject(answer) && Array.isArray(answer.data) ? answer.data : [];
  return data.filter(isObject).map((m) => String(m.id ?? '')).filter(Boolean);
}
