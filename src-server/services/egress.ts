import { notFound } from '../errors';
import type { EgressSetting } from '../outbound/policy';
import type { EgressStore } from '../store/egress';
import type { Writer } from '../store/writer';

/** The workspace's egress setting and its runs' outbound host logs. */
export function createEgressService({ store, writer, now }: { store: EgressStore; writer: Writer; now: () => number }) {
  // (report, host) pairs already committed to a run's log by this process.
  const logged = new Set<string>();
  // A pair's first durable write while it is under way: the run's other rows, starting in the same
  // turn (50 at c = 50), wait for it and are counted with the next commit instead of writing 50
  // durable entries (each job a savepoint, docs/performance.md).
  const logging = new Map<string, Promise<void>>();
  // Every outbound call of a run reads the setting; it changes only through `put`.
  const settings = new Map<number, EgressSetting>();
  // Calls to listed hosts are added up per group commit, one upsert per host, written with the
  // run's cells (`Writer.gathered`). Settled at the commit: the host is already in the log.
  // Only a failed commit (a full disk) can reject; the cells of that transaction fail with it.
  const countCalls = writer.gathered((calls: Array<{ reportId: number; host: string; blocked: boolean }>) => {
    const counts = new Map<string, { reportId: number; host: string; calls: number; blocked: number }>();
    for (const { reportId, host, blocked } of calls) {
      const key = `${reportId} ${host}`;
      const entry = counts.get(key) ?? counts.set(key, { reportId, host, calls: 0, blocked: 0 }).get(key)!;
      if (blocked) entry.blocked++;
      else entry.calls++;
    }
    for (const c of counts.values()) store.countHost(c.reportId, c.host, c.calls, c.blocked);
    return calls.map(() => undefined);
  }, { durable: false });

  return {
    get(workspaceId: number): EgressSetting {
      return settings.get(workspaceId) ?? settings.set(workspaceId, store.setting(workspaceId)).get(workspaceId)!;
    },

    async put(workspaceId: number, setting: EgressSetting): Promise<EgressSetting> {
      await writer.write(() => {
        store.save(workspaceId, setting, now());
        settings.delete(workspaceId);
      });
      settings.delete(workspaceId);
      return store.setting(workspaceId);
    },

    /**
     * Counted before the call leaves: `await` it, so a crash cannot lose a host that was called.
     * A host's first call waits for its commit; later calls to a host already in the log are added
     * up and join the next group commit without waiting (a commit is an fsync, 1–10 ms, which
     * dominated a fast run), so a crash may undercount calls to a listed host but never drops a host.
     */
    async recordHost(reportId: number, host: string, blocked: boolean): Promise<void> {
      const key = `${reportId} ${host}`;
      if (logged.has(key)) return void countCalls({ reportId, host, blocked }).catch(() => {});
      const first = logging.get(key);
      if (first) {
        await first;
        return void countCalls({ reportId, host, blocked }).catch(() => {});
      }
      const write = writer.write(() => store.countHost(reportId, host, blocked ? 0 : 1, blocked ? 1 : 0));
      logging.set(key, write);
      try {
        await write;
        logged.add(key);
      } finally {
        logging.delete(key);
      }
    },

    outboundHosts(workspaceId: number, reportId: number) {
      const hosts = store.hosts(workspaceId, reportId);
      if (!hosts) throw notFound('Report');
      return { hosts };
    },
  };
}

export type EgressService = ReturnType<typeof createEgressService>;
