/**
 * Reads a Server-Sent Events stream with fetch, because EventSource cannot send the
 * Authorization header the session needs. Resolves when the stream ends or the signal aborts.
 */
export async function readEvents(url: string, token: string, signal: AbortSignal, onEvent: (event: string, data: unknown) => void): Promise<void> {
  const response = await fetch(url, { headers: { Authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal });
  if (!response.ok || !response.body) throw new Error(`Progress stream failed (${response.status})`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
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
