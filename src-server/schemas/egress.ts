import { isIP } from 'node:net';
import { z } from 'zod';

const DNS_NAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** A host name or IP literal, as the URL of a call would carry it (lower case, no port). */
const AllowedHost = z
  .string()
  .trim()
  .toLowerCase()
  .transform((h) => h.replace(/^\[(.*)\]$/, '$1'))
  .refine((h) => DNS_NAME.test(h) || isIP(h) !== 0, { message: 'Expected a host name or IP address, without scheme, port or path' });

export const EgressSettingBody = z.object({
  offline: z.boolean(),
  allowed_hosts: z
    .array(AllowedHost)
    .max(200)
    .default([])
    .transform((hosts) => [...new Set(hosts)]),
});
export type EgressSettingBody = z.output<typeof EgressSettingBody>;

// Responses

export const EgressSetting = z.object({ offline: z.boolean(), allowed_hosts: z.array(z.string()) });
export const OutboundHosts = z.object({
  hosts: z.array(z.object({ host: z.string(), calls: z.number().int(), blocked: z.number().int() })),
});
