import { PassThrough } from 'node:stream';
import { NoContent, PageQuery } from '../../schemas/common';
import { PipelinePage, RenameReportBody, ReportDetail, ReportIdParam, ReportRows, RowsQuery, RunCanceled, SetCellBody, SetCellResponse } from '../../schemas/reports';
import type { RunEvent } from '../../eval/runner';
import type { ReportRunService } from '../../services/report-runs';
import type { ReportService } from '../../services/reports';
import { route, type Route } from '../route';

// Proxies and idle timers drop a silent connection; a comment line every 15 s keeps it open.
const HEARTBEAT_MS = 15_000;

/** Our additions under /api/public/v2: the UI's evaluation list, rows, cells, live events, cancel. */
export function evaluationRoutes(reports: ReportService, runs: ReportRunService): Route[] {
  return [
    route({
      method: 'get', path: '/api/public/v2/evaluations', summary: 'Pipelines with their runs, newest first', tag: 'Evaluations',
      auth: 'key', query: PageQuery,
      response: PipelinePage,
      handler: ({ query, principal }) => reports.list(principal.workspaceId, query.page, query.per_page),
    }),
    route({
      method: 'patch', path: '/api/public/v2/reports/:id', summary: 'Rename a pipeline or a run', tag: 'Evaluations',
      auth: 'key', params: ReportIdParam, body: RenameReportBody,
      response: ReportDetail,
      handler: ({ params, body, principal }) => reports.rename(principal.workspaceId, params.id, body),
    }),
    route({
      method: 'delete', path: '/api/public/v2/reports/:id', summary: 'Archive a pipeline or run (as DELETE /reports/{id})', tag: 'Evaluations',
      auth: 'key', params: ReportIdParam, status: 204,
      response: NoContent,
      handler: ({ params, principal }) => reports.archive(principal.workspaceId, params.id),
    }),
    route({
      method: 'get', path: '/api/public/v2/reports/:id/rows', summary: 'A page of rows with every cell', tag: 'Evaluations',
      auth: 'key', params: ReportIdParam, query: RowsQuery,
      response: ReportRows,
      handler: ({ params, query, principal }) => runs.rows(principal.workspaceId, params.id, query.page, query.per_page),
    }),
    route({
      method: 'patch', path: '/api/public/v2/reports/:id/cells', summary: 'Enter a HUMAN cell', tag: 'Evaluations',
      auth: 'key', params: ReportIdParam, body: SetCellBody,
      response: SetCellResponse,
      handler: ({ params, body, principal }) => runs.setCell(principal.workspaceId, params.id, body),
    }),
    route({
      method: 'post', path: '/api/public/v2/reports/:id/cancel', summary: 'Cancel a running run', tag: 'Evaluations',
      auth: 'key', params: ReportIdParam,
      response: RunCanceled,
      handler: ({ params, principal }) => runs.cancel(principal.workspaceId, params.id),
    }),
    route({
      method: 'get', path: '/api/public/v2/reports/:id/events', summary: 'Server-Sent Events: progress while a run runs, then `done`', tag: 'Evaluations',
      auth: 'key', params: ReportIdParam,
      response: { mediaType: 'text/event-stream', description: '`progress` events while the run runs, then one `done`; each `data` is a RunProgress object' },
      handler: ({ params, principal, ctx }) => {
        const stream = new PassThrough();
        const send = (event: RunEvent) => {
          if (event.type === 'shutdown') return void stream.end('event: shutdown\ndata: {}\n\n');
          stream.write(`event: ${event.type}\ndata: ${JSON.stringify(event.progress)}\n\n`);
          if (event.type === 'done') stream.end();
        };
        const { initial, stop } = runs.watch(principal.workspaceId, params.id, send);
        const heartbeat = setInterval(() => stream.write(': keep-alive\n\n'), HEARTBEAT_MS);
        const close = () => {
          clearInterval(heartbeat);
          stop();
        };
        stream.on('close', close);
        stream.on('finish', close);
        ctx.req.on('close', () => stream.end());
        ctx.type = 'text/event-stream';
        ctx.set('cache-control', 'no-cache');
        ctx.set('x-accel-buffering', 'no');
        send(initial);
        return stream;
      },
    }),
  ];
}
