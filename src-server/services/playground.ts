import { AppError, invalidField, notFound } from '../errors';
import { isObject, type Json } from '../is-object';
import { TemplateRenderError } from '../templates/jinja2';
import { renderPromptTemplate } from '../templates/render-prompt';
import { templateMessages } from '../eval/prompt-messages';
import { EgressBlockedError } from '../outbound/policy';
import { ProviderError, type ChatAnswer, type ChatMessage, type ProviderConnection, type ProviderHttp, type ProviderModule } from '../providers/provider';
import { isoDate } from '../iso-date';
import { LogRequestBody } from '../schemas/logging';
import type { PlaygroundAnswer, PlaygroundRunBody } from '../schemas/playground';
import type { PromptService } from './prompts';
import type { ProviderService } from './providers';
import { priceAnswer, type PriceQuote, type PricedCall } from './pricing';
import type { RequestService } from './requests';

export interface PlaygroundDeps {
  providers: Pick<ProviderService, 'open'>;
  prompts: Pick<PromptService, 'prepare'>;
  requests: Pick<RequestService, 'log'>;
  /** The price table (services/pricing.ts): a call is priced like an evaluation's. */
  quote: PriceQuote;
  now: () => number;
}

/** A run made ready: every 404 and 422 is behind it, so a stream opens only for a call that can be made. */
export interface PreparedRun {
  providerName: string;
  model: string;
  parameters: Record<string, unknown>;
  messages: ChatMessage[];
  provider: { module: ProviderModule; connection: ProviderConnection; http: ProviderHttp };
  /** The registry version the run renders, for the request's link. */
  prompt: { id: number; versionNumber: number; inputVariables: Record<string, unknown> } | null;
}

const FUNCTION_NAME = 'promptledger.playground';

function render(template: Json, variables: Json): Json {
  try {
    return renderPromptTemplate(template, variables);
  } catch (error) {
    if (error instanceof TemplateRenderError) throw invalidField(['body', 'input_variables'], `The messages could not be rendered: ${error.message}`);
    throw error;
  }
}

