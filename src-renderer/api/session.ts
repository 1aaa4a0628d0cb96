const STORAGE_KEY = 'promptledger.session';

export interface Session {
  token: string;
  expires_at: string;
}

export function loadSession(): Session | null {
  try {
    const session = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null') as Session | null;
    if (!session?.token || Date.parse(session.expires_at) <= Date.now()) return null;
    return session;
  } catch {
    return null;
  }
}

export const saveSession = (session: Session) => localStorage.setItem(STORAGE_KEY, JSON.stringify(session));
export const clearSession = () => localStorage.removeItem(STORAGE_KEY);

/**
 * The desktop window opens `/#token=…` and `npm start` prints `/#key=…`. Either is read once and
 * removed from the address bar and history, so the credential is not left in a bookmark or a
 * screenshot.
 */
export function takeCredentialFromHash(): { key?: string; token?: string } {
  const hash = new URLSearchParams(location.hash.replace(/^#/, ''));
  const key = hash.get('key') ?? undefined;
  const token = hash.get('token') ?? undefined;
  if (key || token) history.replaceState(history.state, '', location.pathname + location.search);
  return { key, token };
}

/** Exchanges an API key for a session token (the UI never keeps the key itself). */
export async function signInWithKey(key: string): Promise<Session> {
  const response = await fetch('/api/public/v2/session', { method: 'POST', headers: { 'X-API-KEY': key.trim() } });
  const body = (await response.json().catch(() => ({}))) as Partial<Session> & { message?: string };
  if (!response.ok || !body.token || !body.expires_at) throw new Error(body.message ?? `Sign-in failed (${response.status}).`);
  return { token: body.token, expires_at: body.expires_at };
}

/** A token handed over by the desktop shell; its expiry is read from the JWT itself. */
export function sessionFromToken(token: string): Session {
  try {
    const payload = JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: number };
    return { token, expires_at: new Date((payload.exp ?? Date.now() / 1000 + 3600) * 1000).toISOString() };
  } catch {
    return { token, expires_at: new Date(Date.now() + 3600_000).toISOString() };
  }
}
