import { sendHttp, type OutboundInit, type OutboundNetwork, type OutboundResponse } from './http-client';
import { EgressBlockedError, isAllowed, type EgressSetting } from './policy';

export type { OutboundInit, OutboundResponse } from './http-client';

/** Who makes an outbound call: its workspace's egress setting applies; a run's calls are counted per host. */
export interface OutboundScope {
  workspaceId: number;
  /** The run the call belongs to (evaluation cells); absent for a provider test or the playground. */
  reportId?: number;
}

export type OutboundFetch = (scope: OutboundScope, url: string, init: OutboundInit) => Promise<OutboundResponse>;

export interface OutboundGateDeps {
  egressOf(workspaceId: number): EgressSetting;
  /** Durably counts a run's call to `host` (`blocked` when the setting refused it). */
  recordHost(reportId: number, host: string, blocked: boolean): Promise<void>;
  /** The network; tests of the server never replace it (they call the local LLM mock). */
  network?: OutboundNetwork;
}

// Browsers stop at 20; an API that redirects more than five times is broken, not slow.
const MAX_REDIRECTS = 5;
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'x-api-key', 'cookie'];

/**
 * The one door every outbound HTTP call goes through: provider calls (evaluations, embeddings,
 * provider tests, the playground) and ENDPOINT cells. It applies the workspace's egress setting to
 * every hop, so a loopback server cannot redirect a call out of an offline machine, and it logs
 * a run's hosts before the call leaves, so the log holds every host even after a crash.
 */
export function createOutboundGate({ egressOf, recordHost, network = sendHttp }: OutboundGateDeps): OutboundFetch {
  return async function outbound(scope, url, init) {
    let target = new URL(url);
    let request = init;
    for (let hop = 0; ; hop++) {
      const allowed = isAllowed(target, egressOf(scope.workspaceId));
      if (scope.reportId !== undefined) await recordHost(scope.reportId, target.host, !allowed);
      if (!allowed) throw new EgressBlockedError(target.host);
      const response = await network(target, request);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status > 399 || response.status === 304 || location === null) return response;
      if (hop >= MAX_REDIRECTS) throw new Error(`More than ${MAX_REDIRECTS} redirects from ${url}`);
      response.discard();
      const from = target;
      target = new URL(location, target);
      if (target.origin !== from.origin) {
        // As fetch does itself: a key meant for one server never follows a redirect to another.
        request = { ...request, headers: without(request.headers, CREDENTIAL_HEADERS) };
      }
      // 303 (and 301/302 after a POST, as browsers do) continue as a GET without the body.
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && request.method === 'POST')) {
        request = { ...request, method: 'GET', body: undefined, headers: without(request.headers, ['content-type']) };
      }
    }
  };
}

/** Headers minus some names, whatever their case. */
const without = (headers: Record<string, string> = {}, names: string[]) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name.toLowerCase())));
