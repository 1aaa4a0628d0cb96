import type { Db } from './db';
import type { EgressSetting } from '../outbound/policy';

interface EgressRow {
  offline: number;
  allowed_hosts: string;
}

export interface OutboundHost {
  host: string;
  calls: number;
  blocked: number;
}

export function createEgressStore(db: Db) {
  const s = {
    setting: db.prepare<[number], EgressRow>('SELECT offline, allowed_hosts FROM egress_settings WHERE workspace_id = ?'),
    save: db.prepare<[number, number, string, number]>(
      `INSERT INTO egress_settings (workspace_id, offline, allowed_hosts, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (workspace_id) DO UPDATE SET offline = excluded.offline, allowed_hosts = excluded.allowed_hosts, updated_at = excluded.updated_at`,
    ),
    count: db.prepare<[number, string, number, number]>(
      `INSERT INTO report_outbound_hosts (report_id, host, calls, blocked) VALUES (?, ?, ?, ?)
       ON CONFLICT (report_id, host) DO UPDATE SET calls = calls + excluded.calls, blocked = blocked + excluded.blocked`,
    ),
    hosts: db.prepare<[number, number], OutboundHost>(
      `SELECT h.host, h.calls, h.blocked FROM report_outbound_hosts h JOIN reports r ON r.id = h.report_id
       WHERE r.workspace_id = ? AND h.report_id = ? ORDER BY h.calls + h.blocked DESC, h.host`,
    ),
    reportExists: db.prepare<[number, number], { id: number }>('SELECT id FROM reports WHERE workspace_id = ? AND id = ? AND archived_at IS NULL'),
  };
  return {
    /** The workspace's setting; online with nothing listed when it never saved one. */
    setting(workspaceId: number): EgressSetting {
      const row = s.setting.get(workspaceId);
      return row ? { offline: row.offline === 1, allowed_hosts: JSON.parse(row.allowed_hosts) as string[] } : { offline: false, allowed_hosts: [] };
    },
    save: (workspaceId: number, setting: EgressSetting, at: number) =>
      void s.save.run(workspaceId, setting.offline ? 1 : 0, JSON.stringify(setting.allowed_hosts), at),
    /** Adds `calls` made and `blocked` refused to a run's count for a host. */
    countHost: (reportId: number, host: string, calls: number, blocked: number) => void s.count.run(reportId, host, calls, blocked),
    /** A run's hosts, or null when the report is not the workspace's. */
    hosts(workspaceId: number, reportId: number): OutboundHost[] | null {
      if (!s.reportExists.get(workspaceId, reportId)) return null;
      return s.hosts.all(workspaceId, reportId);
    },
  };
}

export type EgressStore = ReturnType<typeof createEgressStore>;
