import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createOutboundGate, type OutboundFetch } from '../src-server/outbound/gate';
import { OPEN_EGRESS, type EgressSetting } from '../src-server/outbound/policy';
import { buildLlmKwargs, defaultApiType, providerModules, type ProviderId } from '../src-server/providers/index';
import { ProviderError, type ProviderConnection, type ProviderHttp, type ProviderModule } from '../src-server/providers/provider';
import { MOCK_MODELS, startMockLlm, type MockLlm } from './support/mock-llm';

/**
 * One suite every provider in the registry runs against the local LLM mock: chat with tokens,
 * its key sent only in its own header (and nothing without a key), retry on 429 but not on 400,
 * the egress gate, model listing, embeddings (or a skip that says why), and kwargs per api_type.
 * A provider missing from `wiring` is a compile error, as a column type missing from its suite is.
 */
interface Wiring {
  /** The base URL a user would give for the mock. */
  baseUrl(mock: MockLlm): string;
  /** Where the provider puts its key. */
  keyHeader(headers: IncomingHttpHeaders): string | undefined;
}

const wiring: Record<ProviderId, Wiring> = {
  openai: { baseUrl: (m) => m.baseUrl, keyHeader: (h) => h.authorization?.replace(/^Bearer /, '') },
  anthropic: { baseUrl: (m) => m.rootUrl, keyHeader: (h) => h['x-api-key'] as string | undefined },
};

const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'api-key', 'x-goog-api-key'];

let mock: MockLlm;
let egress: EgressSetting = OPEN_EGRESS;
const hosts: Array<{ host: string; blocked: boolean }> = [];
let gate: OutboundFetch;
const http: ProviderHttp = (url, init) => gate({ workspaceId: 1, reportId: 1 }, url, init);
const signal = () => new AbortController().signal;

beforeAll(async () => {
  mock = await startMockLlm();
  gate = createOutboundGate({ egressOf: () => egress, recordHost: async (_report, host, blocked) => void hosts.push({ host, blocked }) });
});
afterAll(() => mock.close());
beforeEach(() => {
  mock.resetCounters();
  egress = OPEN_EGRESS;
  hosts.length = 0;
});

