import { z } from 'zod';
import { EgressSetting, EgressSettingBody, OutboundHosts } from '../../schemas/egress';
import type { EgressService } from '../../services/egress';
import { route, type Route } from '../route';

const IdParam = z.object({ id: z.coerce.number().pipe(z.number().int().min(1)) });
const tag = 'Network';

export function egressRoutes(egress: EgressService): Route[] {
  return [
    route({
      method: 'get', path: '/api/public/v2/settings/egress', summary: 'The egress setting: offline (only loopback and listed hosts) or not', tag,
      auth: 'key',
      response: EgressSetting,
      handler: ({ principal }) => egress.get(principal.workspaceId),
    }),
    route({
      method: 'put', path: '/api/public/v2/settings/egress', summary: 'Set offline mode and the hosts it still allows', tag,
      auth: 'key', body: EgressSettingBody,
      response: EgressSetting,
      handler: ({ body, principal }) => egress.put(principal.workspaceId, body),
    }),
    route({
      method: 'get', path: '/api/public/v2/reports/:id/outbound-hosts', summary: 'Hosts a run called (and was refused), with counts', tag,
      auth: 'key', params: IdParam,
      response: OutboundHosts,
      handler: ({ params, principal }) => egress.outboundHosts(principal.workspaceId, params.id),
    }),
  ];
}
