import type { TrackRequestBody } from '../schemas/logging';
import { readTrackedCall } from '../providers/tracked-call';
import type { PriceQuote } from './pricing';
import type { RequestService } from './requests';

/**
 * `/track-request`: the SDK's record of a provider call, stored as a normal logged request.
 * A string `prompt_id` is a template name (the SDK passes whichever it has).
 */
export async function trackRequest(requests: RequestService, quote: PriceQuote, workspaceId: number, body: TrackRequestBody) {
  const call = readTrackedCall(body.provider_type, body.kwargs, body.request_response);
  const parts = {
    cached_input_tokens: call.cachedInputTokens || null,
    cache_write_tokens: call.cacheWriteTokens || null,
    cache_write_1h_tokens: call.cacheWrite1hTokens || null,
    reasoning_tokens: call.reasoningTokens || null,
  };
  const priced = quote(workspaceId, {
    provider: body.provider_type, model: call.model, input_tokens: call.inputTokens, output_tokens: call.outputTokens,
    ...parts, client_price: body.price, provider_cost: call.reportedCost,
  });
  const logged = await requests.log(workspaceId, {
    provider: body.provider_type,
    model: call.model,
    input: call.input as never,
    output: call.output as never,
    request_start_time: body.request_start_time,
    request_end_time: body.request_end_time,
    parameters: call.parameters,
    tags: body.tags,
    metadata: body.metadata,
    prompt_id: typeof body.prompt_id === 'number' ? body.prompt_id : null,
    prompt_name: typeof body.prompt_id === 'string' ? body.prompt_id : null,
    prompt_version_number: body.prompt_version,
    prompt_input_variables: body.prompt_input_variables,
    input_tokens: call.inputTokens,
    output_tokens: call.outputTokens,
    function_name: body.function_name,
    score: body.score,
    status: body.status,
    error_type: body.error_type,
    error_message: body.error_message,
    api_type: call.apiType,
    group_id: body.group_id,
    span_id: body.span_id,
  }, { ...priced, ...parts });
  const blueprint = body.return_prompt_blueprint
    ? {
        prompt_template: appendReply(call.input, call.output),
        commit_message: null,
        metadata: { model: { provider: body.provider_type, name: call.model, parameters: call.parameters } },
      }
    : null;
  return {
    success: true,
    request_id: logged.id,
    prompt_blueprint: blueprint,
    message: 'Request tracked.',
    ...(logged.warning ? { warning: logged.warning } : {}),
  };
}

/** The conversation including the model's reply, as PromptLayer's blueprint shows it. */
function appendReply(input: Record<string, unknown>, output: Record<string, unknown>) {
  if (input.type !== 'chat' || output.type !== 'chat') return output;
  return { ...input, messages: [...(input.messages as unknown[]), ...(output.messages as unknown[])] };
}
