import { notFound } from '../errors';
import type { EgressSetting } from '../outbound/policy';
import type { EgressStore } from '../store/egress';
import type { Writer } from '../store/writer';

/** The workspace's egress setting and its runs' outbound host logs. */
export function createEgressService({ store, writer, now }: { store: EgressStore; writer: Writer; now: () => number }) {
  // (report, host) pairs already committed to a run's log by this process.
  const logged = new Set<string>();
  return {
    get: (workspaceId: number): EgressSetting => store.setting(workspaceId),

    async put(workspaceId: number, setting: EgressSetting): Promise<EgressSetting> {
      await writer.write(() => store.save(workspaceId, setting, now()));
      return store.setting(workspaceId);
    },

    /**
     * Counted before the call leaves: `await` it, so a crash cannot lose a host that was called.
     * A host's first call waits for its commit; later calls to a host already in the log join the
     * next group commit without waiting (a commit is an fsync, 1–10 ms, which dominated a fast
     * run), so a crash may undercount calls to a listed host but never drops a host.
     */
    async recordHost(reportId: number, host: string, blocked: boolean): Promise<void> {
      const key = `${reportId} ${host}`;
      const count = writer.write(() => store.countHost(reportId, host, blocked));
      if (!logged.has(key)) {
        await count;
        logged.add(key);
        return;
      }
      // Only a failed commit (a full disk) can reject; the cells of that transaction fail with it.
      count.catch(() => {});
    },

    outboundHosts(workspaceId: number, reportId: number) {
      const hosts = store.hosts(workspaceId, reportId);
      if (!hosts) throw notFound('Report');
      return { hosts };
    },
  };
}

export type EgressService = ReturnType<typeof createEgressService>;
