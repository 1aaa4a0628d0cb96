import { ReportIdParam } from '../../schemas/reports';
import { PreviewAnswer, PreviewBody } from '../../schemas/report-preview';
import type { ReportPreview } from '../../services/report-preview';
import { route, type Route } from '../route';

export function reportPreviewRoutes(preview: ReportPreview): Route[] {
  return [
    route({
      method: 'post', path: '/api/public/v2/reports/:id/preview', summary: "A pipeline's columns on its first rows, computed now and not stored", tag: 'Evaluations',
      auth: 'key', params: ReportIdParam, body: PreviewBody,
      response: PreviewAnswer,
      handler: ({ params, body, principal }) => preview(principal.workspaceId, params.id, body),
    }),
  ];
}
