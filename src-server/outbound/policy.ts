import { isIP } from 'node:net';

/** A workspace's egress setting (Settings → Network; `GET/PUT /api/public/v2/settings/egress`). */
export interface EgressSetting {
  /** When true, only loopback and `allowed_hosts` may be called. */
  offline: boolean;
  /** Host names (or IP literals) allowed while offline, lower case, no port. */
  allowed_hosts: string[];
}

export const OPEN_EGRESS: EgressSetting = { offline: false, allowed_hosts: [] };

/** An outbound call the egress setting refused; the message names the host and the setting. */
export class EgressBlockedError extends Error {
  constructor(readonly host: string) {
    super(`Blocked by the offline setting: ${host} is neither loopback nor in the allowed hosts (Settings → Network).`);
  }
}

/** `URL.hostname` without IPv6 brackets, lower case. */
export const bareHostname = (url: URL) => url.hostname.replace(/^\[|\]$/g, '').toLowerCase();

/**
 * Loopback by name or literal address. Judged on the URL, not on DNS: a name that merely resolves
 * to 127.0.0.1 is not trusted (its owner can change that answer), only `localhost` (RFC 6761 keeps
 * it on this machine) and the literal loopback ranges.
 */
export function isLoopback(hostname: string): boolean {
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) return true;
  const family = isIP(hostname);
  if (family === 4) return hostname.startsWith('127.');
  if (family === 6) return hostname === '::1' || /^::ffff:127\./.test(hostname) || /^::ffff:7f[0-9a-f]{2}:/.test(hostname);
  return false;
}

export function isAllowed(url: URL, setting: EgressSetting): boolean {
  if (!setting.offline) return true;
  const hostname = bareHostname(url);
  return isLoopback(hostname) || setting.allowed_hosts.includes(hostname);
}
