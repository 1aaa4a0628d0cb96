import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError, fromZodError } from '../../errors';
import { NoContent } from '../../schemas/common';
import { IdParam } from '../../schemas/explorer';
import {
  AddRequestLogBody,
  CreatedDatasetGroup,
  CreateDatasetGroupBody,
  CreateDraftBody,
  DatasetGroupListQuery,
  DatasetGroupPage,
  DatasetGroupResponse,
  DatasetListQuery,
  DatasetRows,
  DatasetRowsQuery,
  DatasetVersionPage,
  DatasetVersionResponse,
  DraftResponse,
  ExportQuery,
  FromFileBody,
  FromFileFields,
  FromRequestsBody,
  PublishedDataset,
  PublishedFromRequests,
  RenameDatasetGroupBody,
  ReplaceRowsBody,
  SaveDraftBody,
} from '../../schemas/datasets';
import type { DatasetService } from '../../services/datasets';
import { readJsonUpload } from '../json-upload';
import { route, type Route } from '../route';

export interface DatasetRouteOptions {
  /** The server's body limit; on from-file it bounds the decoded file, not its base64 text. */
  bodyLimitBytes: number;
  /** Uploads spool here (`<dataDir>/uploads`), which the next start empties after a crash. */
  uploadsDir: string;
}

const FILE_FIELD = 'file_content_base64';

