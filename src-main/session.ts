/**
 * Trades the API key for the UI's session token, so the window's address carries a token that
 * expires instead of the long-lived key.
 */
export async function openSession(baseUrl: string, apiKey: string): Promise<{ token: string; expires_at: string }> {
  const response = await fetch(`${baseUrl}/api/public/v2/session`, { method: 'POST', headers: { 'X-API-KEY': apiKey } });
  const body = (await response.json()) as { token?: string; expires_at?: string; message?: string };
  if (!response.ok || !body.token || !body.expires_at) {
    throw new Error(`Opening a UI session failed (${response.status}): ${body.message ?? 'no token in the answer'}`);
  }
  return { token: body.token, expires_at: body.expires_at };
}
