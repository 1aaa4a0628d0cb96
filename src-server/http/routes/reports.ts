import {
  CompareAnswer, CompareParams, CompareQuery, CreateColumnBody, CreatedReport, CreateReportBody, PatchColumnBody, ReportColumnResponse, ReportDetail,
  ReportIdParam, ReportIdPathParam, RunReportBody, RunStarted, ScoreCardBody, ScoreCardResponse, ScoreResponse,
} from '../../schemas/reports';
import { NoContent } from '../../schemas/common';
import type { ReportRunService } from '../../services/report-runs';
import type { ReportService } from '../../services/reports';
import { route, type Route } from '../route';

/** The seed's report endpoints (PromptLayer's paths, no prefix). */
export function reportRoutes(reports: ReportService, runs: ReportRunService): Route[] {
  return [
    route({
      method: 'post', path: '/reports', summary: 'Create an evaluation pipeline over a dataset version', tag: 'Evaluations',
      auth: 'key', body: CreateReportBody, status: 201,
      response: CreatedReport,
      handler: ({ body, principal }) => reports.create(principal.workspaceId, body),
    }),
    route({
      method: 'get', path: '/reports/:id', summary: 'A pipeline or run with status, totals and columns', tag: 'Evaluations',
      auth: 'key', params: ReportIdParam,
      response: ReportDetail,
      handler: ({ params, principal }) => reports.get(principal.workspaceId, params.id),
    }),
    route({
      method: 'delete', path: '/reports/:id', summary: 'Archive a pipeline or run', tag: 'Evaluations',
      auth: 'key', params: ReportIdParam, status: 204,
      response: NoContent,
      handler: ({ params, principal }) => reports.archive(principal.workspaceId, params.id),
    }),
    route({
      method: 'post', path: '/reports/:report_id/run', summary: 'Run a pipeline: a new final report, computed in the background', tag: 'Evaluations',
      auth: 'key', params: ReportIdPathParam, body: RunReportBody, status: 201,
      response: RunStarted,
      handler: ({ params, body, principal }) => runs.run(principal.workspaceId, params.report_id, body),
    }),
    route({
      method: 'get', path: '/reports/:baseline_id/compare/:candidate_id', summary: 'Compare two runs row by row, with significance', tag: 'Evaluations',
      auth: 'key', params: CompareParams, query: CompareQuery,
      response: CompareAnswer,
      handler: ({ params, query, principal }) => runs.compare(principal.workspaceId, params.baseline_id, params.candidate_id, query),
    }),
    route({
      method: 'get', path: '/reports/:id/score', summary: 'The score of a run', tag: 'Evaluations',
      auth: 'key', params: ReportIdParam,
      response: ScoreResponse,
      handler: ({ params, principal }) => runs.score(principal.workspaceId, params.id),
    }),
    route({
      method: 'patch', path: '/reports/:id/score-card', summary: 'Choose the columns that make the score', tag: 'Evaluations',
      auth: 'key', params: ReportIdParam, body: ScoreCardBody,
      response: ScoreCardResponse,
      handler: ({ params, body, principal }) => runs.setScoreCard(principal.workspaceId, params.id, body.column_names),
    }),
    route({
      method: 'post', path: '/report-columns', summary: 'Add an evaluation column to a pipeline', tag: 'Evaluations',
      auth: 'key', body: CreateColumnBody, status: 201,
      response: ReportColumnResponse,
      handler: ({ body, principal }) => reports.addColumn(principal.workspaceId, body),
    }),
    route({
      method: 'patch', path: '/report-columns/:id', summary: 'Rename, reconfigure or move a column', tag: 'Evaluations',
      auth: 'key', params: ReportIdParam, body: PatchColumnBody,
      response: ReportColumnResponse,
      handler: ({ params, body, principal }) => reports.updateColumn(principal.workspaceId, params.id, body),
    }),
    route({
      method: 'delete', path: '/report-columns/:id', summary: 'Delete a column', tag: 'Evaluations',
      auth: 'key', params: ReportIdParam, status: 204,
      response: NoContent,
      handler: ({ params, principal }) => reports.deleteColumn(principal.workspaceId, params.id),
    }),
  ];
}
