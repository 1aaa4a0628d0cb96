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
  for (let attempt = 0; ; attempt++) {
    try {
      return await attemptOnce(http, call, signal, policy.timeoutMs);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      const failure = error instanceof ProviderError ? error : new ProviderError(String(error), true);
      if (!failure.retryable || attempt >= policy.retries) throw failure;
      const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt) * (0.5 + Math.random() / 2);
      await sleep(Math.min(policy.maxDelayMs, failure.retryAfterMs ?? backoff), signal);
    }
  }
}

async function attemptOnce(http: ProviderHttp, { method, url, headers, body }: JsonCall, signal: AbortSignal, timeoutMs: number) {
  const timeout = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await http(url, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.any([signal, timeout]),
    });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    // The user's egress setting said no: retrying cannot change that.
    if (error instanceof EgressBlockedError) throw new ProviderError(error.message, false);
    if (timeout.aborted) throw new ProviderError(`No answer from ${url} within ${timeoutMs} ms`, true);
    throw new ProviderError(`Could not reach ${url}: ${(error as Error).cause ?? (error as Error).message}`, true);
  }
  const text = await response.text();
  if (response.ok) {
    try {
      return JSON.parse(text);
    } catch {
      throw new ProviderError(`${url} answered with text that is not JSON: ${text.slice(0, 200)}`, false, response.status);
    }
  }
  const retryable = response.status === 429 || response.status >= 500;
  throw new ProviderError(
    `${url} answered ${response.status}: ${providerMessage(text)}`,
    retryable,
    response.status,
    retryAfter(response.headers.get('retry-after')),
  );
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
