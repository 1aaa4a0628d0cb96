import {
  CreateGroupBody, CreatedGroup, LoggedRequest, LogRequestBody, TrackAnswer, TrackedRequest, TrackGroupBody, TrackMetadataBody, TrackPromptBody,
  TrackRequestBody, TrackScoreBody,
} from '../../schemas/logging';
import type { PriceQuote } from '../../services/pricing';
import type { RequestService } from '../../services/requests';
import { trackRequest } from '../../services/tracking';
import { route, type Route } from '../route';

const ok = { success: true } as const;

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
      body: LogRequestBody, status: 201, lean: true,
      response: LoggedRequest,
      handler: ({ body, principal }) => requests.log(principal.workspaceId, body),
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

