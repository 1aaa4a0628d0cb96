import { createHash, randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { AppError, notFound } from '../errors';
import { isoDate } from '../iso-date';
import type { WorkspaceStore } from '../store/workspaces';

/** Who is calling: everything they read or write is scoped to `workspaceId`. */
export interface Principal {
  workspaceId: number;
  keyId: number;
}

/** The workspace created with the data file; its keys belong to the local owner. */
export const DEFAULT_WORKSPACE_ID = 1;

const SESSION_TTL_SECONDS = 7 * 24 * 3600;
/** Valid keys answered from memory; past this many, the cache starts again. */
const KNOWN_KEYS = 1000;

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

/** PromptLayer keys look like `pl_…`; ours do too, so existing tooling that checks it is happy. */
export const generateKey = () => `pl_${randomBytes(24).toString('base64url')}`;

const displayPrefix = (key: string) => key.slice(0, 10);

export interface AuthDeps {
  store: WorkspaceStore;
  sessionSecret: Uint8Array;
  now: () => number;
}

export function createAuthService({ store, sessionSecret, now }: AuthDeps) {
  // Every request authenticates; under an ingest burst a database read per request competes with
  // the ingest thread's commits for the WAL, so known keys are answered from memory. They are looked
  // up by the key as sent, not its hash: a SHA-256 per request was ~3 % of the HTTP thread's work
  // at 50 connections (docs/performance.md, "Ingest: HTTP thread"). Only keys that are valid now are
  // kept, at most KNOWN_KEYS of them; keys change only through this service, which drops them all
  // when one is revoked.
  const known = new Map<string, Principal>();
  function principalForKey(key: string): Principal | null {
    const cached = known.get(key);
    if (cached) return cached;
    const row = store.keyByHash(hashKey(key));
    if (!row || row.revoked_at !== null) return null;
    const principal = { workspaceId: row.workspace_id, keyId: row.id };
    if (known.size >= KNOWN_KEYS) known.clear();
    known.set(key, principal);
    return principal;
  }

  function issueKey(workspaceId: number, name: string, key = generateKey()) {
    const createdAt = now();
    const id = store.insertKey({
      workspace_id: workspaceId,
      name,
      prefix: displayPrefix(key),
      key_hash: hashKey(key),
      created_at: createdAt,
    });
    return { key, apiKey: { id, name, prefix: displayPrefix(key), created_at: createdAt } };
  }

  return {
    principalForKey,

    async principalForSession(token: string): Promise<Principal | null> {
      try {
        const { payload } = await jwtVerify(token, sessionSecret, {
          algorithms: ['HS256'],
          currentDate: new Date(now()),
        });
        const keyId = Number(payload.sub);
        const workspaceId = Number(payload.ws);
        // A session lives only as long as the key it was opened with.
        const row = store.keyById(workspaceId, keyId);
        if (!row || row.revoked_at !== null) return null;
        return { workspaceId, keyId };
      } catch {
        return null;
      }
    },

    async openSession(principal: Principal) {
      const issuedAt = Math.floor(now() / 1000);
      const expiresAt = issuedAt + SESSION_TTL_SECONDS;
      const token = await new SignJWT({ ws: principal.workspaceId })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(String(principal.keyId))
        .setIssuedAt(issuedAt)
        .setExpirationTime(expiresAt)
        .sign(sessionSecret);
      return { token, expires_at: isoDate(expiresAt * 1000) };
    },

    /**
     * At start-up: make sure the default workspace exists and can be reached. A key given in the
     * environment is registered if new; otherwise, when the workspace has no usable key, one is
     * generated and returned so the caller can print and save it.
     */
    bootstrap(envKey: string | undefined): { generatedKey?: string } {
      if (!store.workspace(DEFAULT_WORKSPACE_ID)) store.insertWorkspace('Default', now());
      if (envKey) {
        if (!store.keyByHash(hashKey(envKey))) issueKey(DEFAULT_WORKSPACE_ID, 'PROMPTLEDGER_API_KEY', envKey);
        return {};
      }
      if (store.activeKeyCount(DEFAULT_WORKSPACE_ID) > 0) return {};
      return { generatedKey: issueKey(DEFAULT_WORKSPACE_ID, 'Generated at first start').key };
    },

    createWorkspace(caller: Principal, name: string) {
      if (caller.workspaceId !== DEFAULT_WORKSPACE_ID) {
        throw new AppError('forbidden', 'Only a key of the default workspace can create workspaces.');
      }
      const id = store.insertWorkspace(name, now());
      const { key } = issueKey(id, 'Created with the workspace');
      return { workspace: { id, name }, api_key: key };
    },

    createKey: (caller: Principal, name: string) => issueKey(caller.workspaceId, name),

    listKeys: (caller: Principal) =>
      store.keys(caller.workspaceId).map(({ id, name, prefix, created_at }) => ({ id, name, prefix, created_at })),

    revokeKey(caller: Principal, id: number) {
      if (!store.revokeKey(caller.workspaceId, id, now())) throw notFound('API key');
      known.clear();
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