export function datasetRoutes(datasets: DatasetService, { bodyLimitBytes, uploadsDir }: DatasetRouteOptions): Route[] {
  // base64 is 4 characters per 3 bytes; the other fields get a little room of their own.
  const uploadLimit = Math.ceil(bodyLimitBytes / 3) * 4 + 1024 * 1024;
  const tag = 'Datasets';
  return [
    route({
      method: 'post', path: '/api/public/v2/dataset-groups', summary: 'Create a dataset group (with its empty draft)', tag,
      auth: 'key', body: CreateDatasetGroupBody, status: 201,
      response: CreatedDatasetGroup,
      handler: ({ body, principal }) => datasets.createGroup(principal.workspaceId, body),
    }),
    route({
      method: 'get', path: '/api/public/v2/dataset-groups', summary: 'List dataset groups, newest first', tag,
      auth: 'key', query: DatasetGroupListQuery,
      response: DatasetGroupPage,
      handler: ({ query, principal }) => datasets.listGroups(principal.workspaceId, query),
    }),
    route({
      method: 'get', path: '/api/public/v2/dataset-groups/:id', summary: 'One dataset group with its latest version', tag,
      auth: 'key', params: IdParam,
      response: DatasetGroupResponse,
      handler: ({ params, principal }) => datasets.getGroup(principal.workspaceId, params.id),
    }),
    route({
      method: 'patch', path: '/api/public/v2/dataset-groups/:id', summary: 'Rename a dataset group (409 when the name is taken)', tag,
      auth: 'key', params: IdParam, body: RenameDatasetGroupBody,
      response: DatasetGroupResponse,
      handler: ({ params, body, principal }) => datasets.renameGroup(principal.workspaceId, params.id, body),
    }),
    route({
      method: 'delete', path: '/api/public/v2/dataset-groups/:id', summary: 'Archive a dataset group (gone from lists; runs on its versions still render)', tag,
      auth: 'key', params: IdParam, status: 204,
      response: NoContent,
      handler: ({ params, principal }) => datasets.archiveGroup(principal.workspaceId, params.id),
    }),
    route({
      method: 'post', path: '/api/public/v2/dataset-versions/from-file', summary: 'Publish the next version from a CSV, JSON or JSONL file (base64)', tag,
      auth: 'key', streamBody: FromFileBody, status: 201,
      response: PublishedDataset,
      handler: async ({ ctx, principal }) => {
        const dir = await mkdtemp(join(uploadsDir, 'upload-'));
        try {
          const upload = await readJsonUpload(ctx, { fileField: FILE_FIELD, path: join(dir, 'file'), limitBytes: uploadLimit, maxFileBytes: bodyLimitBytes });
          const fields = FromFileFields.safeParse(upload.fields);
          if (!fields.success) throw fromZodError(fields.error, 'body');
          if (!upload.file) {
            const msg = FILE_FIELD in upload.fields ? 'Expected a base64 string' : 'Field required';
            throw new AppError('invalid_input', `Invalid field '${FILE_FIELD}': ${msg}`, [
              { loc: ['body', FILE_FIELD], msg, type: msg === 'Field required' ? 'missing' : 'invalid_type' },
            ]);
          }
          return await datasets.fromFile(principal.workspaceId, fields.data, join(dir, 'file'));
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      },
    }),
    route({
      method: 'post', path: '/api/public/v2/dataset-versions/from-filter-params', summary: 'Publish the next version from logged requests (ids or explorer filters)', tag,
      auth: 'key', body: FromRequestsBody, status: 201,
      response: PublishedFromRequests,
      handler: ({ body, principal }) => datasets.fromRequests(principal.workspaceId, body),
    }),
    route({
      method: 'post', path: '/api/public/v2/dataset-versions/create-draft', summary: 'Start the draft, optionally from a version', tag,
      auth: 'key', body: CreateDraftBody, status: 201,
      response: DraftResponse,
      handler: ({ body, principal }) => datasets.createDraft(principal.workspaceId, body),
    }),
    route({
      method: 'post', path: '/api/public/v2/dataset-versions/add-request-log', summary: "Append a logged request to the group's draft", tag,
      auth: 'key', body: AddRequestLogBody, status: 201,
      response: DraftResponse,
      handler: ({ body, principal }) => datasets.addRequestLog(principal.workspaceId, body),
    }),
    route({
      method: 'post', path: '/api/public/v2/dataset-versions/save-draft', summary: 'Publish the draft as the next version', tag,
      auth: 'key', body: SaveDraftBody, status: 201,
      response: PublishedDataset,
      handler: ({ body, principal }) => datasets.saveDraft(principal.workspaceId, body),
    }),
    route({
      method: 'get', path: '/api/public/v2/datasets', summary: 'List dataset versions (of a group, or of the workspace)', tag,
      auth: 'key', query: DatasetListQuery,
      response: DatasetVersionPage,
      handler: ({ query, principal }) => datasets.listVersions(principal.workspaceId, query),
    }),
    route({
      method: 'get', path: '/api/public/v2/datasets/:id', summary: 'One dataset version', tag,
      auth: 'key', params: IdParam,
      response: DatasetVersionResponse,
      handler: ({ params, principal }) => datasets.getVersion(principal.workspaceId, params.id),
    }),
    route({
      method: 'get', path: '/api/public/v2/datasets/:id/rows', summary: "A page of a version's rows, optionally searched with q", tag,
      auth: 'key', params: IdParam, query: DatasetRowsQuery,
      response: DatasetRows,
      handler: ({ params, query, principal }) => datasets.rows(principal.workspaceId, params.id, query),
    }),
    route({
      method: 'put', path: '/api/public/v2/datasets/:id/rows', summary: "Replace the draft's rows (published versions are immutable: 409)", tag,
      auth: 'key', params: IdParam, body: ReplaceRowsBody,
      response: DatasetVersionResponse,
      handler: ({ params, body, principal }) => datasets.replaceRows(principal.workspaceId, params.id, body),
    }),
    route({
      method: 'get', path: '/api/public/v2/datasets/:id/export', summary: 'Download a version as CSV or JSONL (streamed)', tag,
      auth: 'key', params: IdParam, query: ExportQuery,
      response: { mediaType: 'text/csv', description: 'The rows as CSV (header line first), or as JSONL with `format=jsonl` (application/x-ndjson)' },
      handler: ({ params, query, principal, ctx }) => {
        const { fileName, stream } = datasets.export(principal.workspaceId, params.id, query.format);
        ctx.type = query.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8';
        ctx.attachment(fileName);
        return stream;
      },
    }),
  ];
}
