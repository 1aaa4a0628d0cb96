import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for LLM providers on 127.0.0.1: OpenAI-compatible chat completions (plain and
 * streamed), completions, responses and embeddings, and Anthropic messages (plain and streamed). Answers are
 * deterministic; latency and failures can be injected and calls held; concurrent calls are counted; every call's
 * headers are recorded (which key went where). `GET …/models` lists `MOCK_MODELS`, and
 * `…/redirect?to=URL` answers 307 to `URL` (egress tests). A call the caller cancels is marked `aborted`. It is the only fake the tests use:
 * everything of ours runs for real.
 */
export interface MockLlmCall {
  path: string;
  body: any;
  headers: IncomingMessage['headers'];
  /** True once the caller hung up before the answer was complete (a cancelled call). */
  aborted?: boolean;
}

export interface MockLlmOptions {
  /** Delay before each answer. */
  latencyMs?: number;
  /** The reply text for a chat/completion call; default `echo: <last user text>`. */
  reply?: (call: MockLlmCall) => string;
}

/** Fields laid over an answer's `usage` (e.g. Anthropic's `cache_read_input_tokens`): for Anthropic
 * messages, plain and streamed (in `message_start`, as Anthropic sends them), and chat completions. */
export type MockUsage = Record<string, unknown>;

export interface MockLlm {
  /** OpenAI-style base URL, ending in `/v1`. */
  baseUrl: string;
  /** Server root (Anthropic's SDK appends `/v1/messages` itself). */
  rootUrl: string;
  calls: MockLlmCall[];
  readonly inFlight: number;
  readonly maxInFlight: number;
  setLatency(ms: number): void;
  setReply(reply: MockLlmOptions['reply']): void;
  /** Usage fields every later answer carries (null: the computed word counts only). */
  setUsage(usage: MockUsage | null): void;
  /**
   * The next `count` calls answer `status` (429 by default, with Retry-After: 0); with `path`, only
   * calls whose path ends with it, so a background call (a model list, a connection test) cannot
   * take a failure meant for a chat call.
   */
  failNext(count: number, status?: number, only?: { path?: string }): void;
  /**
   * From now on the next `answered` calls are answered as usual and every later one waits until the
   * returned `release()` is called: a test sees a run mid-way for certain, however slow the machine.
   */
  hold(answered?: number): () => void;
  resetCounters(): void;
  close(): Promise<void>;
}

/** What `GET /v1/models` lists, in the `{data: [{id}]}` shape OpenAI and Anthropic share. */
export const MOCK_MODELS = ['mock-chat', 'mock-embed'];

export const lastUserText = (body: any): string => {
  if (typeof body?.prompt === 'string') return body.prompt;
  if (typeof body?.input === 'string') return body.input;
  const messages: any[] = body?.messages ?? body?.input ?? [];
  const user = [...messages].reverse().find((m) => m?.role === 'user');
  const content = user?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p: any) => p?.text ?? '').join('');
  return '';
};

const words = (text: string) => Math.max(1, text.split(/\s+/).filter(Boolean).length);

