export interface ErrorDetail {
  loc: (string | number)[];
  msg: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly detail?: ErrorDetail[],
  ) {
    super(message);
  }
}

export type Query = Record<string, string | number | boolean | undefined | null | (string | number)[]>;

export interface RequestInit {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  query?: Query | URLSearchParams;
  signal?: AbortSignal;
  /** Answer the Response itself (for downloads, read as a stream) once it is known to be OK. */
  raw?: boolean;
}

export type Api = <T = unknown>(path: string, init?: RequestInit) => Promise<T>;

export function queryString(query: Query | URLSearchParams | undefined): string {
  if (!query) return '';
  if (query instanceof URLSearchParams) return query.size ? `?${query}` : '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v));
  }
  return params.size ? `?${params}` : '';
}

/** The one way the UI reaches data: the same HTTP API every other client uses. */
export function createApi(token: string, onUnauthorized: () => void): Api {
  return async <T,>(path: string, init: RequestInit = {}) => {
    const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(path + queryString(init.query), {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
    });
    if (init.raw && response.ok) return response as T;
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // a non-JSON body is reported as text below
    }
    if (!response.ok) {
      if (response.status === 401) onUnauthorized();
      const b = body as { message?: string; detail?: ErrorDetail[] } | undefined;
      throw new ApiError(response.status, b?.message ?? `Request failed (${response.status})`, b?.detail);
    }
    return body as T;
  };
}

export const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