describe.each(Object.keys(providerModules) as ProviderId[])('provider %s', (id) => {
  const module: ProviderModule = providerModules[id];
  const connection = (apiKey: string | null): ProviderConnection => ({ name: id, client: id, baseUrl: wiring[id].baseUrl(mock), apiKey });
  const call = { model: 'mock-chat', messages: [{ role: 'system' as const, content: 'Be terse.' }, { role: 'user' as const, content: 'hello there' }], parameters: { temperature: 0 } };

  test('declares itself completely', () => {
    expect(module.id).toBe(id);
    expect(module.displayName).not.toBe('');
    expect(new URL(module.defaultBaseUrl).protocol).toBe('https:');
    expect(module.env.apiKey).toMatch(/^[A-Z_]+_API_KEY$/);
    expect(module.env.baseUrl).toMatch(/^[A-Z_]+_BASE_URL$/);
    expect(Object.keys(module.apiTypes).length).toBeGreaterThan(0);
  });

  test('chat answers text and tokens, sending its key in its own header only', async () => {
    const answer = await module.chat(http, connection('sk-own-0123456789'), call, signal());
    expect(answer).toEqual({ text: 'echo: hello there', inputTokens: 2, outputTokens: 3, cachedInputTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, reasoningTokens: 0 });
    expect(mock.calls).toHaveLength(1);
    expect(wiring[id].keyHeader(mock.calls[0].headers)).toBe('sk-own-0123456789');
    expect(JSON.stringify(mock.calls[0].body)).not.toContain('sk-own');
    expect(hosts).toEqual([{ host: new URL(mock.baseUrl).host, blocked: false }]);
  });

  test('streams the same answer in pieces, with tokens', async () => {
    mock.setReply(() => 'a longer answer that arrives in several pieces');
    try {
      const pieces: string[] = [];
      const answer = await module.streamChat(http, connection('sk-own-0123456789'), call, signal(), (p) => pieces.push(p));
      expect(pieces.length).toBeGreaterThan(1);
      expect(pieces.join('')).toBe('a longer answer that arrives in several pieces');
      expect(answer).toEqual({ text: 'a longer answer that arrives in several pieces', inputTokens: 2, outputTokens: 8, cachedInputTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, reasoningTokens: 0 });
      expect(mock.calls[0].body.stream).toBe(true);
      expect(wiring[id].keyHeader(mock.calls[0].headers)).toBe('sk-own-0123456789');
    } finally {
      mock.setReply((c) => `echo: ${(c.body.messages as Array<{ content: string }>).at(-1)?.content}`);
    }
  });

  test('a failed stream is retried before it starts, and a cancel stops it', async () => {
    mock.failNext(1, 503);
    expect((await module.streamChat(http, connection(null), call, signal(), () => {})).text).toBe('echo: hello there');
    expect(mock.calls).toHaveLength(2);
    const stop = new AbortController();
    stop.abort(new Error('canceled by the user'));
    await expect(module.streamChat(http, connection(null), call, stop.signal, () => {})).rejects.toThrow('canceled by the user');
  });

  test('without a key, sends no credential header at all', async () => {
    await module.chat(http, connection(null), call, signal());
    for (const name of CREDENTIAL_HEADERS) expect(mock.calls[0].headers[name]).toBeUndefined();
  });

  test('a 429 is retried; a 400 is fatal at once', async () => {
    mock.failNext(1, 429);
    expect((await module.chat(http, connection(null), call, signal())).text).toBe('echo: hello there');
    expect(mock.calls).toHaveLength(2);
    mock.resetCounters();
    mock.failNext(1, 400);
    const failure = await module.chat(http, connection(null), call, signal()).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ProviderError);
    expect(failure).toMatchObject({ retryable: false, status: 400, message: expect.stringMatching(/answered 400: injected failure 400/) });
    expect(mock.calls).toHaveLength(1);
  });

  test('an offline setting that does not list the host stops the call before it leaves', async () => {
    egress = { offline: true, allowed_hosts: [] };
    const remote = { ...connection('sk-x'), baseUrl: module.defaultBaseUrl };
    const failure = await module.chat(http, remote, call, signal()).catch((e: unknown) => e);
    expect(failure).toMatchObject({ retryable: false, message: expect.stringMatching(/Blocked by the offline setting: .* neither loopback nor in the allowed hosts/) });
    expect(hosts).toEqual([{ host: new URL(module.defaultBaseUrl).host, blocked: true }]);
    // Loopback stays reachable.
    expect((await module.chat(http, connection(null), call, signal())).text).toBe('echo: hello there');
  });

  test('lists its models', async () => {
    expect(await module.listModels(http, connection('k'), signal())).toEqual(MOCK_MODELS);
    expect(mock.calls[0].path).toMatch(/\/v1\/models$/);
  });

  test('embeds, or says it cannot', async () => {
    if (!module.embed) {
      // Skipped with a reason: the provider has no embeddings API (the gateway tells the user so).
      return;
    }
    const answer = await module.embed(http, connection(null), 'mock-embed', ['a b', 'c'], signal());
    expect(answer.vectors).toHaveLength(2);
    expect(answer.inputTokens).toBe(3);
  });

  test.each(Object.keys(module.apiTypes))('builds kwargs for api_type %s', (apiType) => {
    const template = { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] };
    const kwargs = buildLlmKwargs(id, apiType, { template, model: 'm', parameters: { temperature: 0.5 } });
    expect(kwargs).toMatchObject({ model: 'm', temperature: 0.5 });
    expect(JSON.stringify(kwargs)).toContain('Hi');
    // An unknown api_type falls back to the default one.
    expect(buildLlmKwargs(id, 'no-such-api', { template, model: 'm', parameters: {} })).toEqual(
      buildLlmKwargs(id, defaultApiType(module), { template, model: 'm', parameters: {} }),
    );
  });
});
