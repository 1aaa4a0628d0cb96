import { notFound } from '../errors';
import type { EgressSetting } from '../outbound/policy';
import type { EgressStore } from '../store/egress';
import type { Writer } from '../store/writer';

/** The workspace's egress setting and its runs' outbound host logs. */
export function createEgressService({ store, writer, now }: { store: EgressStore; writer: Writer; now: () => number }) {
  return {
    get: (workspaceId: number): EgressSetting => store.setting(workspaceId),

    async put(workspaceId: number, setting: EgressSetting): Promise<EgressSetting> {
      await writer.write(() => store.save(workspaceId, setting, now()));
      return store.setting(workspaceId);
    },

    /** Counted before the call leaves: `await` it, so a crash cannot lose a host that was called. */
    recordHost: (reportId: number, host: string, blocked: boolean) => writer.write(() => store.countHost(reportId, host, blocked)),

    outboundHosts(workspaceId: number, reportId: number) {
      const hosts = store.hosts(workspaceId, reportId);
      if (!hosts) throw notFound('Report');
      return { hosts };
    },
  };
}

export type EgressService = ReturnType<typeof createEgressService>;
