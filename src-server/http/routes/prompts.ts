import { z } from 'zod';
import { NoContent, PageQuery } from '../../schemas/common';
import {
  CreateLabelBody, FetchBody, IdentifierParam, ListQuery, MoveLabelBody, PromptIdParam, PromptVersionPage, PublishBody, PublishedTemplate,
  ReleaseLabel, ReleaseLabelList, TemplateForUse, TemplatePage, TemplateVersion, VersionQuery,
} from '../../schemas/prompts';
import type { PromptService } from '../../services/prompts';
import { route, type Route } from '../route';

const LabelIdParam = z.object({ id: z.coerce.number().pipe(z.number().int().min(1)) });
const tag = 'Prompt registry';

export function promptRoutes(prompts: PromptService): Route[] {
  return [
    route({
      method: 'post', path: '/rest/prompt-templates', summary: 'Publish a prompt template version (creates the template on first use)', tag,
      auth: 'key', body: PublishBody, status: 201,
      response: PublishedTemplate,
      handler: ({ body, principal }) => prompts.publish(principal.workspaceId, body),
    }),
    route({
      method: 'get', path: '/prompt-templates', summary: 'List prompt templates (page envelope; `label` shows the labelled version)', tag,
      auth: 'key', query: ListQuery,
      response: TemplatePage,
      handler: ({ query, principal }) => prompts.list(principal.workspaceId, query),
    }),
    route({
      method: 'post', path: '/prompt-templates/:identifier', summary: 'Fetch a template version for use: rendered, with provider kwargs', tag,
      auth: 'key', params: IdentifierParam, body: FetchBody,
      response: TemplateForUse,
      handler: ({ params, body, principal }) => prompts.fetchForUse(principal.workspaceId, params.identifier, body),
    }),
    route({
      method: 'get', path: '/prompt-templates/:identifier', summary: 'One stored template version (`version` or `label`; default production, else latest)', tag,
      auth: 'key', params: IdentifierParam, query: VersionQuery,
      response: TemplateVersion,
      handler: ({ params, query, principal }) => prompts.getRaw(principal.workspaceId, params.identifier, query),
    }),
    route({
      method: 'get', path: '/prompt-templates/:identifier/labels', summary: 'Release labels of a template', tag,
      auth: 'key', params: IdentifierParam,
      response: ReleaseLabelList,
      handler: ({ params, principal }) => prompts.labels(principal.workspaceId, params.identifier),
    }),
    route({
      method: 'post', path: '/prompts/:prompt_id/label', summary: 'Put a new release label on a version', tag,
      auth: 'key', params: PromptIdParam, body: CreateLabelBody, status: 201,
      response: ReleaseLabel,
      handler: ({ params, body, principal }) => prompts.createLabel(principal.workspaceId, params.prompt_id, body.name, body.prompt_version_number),
    }),
    route({
      method: 'patch', path: '/prompt-labels/:id', summary: 'Move a release label to another version', tag,
      auth: 'key', params: LabelIdParam, body: MoveLabelBody,
      response: ReleaseLabel,
      handler: ({ params, body, principal }) => prompts.moveLabel(principal.workspaceId, params.id, body.prompt_version_number),
    }),
    route({
      method: 'delete', path: '/prompt-labels/:id', summary: 'Remove a release label', tag,
      auth: 'key', params: LabelIdParam, status: 204,
      response: NoContent,
      handler: ({ params, principal }) => prompts.deleteLabel(principal.workspaceId, params.id),
    }),
    route({
      method: 'get', path: '/api/public/v2/prompt-templates/:identifier/versions', summary: 'Version history of a template, newest first', tag,
      auth: 'key', params: IdentifierParam, query: PageQuery,
      response: PromptVersionPage,
      handler: ({ params, query, principal }) => prompts.versions(principal.workspaceId, params.identifier, query),
    }),
    route({
      method: 'delete', path: '/api/public/v2/prompt-templates/:identifier', summary: 'Archive a template (gone from lists; logged requests keep their link)', tag,
      auth: 'key', params: IdentifierParam, status: 204,
      response: NoContent,
      handler: ({ params, principal }) => prompts.archive(principal.workspaceId, params.identifier),
    }),
  ];
}
