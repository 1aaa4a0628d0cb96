import { ApiError, type ErrorDetail } from './client';

type OnEvent = (event: string, data: unknown) => void;

/**
 * Reads a Server-Sent Events stream with fetch, because EventSource cannot send the
 * Authorization header the session needs. Resolves when the stream ends or the signal aborts.
 */
export async function readEvents(url: string, token: string, signal: AbortSignal, onEvent: OnEvent): Promise<void> {
  const response = await fetch(url, { headers: { Authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal });
  if (!response.ok || !response.body) throw new Error(`Progress stream failed (${response.status})`);
  await readFrames(response.body, onEvent);
}

/**
 * POSTs a JSON body and reads the Server-Sent Events answer (the playground's run). An error the
 * server answers before the stream opens (422, 404...) is thrown as the API's own message.
 */
export async function postEvents(url: string, token: string, body: unknown, signal: AbortSignal, onEvent: OnEvent): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, accept: 'text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok || !response.body) {
    const error = (await response.json().catch(() => ({}))) as { message?: string; detail?: ErrorDetail[] };
    throw new ApiError(response.status, error.message ?? `Request failed (${response.status})`, error.detail);
  }
  await readFrames(response.body, onEvent);
}

async function readFrames(body: NonNullable<Response['body']>, onEvent: OnEvent): Promise<void> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of frame.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      if (data.length) {
        try {
          onEvent(event, JSON.parse(data.join('\n')));
        } catch {
          onEvent(event, data.join('\n'));
        }
      }
    }
  }
}
