import { CellError } from './column-type';
import type { Engine } from './config-fields';
import { createLimiter, type Limiter } from './limiter';
import type { OutboundFetch } from '../outbound/gate';
import { isProviderId, providerModules } from '../providers/index';
import { priceAnswer, type PriceQuote, type PricedCall } from '../services/pricing';
import type { ChatMessage, ProviderConnection, ProviderHttp, ProviderModule } from '../providers/provider';

/** Where an LLM call comes from: its log entry is tagged with the report so cost and tokens add up. */
export interface CallScope {
  workspaceId: number;
  reportId: number;
  columnName: string;
  purpose?: 'preview';
}

export interface LlmCallResult {
  text: string;
  cost: number;
  inputTokens: number;
  outputTokens: number;
}

export interface LlmGateway {
  chat(scope: CallScope, engine: Engine, messages: ChatMessage[], signal: AbortSignal): Promise<LlmCallResult>;
  embed(scope: CallScope, engine: Pick<Engine, 'provider' | 'model'>, input: string[], signal: AbortSignal): Promise<{ vectors: number[][]; cost: number; inputTokens: number }>;
  /**
   * Resolves once every call made so far is in the request log: durable for a preview's calls,
   * committed for a run's, which the sync of the run's done mark covers.
   */
  settled(): Promise<void>;
}

/** A logged LLM call, as `POST /log-request` would receive it. */
export interface LlmCallLog {
  provider: string;
  model: string;
  messages: ChatMessage[];
  output: string | null;
  parameters: Record<string, unknown>;
  startedAt: number;
  endedAt: number;
  inputTokens: number;
  outputTokens: number;
  priced: PricedCall;
  error: string | null;
  tags: string[];
  metadata: Record<string, string>;
}

export interface LlmGatewayDeps {
  /** A workspace's provider by name (stored, else built-in), or null for an unknown name. */
  connect(workspaceId: number, name: string): ProviderConnection | null;
  /** The outbound gate: egress setting and the run's host log. */
  outbound: OutboundFetch;
  /** In-flight calls per provider (PROMPTLEDGER_EVAL_CONCURRENCY). */
  concurrency: number;
  /** `durable: false` resolves at the commit. */
  logCall(workspaceId: number, call: LlmCallLog, durable: boolean): Promise<unknown>;
  quote: PriceQuote;
  now: () => number;
}

export function createLlmGateway({ connect: find, outbound, concurrency, logCall, quote, now }: LlmGatewayDeps): LlmGateway {
  const limiters = new Map<string, Limiter>();
  // A cell does not wait for its call's log entry to commit; a run waits for all of them at its end.
  const logging = new Set<Promise<unknown>>();
  const track = (entry: Promise<unknown>) => {
    logging.add(entry);
    void entry.finally(() => logging.delete(entry));
  };
  const limiterFor = (key: string) => limiters.get(key) ?? limiters.set(key, createLimiter(concurrency)).get(key)!;

  function connect(workspaceId: number, name: string): { connection: ProviderConnection; module: ProviderModule } {
    const connection = find(workspaceId, name);
    if (!connection || !isProviderId(connection.client)) {
      throw new CellError(`Unknown provider '${name}': use ${Object.keys(providerModules).join(', ')}, or the name of a provider configured in Settings → Providers.`);
    }
    return { connection, module: providerModules[connection.client] };
  }

  const httpFor = (scope: CallScope): ProviderHttp => (url, init) => outbound({ workspaceId: scope.workspaceId, reportId: scope.reportId }, url, init);

  // Keyed by where the calls go, so two provider names pointing at one server share its limit.
  const keyOf = (c: ProviderConnection) => `${c.client} ${c.baseUrl}`;

  const tagsOf = (scope: CallScope) => ({
    tags: [`report:${scope.reportId}`, ...(scope.purpose ? [scope.purpose] : [])],
    metadata: { report_id: String(scope.reportId), column: scope.columnName, ...(scope.purpose ? { purpose: scope.purpose } : {}) },
  });

  return {
    async settled() {
      await Promise.allSettled([...logging]);
    },
    async chat(scope, engine, messages, signal) {
      const { connection, module } = connect(scope.workspaceId, engine.provider);
      const startedAt = now();
      // A run's log entries need only be committed when it waits for them (`settled`): the sync of
      // its done mark, which comes after, covers them, where waiting for the ingest thread's own
      // sync put a second sync between the last answer and that write. A preview answers with
      // nothing else to sync, so its entries are durable first.
      const log = (entry: Pick<LlmCallLog, 'output' | 'inputTokens' | 'outputTokens' | 'priced' | 'error'>) =>
        track(
          logCall(scope.workspaceId, {
            provider: engine.provider, model: engine.model, messages, parameters: engine.parameters,
            startedAt, endedAt: now(), ...tagsOf(scope), ...entry,
          }, scope.purpose === 'preview'),
        );
      try {
        const answer = await limiterFor(keyOf(connection)).run(
          () => module.chat(httpFor(scope), connection, { model: engine.model, messages, parameters: engine.parameters }, signal),
          signal,
        );
        // The table row of the provider's name in the pipeline, else of its client (a registered
        // `my-openai` prices `gpt-4o` like `openai`).
        const priced = priceAnswer(quote, scope.workspaceId, connection, engine.model, answer);
        log({ output: answer.text, inputTokens: answer.inputTokens, outputTokens: answer.outputTokens, priced, error: null });
        return { text: answer.text, cost: priced.price, inputTokens: answer.inputTokens, outputTokens: answer.outputTokens };
      } catch (error) {
        if (!signal.aborted) log({ output: null, inputTokens: 0, outputTokens: 0, priced: { price: 0, price_source: 'none' }, error: (error as Error).message });
        throw error;
      }
    },

    async embed(scope, engine, input, signal) {
      const { connection, module } = connect(scope.workspaceId, engine.provider);
      const embed = module.embed;
      if (!embed) throw new CellError(`Provider '${engine.provider}' (${module.displayName}) has no embeddings endpoint; use an OpenAI-compatible provider.`);
      const answer = await limiterFor(keyOf(connection)).run(() => embed(httpFor(scope), connection, engine.model, input, signal), signal);
      const priced = priceAnswer(quote, scope.workspaceId, connection, engine.model, { inputTokens: answer.inputTokens, outputTokens: 0 });
      return { vectors: answer.vectors, inputTokens: answer.inputTokens, cost: priced.price };
    },
  };
}