export function createPlaygroundService({ providers, prompts, requests, quote, now }: PlaygroundDeps) {
  /** Resolves the version (if named), the provider and the model; throws the 404/422 the client must fix. */
  function prepare(workspaceId: number, body: PlaygroundRunBody): PreparedRun {
    let providerName = body.provider;
    let model = body.model;
    let parameters = body.parameters ?? {};
    let messages: ChatMessage[];
    let prompt: PreparedRun['prompt'] = null;
    if (body.prompt_name) {
      const prepared = prompts.prepare(
        workspaceId,
        { name: body.prompt_name, version_number: body.version, label: body.label },
        { input_variables: body.input_variables },
      );
      const stored = isObject(prepared.metadata.model) ? prepared.metadata.model : {};
      // A version published for a stored provider runs on it; else on the provider its metadata names.
      providerName ??= prepared.provider?.name ?? (typeof stored.provider === 'string' && stored.provider ? stored.provider : undefined);
      model ??= typeof stored.name === 'string' && stored.name ? stored.name : undefined;
      parameters = { ...(isObject(stored.parameters) ? stored.parameters : {}), ...parameters };
      messages = templateMessages(prepared.prompt_template);
      prompt = { id: prepared.prompt_id, versionNumber: prepared.version_number, inputVariables: body.input_variables ?? {} };
      if (!providerName) throw invalidField(['body', 'provider'], 'Field required: the version names no provider', 'missing');
      if (!model) throw invalidField(['body', 'model'], 'Field required: the version names no model', 'missing');
    } else {
      // Edited messages (the UI's draft of a new version) still hold `{variables}`: rendered as a version would be.
      const draft = { type: 'chat', messages: body.messages ?? [], input_variables: [] };
      messages = templateMessages(body.input_variables ? render(draft, body.input_variables) : draft);
    }
    if (!messages.some((m) => m.content !== '')) {
      throw invalidField(['body', body.prompt_name ? 'prompt_name' : 'messages'], 'There is no text to send');
    }
    const provider = providers.open(workspaceId, providerName!);
    if (!provider) throw notFound(`Provider '${providerName}'`);
    return { providerName: providerName!, model: model!, parameters, messages, provider, prompt };
  }

  /**
   * Calls the provider (streamed when `onText` is given) and logs the call; answers once the log
   * entry is committed, so `request_id` can be opened at once. A failed call is logged as an
   * ERROR request and thrown as a 502 naming it; a call the offline setting refused never left,
   * so it is a 403 and logs nothing; a cancelled call (the client left) logs nothing either.
   */
  async function run(workspaceId: number, prepared: PreparedRun, signal: AbortSignal, onText?: (text: string) => void): Promise<PlaygroundAnswer> {
    const { module, connection, http } = prepared.provider;
    const call = { model: prepared.model, messages: prepared.messages, parameters: prepared.parameters };
    const startedAt = now();
    let answer: ChatAnswer;
    try {
      answer = onText ? await module.streamChat(http, connection, call, signal, onText) : await module.chat(http, connection, call, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      if (error instanceof ProviderError && error.cause instanceof EgressBlockedError) throw new AppError('forbidden', error.message);
      if (!(error instanceof ProviderError)) throw error;
      const failed = await log(workspaceId, prepared, startedAt, { text: null, inputTokens: 0, outputTokens: 0, priced: { price: 0, price_source: 'none' }, error: error.message });
      throw new AppError('bad_gateway', `The provider '${prepared.providerName}' failed: ${error.message}`, undefined, {
        request_id: failed.id,
        provider_status: error.status ?? null,
      });
    }
    const priced = priceAnswer(quote, workspaceId, connection, prepared.model, answer);
    const endedAt = now();
    const logged = await log(workspaceId, prepared, startedAt, { text: answer.text, inputTokens: answer.inputTokens, outputTokens: answer.outputTokens, priced, error: null }, endedAt);
    return {
      request_id: logged.id,
      output: answer.text,
      input_tokens: answer.inputTokens,
      output_tokens: answer.outputTokens,
      price: priced.price,
      latency_ms: Math.max(0, Math.round(endedAt - startedAt)),
    };
  }

  interface Outcome {
    text: string | null;
    inputTokens: number;
    outputTokens: number;
    priced: PricedCall;
    error: string | null;
  }

  function log(workspaceId: number, prepared: PreparedRun, startedAt: number, outcome: Outcome, endedAt = now()) {
    const blocks = (text: string) => [{ type: 'text', text }];
    return requests.log(
      workspaceId,
      LogRequestBody.parse({
        provider: prepared.providerName,
        model: prepared.model,
        input: { type: 'chat', messages: prepared.messages.map((m) => ({ role: m.role, content: blocks(m.content) })) },
        output: { type: 'chat', messages: outcome.text === null ? [] : [{ role: 'assistant', content: blocks(outcome.text) }] },
        request_start_time: isoDate(startedAt),
        request_end_time: isoDate(endedAt),
        parameters: prepared.parameters,
        prompt_id: prepared.prompt?.id ?? null,
        prompt_version_number: prepared.prompt?.versionNumber ?? null,
        prompt_input_variables: prepared.prompt?.inputVariables ?? {},
        input_tokens: outcome.inputTokens,
        output_tokens: outcome.outputTokens,
        function_name: FUNCTION_NAME,
        status: outcome.error ? 'ERROR' : 'SUCCESS',
        error_type: outcome.error ? 'ProviderError' : null,
        error_message: outcome.error?.slice(0, 1024) ?? null,
      }),
      outcome.priced,
    );
  }

  return { prepare, run };
}

export type PlaygroundService = ReturnType<typeof createPlaygroundService>;
