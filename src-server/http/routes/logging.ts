import {
  CreateGroupBody, CreatedGroup, LoggedRequest, LogRequestBody, TrackAnswer, TrackedRequest, TrackGroupBody, TrackMetadataBody, TrackPromptBody,
  TrackRequestBody, TrackScoreBody,
} from '../../schemas/logging';
import { fastLogRequestBody } from '../../schemas/fast-log-request-body';
import type { PriceQuote } from '../../services/pricing';
import type { RequestService } from '../../services/requests';
import { trackRequest } from '../../services/tracking';
import { JsonText } from '../json-text';
import { route, type Route } from '../route';

const ok = { success: true } as const;

/**
 * `POST /log-request`'s answer. Unless a registry version was linked, its
 * `prompt_version.prompt_template` is the input, already serialised for the row: that text is
 * spliced into the reply rather than the input serialised a second time (docs/performance.md,
 * "Ingest: HTTP thread"). The bytes are JSON.stringify's: the answer's first keys are `id` and
 * `prompt_version`, whose first key is `prompt_template`; were that order to change, the answer
 * goes out as an object.
 */
function loggedReply(answer: Awaited<ReturnType<RequestService['log']>>, input: unknown, inputJson: string): unknown {
  const version = answer.prompt_version;
  if (version.prompt_template !== input) return answer;
  const head = `{"id":${answer.id},"prompt_version":{"prompt_template":`;
  const rest = JSON.stringify({ ...answer, prompt_version: { ...version, prompt_template: 0 } });
  return rest.startsWith(`${head}0`) ? new JsonText(head + inputJson + rest.slice(head.length + 1)) : answer;
}

/** `/library-track-*` and `/track-group` take the key in the body; `/rest/track-*` in the header. */
function trackRoutes(requests: RequestService): Route[] {
  const handlers = {
    score: route({
      method: 'post', path: '', summary: 'Score a logged request (0–100)', tag: 'Logging', auth: 'key-or-body', body: TrackScoreBody,
      response: TrackAnswer,
      handler: async ({ body, principal }) => {
        await requests.addScore(principal.workspaceId, body.request_id, body.name ?? body.score_name ?? 'default', body.score);
        return ok;
      },
    }),
    metadata: route({
      method: 'post', path: '', summary: 'Add metadata to a logged request', tag: 'Logging', auth: 'key-or-body', body: TrackMetadataBody,
      response: TrackAnswer,
      handler: async ({ body, principal }) => {
        await requests.addMetadata(principal.workspaceId, body.request_id, body.metadata);
        return ok;
      },
    }),
    prompt: route({
      method: 'post', path: '', summary: 'Link a logged request to a prompt template version', tag: 'Logging', auth: 'key-or-body', body: TrackPromptBody,
      response: TrackAnswer,
      handler: async ({ body, principal }) => {
        const result = await requests.linkPrompt(
          principal.workspaceId, body.request_id,
          { promptName: body.prompt_name, versionNumber: body.version, label: body.label },
          body.prompt_input_variables,
        );
        return { ...ok, ...result };
      },
    }),
    group: route({
      method: 'post', path: '', summary: 'Put a logged request in a group', tag: 'Logging', auth: 'key-or-body', body: TrackGroupBody,
      response: TrackAnswer,
      handler: async ({ body, principal }) => {
        await requests.setGroup(principal.workspaceId, body.request_id, body.group_id);
        return ok;
      },
    }),
  };
  const legacyPath = { score: '/library-track-score', metadata: '/library-track-metadata', prompt: '/library-track-prompt', group: '/track-group' };
  return Object.entries(handlers).flatMap(([name, r]) => [
    { ...r, path: legacyPath[name as keyof typeof handlers] },
    { ...r, path: `/rest/track-${name}`, auth: 'key' as const },
  ]);
}

export function loggingRoutes(requests: RequestService, quote: PriceQuote): Route[] {
  return [
    route({
      method: 'post', path: '/log-request', summary: 'Log one LLM request', tag: 'Logging', auth: 'key-or-body',
      body: LogRequestBody, fastBody: fastLogRequestBody, status: 201, lean: true,
      response: LoggedRequest,
      handler: async ({ body, principal }) => {
        const inputJson = JSON.stringify(body.input);
        return loggedReply(await requests.log(principal.workspaceId, body, undefined, inputJson), body.input, inputJson);
      },
    }),
    route({
      method: 'post', path: '/track-request', summary: 'Log a provider call as sent by the SDK (run(), wrappers)', tag: 'Logging',
      auth: 'key-or-body', body: TrackRequestBody,
      response: TrackedRequest,
      handler: ({ body, principal }) => trackRequest(requests, quote, principal.workspaceId, body),
    }),
    ...trackRoutes(requests),
    route({
      method: 'post', path: '/create-group', summary: 'Create a request group', tag: 'Logging', auth: 'key-or-body', body: CreateGroupBody,
      response: CreatedGroup,
      handler: async ({ principal }) => ({ ...ok, id: await requests.createGroup(principal.workspaceId) }),
    }),
  ];
}

