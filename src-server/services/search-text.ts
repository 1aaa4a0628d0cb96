/**
 * The words a person would search for in a template: message and block text, tool-call arguments
 * — not JSON keys or roles, which would make every request match "user" or "content".
 */
export function searchText(...templates: unknown[]): string {
  const parts: string[] = [];
  const visitBlocks = (content: unknown) => {
    if (typeof content === 'string') return void parts.push(content);
    if (!Array.isArray(content)) return;
    for (const block of content) {
      if (typeof block === 'string') parts.push(block);
      else if (block && typeof block === 'object') {
        for (const key of ['text', 'thinking'] as const) {
          const value = (block as Record<string, unknown>)[key];
          if (typeof value === 'string') parts.push(value);
        }
      }
    }
  };
  for (const template of templates) {
    if (!template || typeof template !== 'object') continue;
    const t = template as { content?: unknown; messages?: unknown };
    visitBlocks(t.content);
    if (!Array.isArray(t.messages)) continue;
    for (const message of t.messages as Array<Record<string, unknown>>) {
      visitBlocks(message?.content);
      if (!Array.isArray(message?.tool_calls)) continue;
      for (const call of message.tool_calls as Array<{ function?: { name?: unknown; arguments?: unknown } }>) {
        if (typeof call?.function?.name === 'string') parts.push(call.function.name);
        if (typeof call?.function?.arguments === 'string') parts.push(call.function.arguments);
      }
    }
  }
  return parts.join('\n');
}
