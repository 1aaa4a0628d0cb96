let counter = 0;

/** A valid `POST /log-request` body; override any field. */
export function logBody(overrides: Record<string, unknown> = {}) {
  counter++;
  return {
    provider: 'openai',
    model: 'gpt-4o-mini',
    input: {
      type: 'chat',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'You are terse.' }] },
        { role: 'user', content: [{ type: 'text', text: `Question number ${counter}` }] },
      ],
    },
    output: {
      type: 'chat',
      messages: [{ role: 'assistant', content: [{ type: 'text', text: `Answer number ${counter}` }] }],
    },
    request_start_time: '2026-11-01T10:00:00.000Z',
    request_end_time: '2026-11-01T10:00:01.250Z',
    ...overrides,
  };
}

export const chat = (user: string, assistant?: string) => ({
  input: { type: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: user }] }] },
  output: { type: 'chat', messages: [{ role: 'assistant', content: [{ type: 'text', text: assistant ?? `re: ${user}` }] }] },
});
