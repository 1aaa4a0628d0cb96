import type { ChatMessage } from '../providers/provider';

const blockText = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) => (block && typeof block === 'object' && (block as { type?: unknown }).type === 'text' ? String((block as { text?: unknown }).text ?? '') : ''))
    .join('');
};

/**
 * A rendered chat or completion template as provider messages. Only text blocks are sent:
 * evaluation columns compare text, and providers differ on every other block type.
 */
export function templateMessages(template: Record<string, unknown>): ChatMessage[] {
  if (template.type === 'completion') return [{ role: 'user', content: blockText(template.content) }];
  const messages = Array.isArray(template.messages) ? (template.messages as Array<Record<string, unknown>>) : [];
  return messages
    .map((m): ChatMessage => {
      const role = m.role === 'system' || m.role === 'developer' ? 'system' : m.role === 'assistant' ? 'assistant' : 'user';
      return { role, content: blockText(m.content) };
    })
    .filter((m) => m.content !== '' || m.role !== 'system');
}