/** A deterministic unit vector for a text: equal texts are identical, different ones differ. */
export function mockEmbedding(text: string, dims = 16): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const word of text.toLowerCase().split(/\W+/).filter(Boolean)) {
    let h = 2166136261;
    for (const ch of word) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
    v[Math.abs(h) % dims] += 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

export async function startMockLlm(options: MockLlmOptions = {}): Promise<MockLlm> {
  let latency = options.latencyMs ?? 0;
  let reply = options.reply ?? ((call: MockLlmCall) => `echo: ${lastUserText(call.body)}`);
  let extraUsage: MockUsage = {};
  let failures: Array<{ status: number; path?: string }> = [];
  let held: { answered: number; released: Promise<void> } | null = null;
  let inFlight = 0;
  let maxInFlight = 0;
  const calls: MockLlmCall[] = [];

  const server = createServer((req, res) => {
    void handle(req, res);
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: any = {};
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : {};
    } catch {
      return json(res, 400, { error: { message: 'bad json' } });
    }
    const [path, query = ''] = (req.url ?? '').split('?');
    const call: MockLlmCall = { path, body, headers: req.headers };
    calls.push(call);
    res.once('close', () => {
      if (!res.writableEnded) call.aborted = true;
    });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      if (held && held.answered-- <= 0) await held.released;
      if (latency > 0) await new Promise((r) => setTimeout(r, latency));
      const failed = failures.findIndex((f) => f.path === undefined || path.endsWith(f.path));
      if (failed >= 0) {
        const [{ status }] = failures.splice(failed, 1);
        res.setHeader('retry-after', '0');
        return json(res, status, { error: { message: `injected failure ${status}`, type: 'mock_error' } });
      }
      if (path.endsWith('/redirect')) {
        res.writeHead(307, { location: new URLSearchParams(query).get('to') ?? '/' });
        return res.end();
      }
      if (req.method === 'GET' && path.endsWith('/models')) {
        return json(res, 200, { object: 'list', data: MOCK_MODELS.map((id) => ({ id, object: 'model', type: 'model' })) });
      }
      const model = body.model ?? 'mock-model';
      if (path.endsWith('/embeddings')) {
        const inputs: string[] = Array.isArray(body.input) ? body.input : [body.input ?? ''];
        return json(res, 200, {
          object: 'list',
          model,
          data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: mockEmbedding(String(text)) })),
          usage: { prompt_tokens: inputs.reduce((n, t) => n + words(String(t)), 0), total_tokens: 0 },
        });
      }
      const text = reply(call);
      const prompt = lastUserText(body);
      const usage = { prompt_tokens: words(prompt), completion_tokens: words(text) };
      if (path.endsWith('/messages')) {
        if (body.stream) return streamMessages(res, `msg_${calls.length}`, model, text, usage, extraUsage);
        return json(res, 200, {
          id: `msg_${calls.length}`, type: 'message', role: 'assistant', model,
          content: [{ type: 'text', text }], stop_reason: 'end_turn',
          usage: { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens, ...extraUsage },
        });
      }
      if (path.endsWith('/responses')) {
        return json(res, 200, {
          id: `resp_${calls.length}`, object: 'response', model, status: 'completed',
          output: [{ type: 'message', id: `m_${calls.length}`, role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] }],
          usage: { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens, total_tokens: 0 },
        });
      }
      if (path.endsWith('/completions') && !path.endsWith('/chat/completions')) {
        return json(res, 200, {
          id: `cmpl_${calls.length}`, object: 'text_completion', model, created: 0,
          choices: [{ index: 0, text, finish_reason: 'stop' }],
          usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
        });
      }
      if (path.endsWith('/chat/completions')) {
        const id = `chatcmpl_${calls.length}`;
        if (body.stream) return stream(res, id, model, text, body.stream_options?.include_usage ? usage : undefined);
        return json(res, 200, {
          id, object: 'chat.completion', model, created: 0,
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
          usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens, ...extraUsage },
        });
      }
      return json(res, 404, { error: { message: `mock has no ${path}` } });
    } finally {
      inFlight--;
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: `${root}/v1`,
    rootUrl: root,
    calls,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    setLatency: (ms) => void (latency = ms),
    setReply: (fn) => void (reply = fn ?? reply),
    setUsage: (usage) => void (extraUsage = usage ?? {}),
    failNext: (count, status = 429, only = {}) => void (failures = [...failures, ...Array.from({ length: count }, () => ({ status, path: only.path }))]),
    hold(answered = 0) {
      let release!: () => void;
      const gate = { answered, released: new Promise<void>((resolve) => (release = resolve)) };
      held = gate;
      return () => {
        if (held === gate) held = null;
        release();
      };
    },
    resetCounters() {
      calls.length = 0;
      maxInFlight = inFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function stream(res: ServerResponse, id: string, model: string, text: string, usage?: { prompt_tokens: number; completion_tokens: number }) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (chunk: unknown) => res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  const base = { id, object: 'chat.completion.chunk', model, created: 0 };
  send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
  for (const piece of text.match(/.{1,8}/gs) ?? []) {
    send({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
  }
  send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
  if (usage) send({ ...base, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } });
  res.end('data: [DONE]\n\n');
}

/** Anthropic's Messages stream: message_start (input tokens), text deltas, message_delta (output tokens). */
function streamMessages(res: ServerResponse, id: string, model: string, text: string, usage: { prompt_tokens: number; completion_tokens: number }, extra: MockUsage) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const start = { input_tokens: usage.prompt_tokens, output_tokens: 1, ...extra };
  send('message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], usage: start } });
  send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  for (const piece of text.match(/.{1,8}/gs) ?? []) {
    send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } });
  }
  send('content_block_stop', { type: 'content_block_stop', index: 0 });
  send('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: extra.output_tokens ?? usage.completion_tokens } });
  res.end(`event: message_stop\ndata: ${JSON.stringify({ type: 'message_stop' })}\n\n`);
}
